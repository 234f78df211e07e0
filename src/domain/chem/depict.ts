/**
 * 2D depiction: RDKit's drawing (MolDraw2DSVG through MinimalLib's get_svg_with_highlights) and, for
 * PNG, rasterisation of that SVG by resvg (@resvg/resvg-js, a maintained Rust SVG renderer whose native
 * binary ships inside its npm package). RDKit draws atom labels and legends as paths, so no font is
 * needed and the picture is the same on every machine.
 *
 * resvg is loaded on first use inside the worker that draws, so workers that never draw do not load it.
 */
import { createRequire } from "node:module";
import { ToolError } from "../errors.js";
import { withQuery } from "./rdkit.js";
import type { RDKit, RDKitMol } from "./rdkit.js";

export const DEPICT_MIN_SIZE = 100;
export const DEPICT_MAX_SIZE = 1200;
/** Drawing time grows with size (about 11 s for 1,050 atoms here); larger pictures are unreadable anyway. */
export const DEPICT_MAX_ATOMS = 1000;
/** Highlighting caps the matches it collects (enough to cover any drawable molecule). */
const DEPICT_MAX_MATCHES = 1000;

export interface DepictOptions {
  width: number;
  height: number;
  highlightSmarts?: string | undefined;
  legend?: string | undefined;
  atomIndices?: boolean | undefined;
  stereoAnnotation?: boolean | undefined;
  /** More MolDrawOptions for RDKit's drawer (e.g. minFontSize), merged into the drawing details. */
  drawOptions?: Record<string, unknown> | undefined;
}

export interface Highlight {
  smarts: string;
  match_count: number;
  atoms: number[];
  bonds: number[];
}

export interface Drawing {
  svg: string;
  highlight?: Highlight;
}

interface MatchJson {
  atoms: number[];
  bonds?: number[];
}

function highlightOf(mol: RDKitMol, query: RDKitMol, smarts: string): Highlight {
  const parsed = JSON.parse(mol.get_substruct_matches(query, JSON.stringify({ maxMatches: DEPICT_MAX_MATCHES }))) as unknown;
  const matches = Array.isArray(parsed) ? (parsed as MatchJson[]) : []; // "{}" when nothing matches
  const atoms = new Set<number>();
  const bonds = new Set<number>();
  for (const m of matches) {
    for (const a of m.atoms) atoms.add(a);
    for (const b of m.bonds ?? []) bonds.add(b);
  }
  return {
    smarts,
    match_count: matches.length,
    atoms: [...atoms].sort((a, b) => a - b),
    bonds: [...bonds].sort((a, b) => a - b),
  };
}

/** Draws `mol` as SVG, optionally highlighting every match of a SMARTS (INVALID_SMARTS when it does not parse). */
export function drawSvg(rdkit: RDKit, mol: RDKitMol, options: DepictOptions): Drawing {
  let highlight: Highlight | undefined;
  if (options.highlightSmarts !== undefined) {
    const smarts = options.highlightSmarts;
    highlight = withQuery(rdkit, smarts, (query) => highlightOf(mol, query, smarts), "highlight_smarts");
  }
  const details: Record<string, unknown> = {
    ...options.drawOptions,
    width: options.width,
    height: options.height,
    addAtomIndices: options.atomIndices === true,
    addStereoAnnotation: options.stereoAnnotation === true,
  };
  if (options.legend !== undefined && options.legend.length > 0) details.legend = options.legend;
  if (highlight !== undefined) {
    details.atoms = highlight.atoms;
    details.bonds = highlight.bonds;
  }
  const svg = mol.get_svg_with_highlights(JSON.stringify(details));
  if (!svg) throw new Error("RDKit returned no SVG");
  return highlight === undefined ? { svg } : { svg, highlight };
}

interface ResvgModule {
  Resvg: new (svg: string, options?: Record<string, unknown>) => { render(): { asPng(): Uint8Array; width: number; height: number } };
}

let resvg: ResvgModule | undefined;

function loadResvg(): ResvgModule {
  // A CommonJS package with a native addon: loaded synchronously, once per worker, on first use.
  resvg ??= createRequire(import.meta.url)("@resvg/resvg-js") as ResvgModule;
  return resvg;
}

/** Rasterises an RDKit SVG at its own width and height (RDKit paints the white background). */
export function rasterise(svg: string): Uint8Array {
  const { Resvg } = loadResvg();
  // No system fonts: RDKit's SVG has no <text>, and loading fonts would make the output machine-dependent.
  const rendered = new Resvg(svg, { font: { loadSystemFonts: false } }).render();
  return rendered.asPng();
}

/** Bytes of `text` once written as a JSON string (what a response carries). */
export function jsonStringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), "utf8");
}

/** A picture too large for the response limit: a typed error saying what to change. */
export function imageTooLarge(format: "png" | "svg", bytes: number, maxBytes: number): ToolError {
  return new ToolError(
    "MOLECULE_TOO_LARGE",
    `The ${format.toUpperCase()} picture would take ${bytes} bytes in the response, over the ${maxBytes}-byte budget of one response`,
    { reason: "image_exceeds_response_limit", format, bytes, max_bytes: maxBytes },
    format === "svg"
      ? "Ask for format png (much smaller for large molecules), or depict a smaller molecule."
      : "Ask for a smaller width and height, or depict a smaller molecule.",
  );
}
