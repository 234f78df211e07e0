/**
 * A grid of 2D depictions in one picture (depict's smiles_list form). MinimalLib has no MolsToGridImage,
 * so each molecule is drawn by RDKit's SVG drawer into a cell of its own size and the cells are composed
 * into one SVG, each cell a nested <svg> (which clips it) with a <title> naming it. The drawer repeats the
 * same long style attribute on every path; the grid keeps one CSS class per distinct style instead (the
 * same picture, about 40% fewer bytes) and drops RDKit's atom-/bond- classes, which would repeat in every
 * cell. Entries that do not parse keep their place: a grey cell saying why, so positions match the input.
 *
 * Alignment (align_smarts): the first molecule that matches gets RDKit's 2D coordinates and is the
 * template; every other matching molecule gets coordinates from generate_aligned_coords with the SMARTS as
 * referenceSmarts, so the matched atoms sit where they sit in the template. Molecules that do not match
 * are drawn with their own coordinates.
 */
import { ToolError, type DomainErrorPayload } from "../errors.js";
import { drawSvg } from "./depict.js";
import { parseSmiles, substructMatches, withQuery } from "./rdkit.js";
import type { RDKit, RDKitMol } from "./rdkit.js";

export const GRID_MAX_ENTRIES = 48;
export const GRID_MIN_CELL = 100;
export const GRID_MAX_CELL = 600;
export const GRID_MAX_PER_ROW = 12;
/**
 * Pixels of a whole grid PNG: 48 drug-sized molecules at 250x200 are 2.4 Mpx and about 380 KB of PNG
 * (500 KB of base64); 4 Mpx keeps a grid of such drawings inside the response budget.
 */
export const GRID_MAX_PIXELS = 4_000_000;
/** Atoms of one cell: a larger molecule is unreadable in a cell and slow to draw (it is marked instead). */
const GRID_MAX_CELL_ATOMS = 200;
/**
 * Smallest atom-label font, in pixels (RDKit's default is 6): a drug-sized molecule in a 250x200 cell
 * would otherwise get labels too small to read.
 */
const GRID_MIN_FONT_PX = 11;
/**
 * Longest bond, as a share of the cell's shorter side (30 px in a 250x200 cell): RDKit otherwise scales
 * every molecule to fill its cell, so ethanol came out at four times the scale of imatinib next to it.
 * A molecule that does not fit at this length is shrunk to fit, as before. (RDKit's fixedBondLength is
 * pixels per coordinate unit, and its 2D bonds are 1.5 units long.)
 */
const GRID_BOND_SHARE = 0.15;

/** RDKit drawing options of a w x h cell (readable labels, bonds no longer than GRID_BOND_SHARE of the cell). */
export function cellDrawOptions(w: number, h: number): Record<string, unknown> {
  return { minFontSize: GRID_MIN_FONT_PX, fixedBondLength: (Math.min(w, h) * GRID_BOND_SHARE) / 1.5 };
}

export interface GridOptions {
  subWidth: number;
  subHeight: number;
  /** Cells per row (default: up to 4). */
  molsPerRow?: number | undefined;
  legends?: readonly string[] | undefined;
  alignSmarts?: string | undefined;
  highlightSmarts?: string | undefined;
  atomIndices?: boolean | undefined;
  stereoAnnotation?: boolean | undefined;
}

export type GridEntry = { index: number; input: string; smiles: string } | { index: number; input: string; error: DomainErrorPayload };

export interface GridAlignment {
  smarts: string;
  /** The entry whose coordinates the others follow (absent when no entry matched). */
  template_index?: number;
  /** Entries drawn aligned to the template (the template included). */
  aligned: number[];
  /** Drawn entries the SMARTS does not match (drawn unaligned). */
  unmatched: number[];
}

export interface GridDrawing {
  svg: string;
  rows: number;
  cols: number;
  width: number;
  height: number;
  entries: GridEntry[];
  alignment?: GridAlignment;
  /** With highlight_smarts: the entries in which something was highlighted. */
  highlight?: { smarts: string; matched: number[] };
}

/** Rows and columns for `count` cells, `perRow` at most per row (default up to 4). */
function gridLayout(count: number, perRow?: number): { rows: number; cols: number } {
  const cols = Math.max(1, Math.min(count, perRow ?? 4));
  return { rows: Math.ceil(count / cols), cols };
}

