import { TABLE_APP_URI } from "../contract/apps.js";
import { DEPICT_MAX_ATOMS, DEPICT_MAX_SIZE, DEPICT_MIN_SIZE, drawSvg, imageTooLarge, jsonStringBytes, rasterise } from "../domain/chem/depict.js";
import type { Highlight } from "../domain/chem/depict.js";
import { GRID_MAX_CELL, GRID_MAX_ENTRIES, GRID_MAX_PER_ROW, GRID_MIN_CELL, drawGrid } from "../domain/chem/grid.js";
import type { GridAlignment, GridEntry } from "../domain/chem/grid.js";
import { withMol, type RDKit } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { MAX_ANSWER_BYTES, MAX_RESPONSE_BYTES, clipText } from "../contract/limits.js";
import { entryErrorSchema, withExtraContent, type ChemTool, type WithExtraContent } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";
import { SMILES_MAX_LENGTH } from "./common.js";
import { canvasFor, canvasIdProperty, defaultSmilesColumn } from "./canvas-common.js";
import { countWhere, MAX_WHERE_LENGTH, whereSql } from "../domain/canvas/row-filter.js";
import { quoteIdent } from "../domain/canvas/tables.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { MAX_SQL_LENGTH } from "../domain/canvas/sql-guard.js";
import type { ServiceContext } from "../contract/tool.js";

