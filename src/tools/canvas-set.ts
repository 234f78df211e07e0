/**
 * The canvas form of the set tools (pick_diverse, matched_pairs, rgroup_decompose, find_mcs,
 * enumerate_stereoisomers, cluster_molecules, depict, and the per-molecule tools that write columns): the
 * arguments that name a table's molecules (canvas_id, table, smiles_column, where), reading those rows by
 * key, and writing a result that is not one value per row as a new table that refers to its source rows by
 * their `_row` key. Each tool computes with its list form's own code; this file only moves rows.
 */
import { ToolError } from "../domain/errors.js";
import type { JsonSchema, ProgressReporter, ServiceContext, ToolAnnotations } from "../contract/tool.js";
import type { CanvasManager } from "../domain/canvas/manager.js";
import type { Canvas } from "../domain/canvas/canvas.js";
import { ROW_KEY_COLUMN, type AnnotationColumn } from "../domain/canvas/annotations.js";
import { countWhere, MAX_WHERE_LENGTH, whereSql } from "../domain/canvas/row-filter.js";
import { quoteIdent, type CellValue, type ColumnSpec } from "../domain/canvas/tables.js";
import { canvasFor, canvasIdProperty, defaultSmilesColumn } from "./canvas-common.js";

export interface CanvasSetArgs {
  canvas_id?: string;
  table?: string;
  smiles_column?: string;
  where?: string;
}

const NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * The schema properties of the canvas form. Their meaning is said once in the server's instructions (CANVAS_INSTRUCTIONS),
 * so each tool lists them with a few words: the model-facing tool list has a byte budget (MODEL_FACING_BUDGET_BYTES).
 */
export function canvasSetProperties(): Record<string, JsonSchema> {
  return {
    canvas_id: { ...canvasIdProperty(), description: "Or a canvas." },
    table: { type: "string", minLength: 1, maxLength: 63, description: "Its table." },
    smiles_column: { type: "string", minLength: 1, maxLength: 63, description: "SMILES column." },
    where: { type: "string", minLength: 1, maxLength: MAX_WHERE_LENGTH, description: "SQL filter." },
  };
}

/** The dependentRequired rules of the canvas form (a schema-only rule: the server also enforces them). */
export const CANVAS_SET_DEPENDENCIES: Record<string, string[]> = {
  canvas_id: ["table"],
  table: ["canvas_id"],
  smiles_column: ["canvas_id"],
  where: ["canvas_id"],
};

/** The `into` argument: the name of the table a set tool writes. */
export function intoProperty(): JsonSchema {
  return {
    type: "string",
    minLength: 1,
    maxLength: 63,
    pattern: "^[a-z][a-z0-9_]*$",
    description: "New table.",
  };
}

/** A row of a table as a set tool reads it: its `_row` key and its SMILES (null when the cell is NULL). */
interface KeyedRow {
  row: number;
  smiles: string | null;
}

export interface CanvasSet {
  canvas: Canvas;
  table: string;
  smilesColumn: string;
  where?: string;
  /** Every row `where` keeps, in key order. */
  rows: KeyedRow[];
  /** Those with SMILES text (the ones a tool computes on). */
  runnable: Array<{ row: number; smiles: string }>;
}

/**
 * The rows a canvas form works on: the caller's canvas (CANVAS_NOT_FOUND for another owner's), the table
 * (INVALID_ARGUMENTS when missing), its SMILES column, and the rows `where` keeps (run once as a count first,
 * so a condition that is not one is refused before anything is written). `maxRows` bounds the rows with
 * SMILES, as the list form bounds smiles_list.
 */
export async function openCanvasSet(manager: CanvasManager, args: CanvasSetArgs, ctx: ServiceContext, maxRows: number, tool: string): Promise<CanvasSet> {
  const canvas = await canvasFor(manager, args.canvas_id, ctx);
  const table = args.table;
  if (table === undefined)
    throw new ToolError("INVALID_ARGUMENTS", "canvas_id needs table", { path: "/table" }, "Name the table (chembl_dataframe_describe lists them).");
  if (!canvas.tables.has(table)) throw canvas.noTable(table);
  const smilesColumn = defaultSmilesColumn(canvas, table, args.smiles_column);
  if (args.where !== undefined) await countWhere(canvas, table, args.where, ctx.signal);
  const rows = await canvas.selectRows(table, smilesColumn, args.where?.trim());
  const runnable = rows.filter((r): r is { row: number; smiles: string } => r.smiles !== null && r.smiles.trim() !== "");
  if (runnable.length > maxRows) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `${args.where !== undefined ? "where keeps" : `${table} has`} ${runnable.length} molecules; ${tool} takes at most ${maxRows}`,
      { path: args.where !== undefined ? "/where" : "/table", molecules: runnable.length, max_molecules: maxRows },
      `Narrow the rows with where (e.g. a cluster: cluster_id = 0, or is_centroid; or a property range) to at most ${maxRows}.`,
    );
  }
  if (runnable.length === 0) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `No row of ${table}${args.where !== undefined ? " that where keeps" : ""} has a SMILES in ${smilesColumn}`,
      { path: args.where !== undefined ? "/where" : "/smiles_column", rows: rows.length },
      "Check where and smiles_column (chembl_dataframe_describe lists the columns).",
    );
  }
  return { canvas, table, smilesColumn, ...(args.where !== undefined ? { where: args.where.trim() } : {}), rows, runnable };
}