/** Refuses a grid whose legends do not pair with the entries, or whose picture would be too large. */
function checkGrid(count: number, options: GridOptions): { rows: number; cols: number } {
  if (options.legends !== undefined && options.legends.length !== count) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `legends has ${options.legends.length} entries but smiles_list has ${count}: they pair up one to one`,
      { path: "/legends", legends: options.legends.length, smiles_list: count },
      "Send one legend per smiles_list entry (an empty string for no legend), or leave legends out.",
    );
  }
  const layout = gridLayout(count, options.molsPerRow);
  const width = layout.cols * options.subWidth;
  const height = layout.rows * options.subHeight;
  if (width * height > GRID_MAX_PIXELS) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `A ${layout.cols}x${layout.rows} grid of ${options.subWidth}x${options.subHeight} cells is ${width}x${height} = ${width * height} pixels, over the ${GRID_MAX_PIXELS}-pixel cap`,
      { path: "/", reason: "grid_too_large", width, height, pixels: width * height, max_pixels: GRID_MAX_PIXELS },
      "Use a smaller sub_width and sub_height, or split smiles_list over several calls.",
    );
  }
  return layout;
}

/** Index, in `mols`, of each molecule the query matches (undefined entries are skipped). */
function matching(mols: readonly (RDKitMol | undefined)[], query: RDKitMol): number[] {
  const out: number[] = [];
  mols.forEach((mol, i) => {
    if (mol && substructMatches(mol, query, 1).length > 0) out.push(i);
  });
  return out;
}

/**
 * Gives every molecule that `query` (compiled from `smarts`) matches coordinates aligned on the first one
 * that matches; the others keep theirs. Returns what was aligned, by position in `mols`.
 */
export function alignToSmarts(mols: readonly (RDKitMol | undefined)[], query: RDKitMol, smarts: string): GridAlignment {
  const matched = matching(mols, query);
  const drawn = mols.flatMap((mol, i) => (mol ? [i] : []));
  const alignment: GridAlignment = { smarts, aligned: [], unmatched: drawn.filter((i) => !matched.includes(i)) };
  const first = matched[0];
  if (first === undefined) return alignment;
  const template = mols[first] as RDKitMol;
  template.set_new_coords();
  alignment.template_index = first;
  alignment.aligned.push(first);
  const details = JSON.stringify({ referenceSmarts: smarts, acceptFailure: false });
  for (const i of matched.slice(1)) {
    // An empty answer: RDKit found no way to map the template's match (left with its own coordinates).
    if ((mols[i] as RDKitMol).generate_aligned_coords(template, details)) alignment.aligned.push(i);
    else alignment.unmatched.push(i);
  }
  alignment.unmatched.sort((a, b) => a - b);
  return alignment;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c] as string);
}

/** What a marked cell says, by the entry's error. */
function markText(error: DomainErrorPayload): string {
  if (error.code === "INVALID_SMILES") return "invalid SMILES";
  if (error.code === "MOLECULE_TOO_LARGE") return "too large to draw";
  return "not drawn";
}

/** The body of one of RDKit's SVGs (between its header and its closing tag). */
function svgBody(svg: string): string {
  const header = "<!-- END OF HEADER -->";
  const at = svg.indexOf(header);
  const start = at >= 0 ? at + header.length : svg.indexOf(">", svg.indexOf("<svg")) + 1;
  return svg.slice(start, svg.lastIndexOf("</svg>")).trim();
}

