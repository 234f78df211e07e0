import { DEPICT_MAX_ATOMS, DEPICT_MAX_SIZE, DEPICT_MIN_SIZE, drawSvg, imageTooLarge, jsonStringBytes, rasterise } from "../domain/chem/depict.js";
import type { Highlight } from "../domain/chem/depict.js";
import { withMol } from "../domain/chem/rdkit.js";
import { MAX_RESPONSE_BYTES } from "../contract/limits.js";
import { withExtraContent, type ChemTool, type WithExtraContent } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

interface Args {
  smiles: string;
  format?: "png" | "svg";
  width?: number;
  height?: number;
  highlight_smarts?: string;
  legend?: string;
  atom_indices?: boolean;
  stereo_annotation?: boolean;
}

interface DepictResult extends Record<string, unknown> {
  smiles: string;
  format: "png" | "svg";
  mime_type: "image/png" | "image/svg+xml";
  width: number;
  height: number;
  byte_length: number;
  atom_count: number;
  svg?: string;
  highlight?: Highlight;
}

/** What a response may spend on the picture: the 1 MiB limit less room for the envelope and the small JSON. */
export const IMAGE_RESPONSE_BUDGET = MAX_RESPONSE_BYTES - 32 * 1024;

const size = (description: string, dflt: number) => ({ type: "integer", minimum: DEPICT_MIN_SIZE, maximum: DEPICT_MAX_SIZE, default: dflt, description });
const intList = (description: string) => ({ type: "array", items: { type: "integer", minimum: 0 }, description });

export const depictTool: ChemTool<Args, WithExtraContent<DepictResult> | DepictResult> = {
  kind: "chem",
  toolset: "chem",
  name: "depict",
  title: "Draw a molecule (PNG or SVG)",
  description:
    "Draw the 2D structure of a molecule with RDKit so you or the user can look at it. PNG by default: the picture comes back as an " +
    "MCP image content block (image/png) next to a small JSON summary (size, bytes, canonical SMILES). format svg returns the SVG " +
    "markup as text in the `svg` field instead (no image block: most model APIs accept only raster images). Optional: " +
    "highlight_smarts colours every atom and bond matched by a SMARTS pattern (the summary lists them), legend adds a caption, " +
    "atom_indices labels atoms with the 0-based indices other tools use, stereo_annotation shows CIP labels (R/S, E/Z). " +
    `Width and height ${DEPICT_MIN_SIZE}-${DEPICT_MAX_SIZE} px (default 400x300); at most ${DEPICT_MAX_ATOMS} atoms.`,
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty(),
      format: { type: "string", enum: ["png", "svg"], default: "png", description: "png (an image block, default) or svg (markup as text)." },
      width: size("Picture width in pixels (default 400).", 400),
      height: size("Picture height in pixels (default 300).", 300),
      highlight_smarts: { type: "string", minLength: 1, maxLength: 10_000, description: "SMARTS pattern whose matches are highlighted, e.g. C(=O)O." },
      legend: { type: "string", maxLength: 200, description: "Caption drawn under the molecule." },
      atom_indices: { type: "boolean", default: false, description: "Label each atom with its 0-based index (default false)." },
      stereo_annotation: { type: "boolean", default: false, description: "Show CIP stereo labels, R/S and E/Z (default false)." },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      smiles: { type: "string", description: "RDKit canonical SMILES of the molecule drawn." },
      format: { type: "string", enum: ["png", "svg"], description: "Format of the picture." },
      mime_type: { type: "string", enum: ["image/png", "image/svg+xml"], description: "MIME type of the picture." },
      width: { type: "integer", description: "Width in pixels." },
      height: { type: "integer", description: "Height in pixels." },
      byte_length: { type: "integer", minimum: 0, description: "Size of the PNG or SVG in bytes (before base64 for PNG)." },
      atom_count: { type: "integer", minimum: 0, description: "Atoms drawn (heavy atoms plus any explicit hydrogens)." },
      svg: { type: "string", description: "The SVG markup (format svg only; PNG travels as an image content block)." },
      highlight: {
        type: "object",
        description: "What highlight_smarts matched (present when it was given).",
        properties: {
          smarts: { type: "string", description: "The SMARTS used." },
          match_count: { type: "integer", minimum: 0, description: "Number of matches (0: nothing highlighted)." },
          atoms: intList("Highlighted atom indices."),
          bonds: intList("Highlighted bond indices."),
        },
        required: ["smarts", "match_count", "atoms", "bonds"],
        additionalProperties: false,
      },
    },
    required: ["smiles", "format", "mime_type", "width", "height", "byte_length", "atom_count"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "INVALID_SMARTS", "MOLECULE_TOO_LARGE"],
  budgetMs: 30_000,
  run(args, { rdkit }) {
    const format = args.format ?? "png";
    const width = args.width ?? 400;
    const height = args.height ?? 300;
    return withMol(
      rdkit,
      args.smiles,
      (mol): DepictResult | WithExtraContent<DepictResult> => {
        const drawing = drawSvg(rdkit, mol, {
          width,
          height,
          highlightSmarts: args.highlight_smarts,
          legend: args.legend,
          atomIndices: args.atom_indices,
          stereoAnnotation: args.stereo_annotation,
        });
        const base = { smiles: mol.get_smiles(), format, width, height, atom_count: mol.get_num_atoms() };
        const highlight = drawing.highlight === undefined ? {} : { highlight: drawing.highlight };
        if (format === "svg") {
          // The SVG travels twice: in structuredContent and, JSON-escaped once more, in the text block.
          const bytes = jsonStringBytes(drawing.svg) + jsonStringBytes(JSON.stringify(drawing.svg));
          if (bytes > IMAGE_RESPONSE_BUDGET) throw imageTooLarge("svg", bytes, IMAGE_RESPONSE_BUDGET);
          return { ...base, mime_type: "image/svg+xml", byte_length: Buffer.byteLength(drawing.svg, "utf8"), svg: drawing.svg, ...highlight };
        }
        const png = rasterise(drawing.svg);
        const data = Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString("base64");
        if (data.length > IMAGE_RESPONSE_BUDGET) throw imageTooLarge("png", data.length, IMAGE_RESPONSE_BUDGET);
        const result: DepictResult = { ...base, mime_type: "image/png", byte_length: png.byteLength, ...highlight };
        return withExtraContent(result, [{ type: "image", data, mimeType: "image/png" }]);
      },
      { maxAtoms: DEPICT_MAX_ATOMS },
    );
  },
};