interface Args {
  canvas_id?: string;
  sql?: string;
  table?: string;
  smiles_column?: string;
  where?: string;
  legend_column?: string;
  smiles?: string;
  smiles_list?: string[];
  legends?: string[];
  mols_per_row?: number;
  sub_width?: number;
  sub_height?: number;
  align_smarts?: string;
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

interface GridResult extends Record<string, unknown> {
  format: "png" | "svg";
  mime_type: "image/png" | "image/svg+xml";
  width: number;
  height: number;
  byte_length: number;
  count: number;
  failed: number;
  rows: number;
  cols: number;
  sub_width: number;
  sub_height: number;
  entries: GridEntry[];
  alignment?: GridAlignment;
  highlight?: { smarts: string; matched: number[] };
  svg?: string;
}

/** An entry's input as the grid answer echoes it (index is the key; a huge input is not sent back whole). */
const ECHO_MAX_CHARS = 1000;

/** What a response may spend on the picture: the 1 MiB limit less room for the envelope and the small JSON. */
const IMAGE_RESPONSE_BUDGET = MAX_RESPONSE_BYTES - 32 * 1024;

const size = (description: string, dflt: number) => ({ type: "integer", minimum: DEPICT_MIN_SIZE, maximum: DEPICT_MAX_SIZE, default: dflt, description });
const intList = (description: string) => ({ type: "array", items: { type: "integer", minimum: 0 }, description });
const cellSize = (description: string, dflt: number) => ({ type: "integer", minimum: GRID_MIN_CELL, maximum: GRID_MAX_CELL, default: dflt, description });
const GRID_ONLY = ["legends", "mols_per_row", "sub_width", "sub_height", "align_smarts"] as const;
const SINGLE_ONLY = ["width", "height", "legend"] as const;

const ERROR_SCHEMA = entryErrorSchema("Why this entry was not drawn (its cell is marked).");

const SINGLE_OUTPUT = {
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
};

const GRID_OUTPUT = {
  type: "object",
  description: "The answer for smiles_list: one picture of the whole grid.",
  properties: {
    format: { type: "string", enum: ["png", "svg"], description: "Format of the picture." },
    mime_type: { type: "string", enum: ["image/png", "image/svg+xml"], description: "MIME type of the picture." },
    width: { type: "integer", description: "Width of the whole picture in pixels (cols x sub_width)." },
    height: { type: "integer", description: "Height of the whole picture in pixels (rows x sub_height)." },
    byte_length: { type: "integer", minimum: 0, description: "Size of the PNG or SVG in bytes (before base64 for PNG)." },
    count: { type: "integer", minimum: 1, description: "Entries sent (one cell each)." },
    failed: { type: "integer", minimum: 0, description: "Entries not drawn (their cells are marked)." },
    rows: { type: "integer", minimum: 1 },
    cols: { type: "integer", minimum: 1 },
    sub_width: { type: "integer", description: "Cell width in pixels." },
    sub_height: { type: "integer", description: "Cell height in pixels." },
    entries: {
      type: "array",
      description: "Every entry in input order (cell i is row floor(i / cols), column i mod cols): its canonical SMILES, or why it was not drawn.",
      items: {
        type: "object",
        properties: {
          index: { type: "integer", minimum: 0 },
          input: { type: "string", description: `The entry as sent (cut to ${ECHO_MAX_CHARS} characters).` },
          smiles: { type: "string", description: "RDKit canonical SMILES of the molecule drawn." },
          error: ERROR_SCHEMA,
        },
        required: ["index", "input"],
        additionalProperties: false,
      },
    },
    alignment: {
      type: "object",
      description: "What align_smarts did (present when it was given).",
      properties: {
        smarts: { type: "string" },
        template_index: {
          type: "integer",
          minimum: 0,
          description: "The first entry the SMARTS matches: the others are oriented like it (absent: no entry matched).",
        },
        aligned: intList("Entries drawn aligned on the template (the template included)."),
        unmatched: intList("Drawn entries the SMARTS does not match (drawn with their own orientation)."),
      },
      required: ["smarts", "aligned", "unmatched"],
      additionalProperties: false,
    },
    highlight: {
      type: "object",
      description: "What highlight_smarts matched (present when it was given).",
      properties: { smarts: { type: "string" }, matched: intList("Entries in which the SMARTS matched (and is highlighted).") },
      required: ["smarts", "matched"],
      additionalProperties: false,
    },
    svg: { type: "string", description: "The SVG markup of the whole grid (format svg only), one nested <svg id='cell-i'> per entry." },
  },
  required: ["format", "mime_type", "width", "height", "byte_length", "count", "failed", "rows", "cols", "sub_width", "sub_height", "entries"],
  additionalProperties: false,
};

type Answer<R> = R | WithExtraContent<R>;

/** The grid form (smiles_list): one picture of every entry, and a summary saying what each cell holds. */
function depictGrid(rdkit: RDKit, list: string[], args: Args): Answer<GridResult> {
  const format = args.format ?? "png";
  const subWidth = args.sub_width ?? 250;
  const subHeight = args.sub_height ?? 200;
  const grid = drawGrid(rdkit, list, {
    subWidth,
    subHeight,
    molsPerRow: args.mols_per_row,
    legends: args.legends,
    alignSmarts: args.align_smarts,
    highlightSmarts: args.highlight_smarts,
    atomIndices: args.atom_indices,
    stereoAnnotation: args.stereo_annotation,
  });
  const entries = grid.entries.map((e) => (e.input.length > ECHO_MAX_CHARS ? { ...e, input: clipText(e.input, ECHO_MAX_CHARS) } : e));
  const summary = {
    format,
    width: grid.width,
    height: grid.height,
    count: list.length,
    failed: entries.filter((e) => "error" in e).length,
    rows: grid.rows,
    cols: grid.cols,
    sub_width: subWidth,
    sub_height: subHeight,
    entries,
    ...(grid.alignment ? { alignment: grid.alignment } : {}),
    ...(grid.highlight ? { highlight: grid.highlight } : {}),
  };
  // The summary travels twice too (structuredContent and the text block); what is left is the picture's.
  const budget = IMAGE_RESPONSE_BUDGET - 2 * jsonStringBytes(JSON.stringify(summary));
  if (format === "svg") {
    // SVG is text: each surface (the structured result, the text block) must stay within what a host takes.
    const bytes = jsonStringBytes(grid.svg);
    const svgBudget = Math.min(budget, MAX_ANSWER_BYTES - jsonStringBytes(JSON.stringify(summary)) - 512);
    if (bytes > svgBudget) throw gridTooLarge("svg", bytes, svgBudget);
    return { ...summary, mime_type: "image/svg+xml", byte_length: Buffer.byteLength(grid.svg, "utf8"), svg: grid.svg };
  }
  const png = rasterise(grid.svg);
  const data = Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString("base64");
  if (data.length > budget) throw gridTooLarge("png", data.length, budget);
  return withExtraContent<GridResult>({ ...summary, mime_type: "image/png", byte_length: png.byteLength }, [{ type: "image", data, mimeType: "image/png" }]);
}

function gridTooLarge(format: "png" | "svg", bytes: number, maxBytes: number): ToolError {
  const error = imageTooLarge(format, bytes, maxBytes);
  return new ToolError(
    error.code,
    error.message,
    error.details,
    format === "svg"
      ? "Ask for format png (a fraction of the size), or send fewer entries per call."
      : "Ask for a smaller sub_width and sub_height, or send fewer entries per call.",
  );
}

/** Each form's arguments at their declared defaults, which a client that fills in defaults sends with either form. */
const FORM_DEFAULTS: Record<string, unknown> = { width: 400, height: 300, sub_width: 250, sub_height: 200 };

/**
 * An argument of the other form (width with smiles_list, legends with smiles, ...) is refused, naming the one to use,
 * unless it is that argument's declared default: clients that fill every default in send those with either form.
 */
function checkFormArguments(args: Args): void {
  const grid = args.smiles_list !== undefined;
  const foreign = (grid ? SINGLE_ONLY : GRID_ONLY).filter((k) => args[k] !== undefined && args[k] !== FORM_DEFAULTS[k]);
  if (foreign.length === 0) return;
  const hint = grid
    ? "For a grid, size each cell with sub_width/sub_height and caption entries with legends; width, height and legend belong to one molecule (smiles)."
    : "For one molecule, use width, height and legend; legends, mols_per_row, sub_width, sub_height and align_smarts belong to a grid (smiles_list).";
  throw new ToolError(
    "INVALID_ARGUMENTS",
    `${foreign.join(", ")} ${foreign.length === 1 ? "applies" : "apply"} only with ${grid ? "smiles" : "smiles_list"}`,
    { path: `/${foreign[0]}` },
    hint,
  );
}

/**
 * The canvas form, resolved on the main thread (ChemTool.resolveOnMain): the query runs on the canvas under
 * its lock-down (Canvas.query), and its rows become smiles_list (column smiles) and legends (column legend,
 * when there is one), at most GRID_MAX_ENTRIES of them; the worker then draws the grid as for smiles_list.
 */
async function resolveCanvasGrid(args: Args, ctx: ServiceContext, canvases: () => CanvasManager = getCanvasManager): Promise<Args> {
  if (args.canvas_id === undefined && args.sql === undefined && args.table === undefined) return args;
  const { canvas_id: canvasId, sql: givenSql, table, smiles_column: smilesColumn, where, legend_column: legendColumn, ...rest } = args;
  if (canvasId === undefined || (givenSql === undefined) === (table === undefined)) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      canvasId === undefined ? "sql and table need canvas_id" : "Give canvas_id with either sql or table (not both)",
      { path: canvasId === undefined ? "/canvas_id" : "/sql" },
      "Give canvas_id + table (with where to pick the rows), or canvas_id + sql, or smiles / smiles_list.",
    );
  }
  const canvas = await canvasFor(canvases(), canvasId, ctx);
  let sql = givenSql;
  if (table !== undefined) {
    // The table form: its rows that where keeps, in table order, SMILES and (with legend_column) a caption.
    if (!canvas.tables.has(table)) throw canvas.noTable(table);
    const meta = canvas.tables.get(table)!;
    const column = defaultSmilesColumn(canvas, table, smilesColumn);
    for (const [name, path] of [
      [column, "/smiles_column"],
      [legendColumn, "/legend_column"],
    ] as const) {
      if (name !== undefined && !meta.columns.some((c) => c.name === name)) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          `Table ${table} has no column ${name}`,
          { path, columns: meta.columns.map((c) => c.name) },
          "Name one of details.columns.",
        );
      }
    }
    if (where !== undefined) await countWhere(canvas, table, where, ctx.signal);
    sql =
      `SELECT CAST(${quoteIdent(column)} AS VARCHAR) AS smiles` +
      (legendColumn !== undefined ? `, CAST(${quoteIdent(legendColumn)} AS VARCHAR) AS legend` : "") +
      ` FROM ${quoteIdent(table)}${whereSql(where?.trim())} ORDER BY rowid LIMIT ${GRID_MAX_ENTRIES + 1}`;
  }
  const result = await canvas.query(sql!, { maxRows: GRID_MAX_ENTRIES + 1, maxBytes: MAX_RESPONSE_BYTES, signal: ctx.signal });
  const names = result.columns.map((c) => c.name);
  if (!names.includes("smiles")) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `The query's result has no column named smiles (it has ${names.join(", ") || "none"})`,
      { path: "/sql", columns: names },
      "Select the SMILES as smiles (e.g. SELECT canonical_smiles AS smiles, ...), and a caption as legend.",
    );
  }
  if (result.rows.length === 0)
    throw new ToolError(
      "INVALID_ARGUMENTS",
      table !== undefined
        ? `No row of ${table}${where !== undefined ? " that where keeps" : ""}: nothing to draw`
        : "The query returned no rows: nothing to draw",
      { path: table !== undefined ? "/where" : "/sql" },
      table !== undefined ? "Loosen where." : "Loosen the query's filters.",
    );
  if (table !== undefined && result.rows.length > GRID_MAX_ENTRIES) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `${where !== undefined ? "where keeps" : `${table} has`} more than ${GRID_MAX_ENTRIES} rows; a grid draws at most ${GRID_MAX_ENTRIES}`,
      { path: "/where", max_rows: GRID_MAX_ENTRIES },
      `Narrow where (e.g. add AND is_centroid, or a property range), or use sql with ORDER BY ... LIMIT ${GRID_MAX_ENTRIES}.`,
    );
  }
  if (result.rows.length > GRID_MAX_ENTRIES || result.truncated) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `The query returns more than ${GRID_MAX_ENTRIES} rows; a grid draws at most ${GRID_MAX_ENTRIES}`,
      { path: "/sql", max_rows: GRID_MAX_ENTRIES },
      `Add ORDER BY and LIMIT ${GRID_MAX_ENTRIES} (or fewer) to the query.`,
    );
  }
  const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v));
  const smilesList = result.rows.map((r) => text(r.smiles));
  const legends = names.includes("legend") ? result.rows.map((r) => clipText(text(r.legend), 200)) : undefined;
  return { ...rest, smiles_list: smilesList, ...(legends ? { legends } : {}) };
}