/** The fields every canvas-form answer starts with. */
export function canvasSetHeader(set: CanvasSet): Record<string, unknown> {
  return {
    canvas_id: set.canvas.id,
    table: set.table,
    smiles_column: set.smilesColumn,
    ...(set.where !== undefined ? { where: set.where } : {}),
    rows_read: set.rows.length,
  };
}

/** Schema of canvasSetHeader's fields. */
export const CANVAS_SET_HEADER_SCHEMA: Record<string, JsonSchema> = {
  canvas_id: { type: "string" },
  table: { type: "string", description: "The table read." },
  smiles_column: { type: "string" },
  where: { type: "string", description: "The condition the rows were read with." },
  rows_read: { type: "integer", minimum: 0, description: "Rows read (those where keeps); rows without SMILES are left out of the computation." },
};

/** A tool that writes columns or tables on a canvas when given one: not read-only, the same call twice leaves the same canvas. */
export const CANVAS_WRITE_ANNOTATIONS: ToolAnnotations = { readOnlyHint: false, idempotentHint: true, openWorldHint: false, destructiveHint: false };

/** Rows of a derived table an answer shows (the table holds them all). */
const SAMPLE_ROWS = 3;

/** The first rows of a derived table as objects, for the answer's `sample`. */
export function sampleRows(columns: readonly ColumnSpec[], cells: readonly CellValue[][]): Array<Record<string, CellValue>> {
  return cells.slice(0, SAMPLE_ROWS).map((row) => Object.fromEntries(columns.map((c, i) => [c.name, row[i] ?? null])));
}

/** Provenance key naming the tool that wrote a derived table (a table it may replace on the next call). */
const DERIVED_BY = "derived_by";

/**
 * Writes a set tool's result table: `into` or `<table>_<suffix>`, with `_row`-keyed references to the source
 * rows. A name that is an SQL keyword, the source table itself, or a table this tool did not make is refused
 * (nothing written); a table this tool made before is replaced whole.
 */