/** Composes the cells into one SVG, styles as shared CSS classes (see the module comment). */
function compose(cells: readonly { svg: string; title: string }[], cols: number, w: number, h: number, rows: number): string {
  const classes = new Map<string, string>();
  const parts: string[] = [];
  cells.forEach((cell, i) => {
    const body = svgBody(cell.svg)
      .replace(/ class='[^']*'/g, "")
      .replace(/ style='([^']*)'/g, (_m, style: string) => {
        let name = classes.get(style);
        if (name === undefined) {
          name = `s${classes.size}`;
          classes.set(style, name);
        }
        return ` class='${name}'`;
      });
    const x = (i % cols) * w;
    const y = Math.floor(i / cols) * h;
    parts.push(
      `<svg id='cell-${i}' x='${x}' y='${y}' width='${w}' height='${h}' viewBox='0 0 ${w} ${h}'><title>${escapeXml(cell.title)}</title>\n${body}\n</svg>`,
    );
  });
  const css = [...classes].map(([style, name]) => `.${name}{${style}}`).join("\n");
  const width = cols * w;
  const height = rows * h;
  return (
    `<?xml version='1.0' encoding='UTF-8'?>\n<svg version='1.1' xmlns='http://www.w3.org/2000/svg' width='${width}px' height='${height}px' viewBox='0 0 ${width} ${height}'>\n` +
    `<style>\n${css}\n</style>\n<rect width='${width}' height='${height}' fill='#FFFFFF'/>\n${parts.join("\n")}\n</svg>\n`
  );
}

/**
 * Draws `list` as one grid SVG, entries in input order (see the module comment). Throws INVALID_ARGUMENTS
 * (checkGrid) and INVALID_SMARTS for a bad align_smarts or highlight_smarts; a bad entry is marked in its cell.
 */
export function drawGrid(rdkit: RDKit, list: readonly string[], options: GridOptions): GridDrawing {
  const { rows, cols } = checkGrid(list.length, options);
  const { subWidth: w, subHeight: h } = options;
  // A bad highlight SMARTS fails the call even when no entry parses.
  if (options.highlightSmarts !== undefined) withQuery(rdkit, options.highlightSmarts, () => undefined, "highlight_smarts");
  const mols: (RDKitMol | undefined)[] = [];
  try {
    const entries: GridEntry[] = list.map((input, index) => {
      try {
        const mol = parseSmiles(rdkit, input, { maxAtoms: GRID_MAX_CELL_ATOMS, argName: `smiles_list[${index}]` });
        mols.push(mol);
        return { index, input, smiles: mol.get_smiles() };
      } catch (e) {
        if (!(e instanceof ToolError)) throw e;
        mols.push(undefined);
        return { index, input, error: e.toPayload() };
      }
    });
    const alignSmarts = options.alignSmarts;
    const alignment = alignSmarts === undefined ? undefined : withQuery(rdkit, alignSmarts, (q) => alignToSmarts(mols, q, alignSmarts), "align_smarts");
    const highlighted: number[] = [];
    const cells = entries.map((entry, i) => {
      const legend = options.legends?.[i] ?? "";
      const mol = mols[i];
      if (mol === undefined || "error" in entry) {
        const error = (entry as { error: DomainErrorPayload }).error;
        return { svg: markCell(rdkit, w, h, markText(error), legend), title: legend ? `${legend}: ${markText(error)}` : markText(error) };
      }
      const drawing = drawSvg(rdkit, mol, {
        width: w,
        height: h,
        legend,
        highlightSmarts: options.highlightSmarts,
        atomIndices: options.atomIndices,
        stereoAnnotation: options.stereoAnnotation,
        drawOptions: cellDrawOptions(w, h),
      });
      if (drawing.highlight && drawing.highlight.match_count > 0) highlighted.push(i);
      return { svg: drawing.svg, title: legend || entry.input };
    });
    const out: GridDrawing = { svg: compose(cells, cols, w, h, rows), rows, cols, width: cols * w, height: rows * h, entries };
    if (alignment) out.alignment = alignment;
    if (options.highlightSmarts !== undefined) out.highlight = { smarts: options.highlightSmarts, matched: highlighted };
    return out;
  } finally {
    for (const mol of mols) mol?.delete();
  }
}

/** A cell for an entry that was not drawn: the reason in grey where the molecule would be, and its legend. */
function markCell(rdkit: RDKit, w: number, h: number, text: string, legend: string): string {
  // RDKit draws text only as part of a molecule: one dummy atom whose label is the reason.
  const mol = rdkit.get_mol("*");
  if (!mol) throw new Error("RDKit could not build the placeholder molecule");
  try {
    const details: Record<string, unknown> = { width: w, height: h, atomLabels: { 0: text }, atomColourPalette: { 0: [0.55, 0.55, 0.55] }, maxFontSize: 20 };
    if (legend) details.legend = legend;
    return mol.get_svg_with_highlights(JSON.stringify(details));
  } finally {
    mol.delete();
  }
}