export const depictTool: ChemTool<Args, Answer<DepictResult> | Answer<GridResult>> = {
  kind: "chem",
  toolset: "chem",
  alsoIn: ["canvas", "medchem"],
  name: "depict",
  ui: { resourceUri: TABLE_APP_URI },
  title: "Draw a molecule (PNG or SVG)",
  description: "Draw molecules (RDKit 2D) as PNG or SVG: one, or a grid of up to 48 from smiles_list or a canvas (table or sql), optionally aligned on a core.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      canvas_id: canvasIdProperty(),
      sql: {
        type: "string",
        minLength: 1,
        maxLength: MAX_SQL_LENGTH,
        description: "Or a SELECT (columns smiles, legend).",
      },
      table: { type: "string", minLength: 1, maxLength: 63, description: "Or a table." },
      smiles_column: { type: "string", minLength: 1, maxLength: 63, description: "SMILES column." },
      where: { type: "string", minLength: 1, maxLength: MAX_WHERE_LENGTH, description: "SQL filter." },
      legend_column: { type: "string", minLength: 1, maxLength: 63, description: "Caption column." },
      smiles: smilesProperty(),
      smiles_list: {
        type: "array",
        minItems: 1,
        maxItems: GRID_MAX_ENTRIES,
        items: { type: "string", maxLength: SMILES_MAX_LENGTH },
        description: `Up to ${GRID_MAX_ENTRIES} molecules as one grid.`,
      },
      format: { type: "string", enum: ["png", "svg"], default: "png", description: "png image or svg text." },
      width: size("Width in pixels.", 400),
      height: size("Height in pixels.", 300),
      highlight_smarts: { type: "string", minLength: 1, maxLength: 10_000, description: "SMARTS to highlight." },
      legend: { type: "string", maxLength: 200, description: "Caption." },
      atom_indices: { type: "boolean", default: false, description: "Atom index labels." },
      stereo_annotation: { type: "boolean", default: false, description: "R/S and E/Z labels." },
      legends: {
        type: "array",
        maxItems: GRID_MAX_ENTRIES,
        items: { type: "string", maxLength: 200 },
        description: "Grid: a caption per entry.",
      },
      mols_per_row: {
        type: "integer",
        minimum: 1,
        maximum: GRID_MAX_PER_ROW,
        description: "Grid: cells per row.",
      },
      sub_width: cellSize("Grid: cell width.", 250),
      sub_height: cellSize("Grid: cell height.", 200),
      align_smarts: {
        type: "string",
        minLength: 1,
        maxLength: 10_000,
        description: "Grid: SMARTS of a core to orient alike.",
      },
    },
    oneOf: [{ required: ["smiles"] }, { required: ["smiles_list"] }, { required: ["canvas_id", "sql"] }, { required: ["canvas_id", "table"] }],
    dependentRequired: { smiles_column: ["table"], where: ["table"], legend_column: ["table"] },
    additionalProperties: false,
  },
  outputSchema: { type: "object", anyOf: [SINGLE_OUTPUT, GRID_OUTPUT] },
  errors: ["INVALID_SMILES", "INVALID_SMARTS", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND", "QUERY_REFUSED", "QUERY_TIMEOUT"],
  budgetMs: 30_000,
  resolveOnMain: (args, ctx) => resolveCanvasGrid(args, ctx),
  run(args, { rdkit }) {
    checkFormArguments(args);
    if (args.smiles_list !== undefined) return depictGrid(rdkit, args.smiles_list, args);
    const format = args.format ?? "png";
    const width = args.width ?? 400;
    const height = args.height ?? 300;
    return withMol(
      rdkit,
      args.smiles ?? "",
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
          // SVG is text: each surface (the structured result, the text block) must stay within what a host takes.
          const bytes = jsonStringBytes(drawing.svg);
          const svgBudget = MAX_ANSWER_BYTES - 1_024;
          if (bytes > svgBudget) throw imageTooLarge("svg", bytes, svgBudget);
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