export async function writeDerivedTable(
  manager: CanvasManager,
  set: CanvasSet,
  opts: { tool: string; suffix: string; into?: string; columns: ColumnSpec[]; rows: CellValue[][]; provenance: Record<string, unknown>; signal?: AbortSignal },
): Promise<string> {
  const name = opts.into ?? `${set.table}_${opts.suffix}`.slice(0, 63);
  if (!NAME_RE.test(name)) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Table name ${name} is not allowed`,
      { path: "/into" },
      "Use lower-case letters, digits and _, starting with a letter (at most 63).",
    );
  }
  await manager.refuseKeyword(name, "/into");
  const existing = set.canvas.tables.get(name);
  if (name === set.table || (existing && existing.provenance[DERIVED_BY] !== opts.tool)) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      name === set.table ? `into names the table being read (${name})` : `Table ${name} exists and ${opts.tool} did not make it`,
      { path: "/into", table: name },
      `Name a new table in into (e.g. ${set.table}_${opts.suffix}_2), or drop ${name} first (chembl_dataframe_drop).`,
    );
  }
  await set.canvas.stage(
    name,
    opts.columns,
    opts.rows,
    { source: "canvas", [DERIVED_BY]: opts.tool, derived_from: set.table, ...(set.where !== undefined ? { where: set.where } : {}), ...opts.provenance },
    opts.signal,
  );
  return name;
}

/** A column of a derived table that refers to a source row by its key. */
export function rowRefColumn(name: string, what: string): ColumnSpec {
  return { name, type: "BIGINT", description: `${what}: its ${ROW_KEY_COLUMN} in the source table (JOIN on it).` };
}

/** What writeSetColumns answers: the rows written, or that the table already held these columns. */
export interface SetColumnsOutcome {
  set: CanvasSet;
  /** Rows written by this call (0 when every row `where` keeps already held these columns, with this definition). */
  written: number;
  /** The computed cells by row key (empty when nothing was computed). */
  cells: Map<number, CellValue[]>;
}

/**
 * A whole-set computation (a clustering, a pick) written as computed columns of the rows `where` keeps: the rows
 * read and bounded first, the columns added (prepareAnnotation: a name held with another definition is
 * refused, `conflict` words that refusal for the tool), `compute` run on the rows with SMILES, its cells written
 * by row key (rows it leaves out get NULL). A computation that fails takes the columns it added back off. The
 * set is computed whole: rows added after it are not computed one by one (INVALID_ARGUMENTS with a hint).
 */
export async function writeSetColumns(
  manager: CanvasManager,
  args: CanvasSetArgs,
  ctx: ServiceContext,
  opts: {
    tool: string;
    columns: AnnotationColumn[];
    maxRows: number;
    conflict: (e: ToolError) => ToolError;
    compute: (set: CanvasSet) => Promise<Map<number, CellValue[]>>;
  },
): Promise<SetColumnsOutcome> {
  const set = await openCanvasSet(manager, args, ctx, opts.maxRows, opts.tool);
  const before = new Set(set.canvas.computedColumns(set.table));
  const work = await set.canvas.prepareAnnotation(set.table, set.smilesColumn, opts.columns, set.where).catch((e: unknown) => {
    throw e instanceof ToolError && e.details.path === "/columns" ? opts.conflict(e) : e;
  });
  if (work.pending.length === 0) return { set, written: 0, cells: new Map() };
  if (work.pending.length < work.total) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `${work.total - work.pending.length} rows of ${set.table} were computed by ${opts.tool} before rows were added; its result covers the whole set at once`,
      { path: "/table", rows_total: work.total, rows_pending: work.pending.length },
      "Stage the rows again as a new table (chembl_dataframe_query, or canvas_import) and run it on that table.",
    );
  }
  const fresh = opts.columns.map((c) => c.name).filter((name) => !before.has(name));
  try {
    const cells = await opts.compute(set);
    const rows = work.pending.map((p) => p.row);
    const empty = opts.columns.map(() => null);
    await set.canvas.writeAnnotation(
      set.table,
      opts.columns,
      rows,
      rows.map((row) => cells.get(row) ?? empty),
      ctx.signal,
    );
    return { set, written: rows.length, cells };
  } catch (e) {
    await set.canvas.dropAnnotationColumns(set.table, fresh).catch(() => undefined);
    throw e;
  }
}

/**
 * A numeric column's values by row key (values for matched_pairs' deltas, say), of the rows `set` read: NULL or
 * text that is not a number is undefined. INVALID_ARGUMENTS when the table has no such column.
 */
export async function readNumbers(set: CanvasSet, column: string, path: string, signal?: AbortSignal): Promise<Map<number, number>> {
  const meta = set.canvas.tables.get(set.table);
  if (!meta?.columns.some((c) => c.name === column)) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `Table ${set.table} has no column ${column}`,
      { path, columns: meta?.columns.filter((c) => c.type === "DOUBLE" || c.type === "BIGINT" || c.type === "INTEGER").map((c) => c.name) ?? [] },
      "Name a numeric column (details.columns lists them).",
    );
  }
  const sql = `SELECT ${quoteIdent(ROW_KEY_COLUMN)} AS k, TRY_CAST(${quoteIdent(column)} AS DOUBLE) AS v FROM ${quoteIdent(set.table)}${whereSql(set.where)}`;
  const result = await set.canvas.query(sql, { maxRows: set.rows.length + 1, maxBytes: 64 * 1024 * 1024, signal });
  const values = new Map<number, number>();
  for (const r of result.rows) if (typeof r.v === "number" && Number.isFinite(r.v)) values.set(Number(r.k), r.v);
  return values;
}

/**
 * A canvas form's progress: the worker's reports (ChemRunner.run's onProgress) passed on to the client on a scale
 * one step longer, the last step being the canvas write that `done` reports.
 */
export function stepProgress(ctx: ServiceContext): { onProgress: ProgressReporter; done: (message: string) => void } {
  let steps = 1;
  return {
    onProgress: (value, total, message) => {
      if (total !== undefined) steps = total + 1;
      ctx.progress(value, steps, message);
    },
    done: (message) => ctx.progress(steps, steps, message),
  };
}
