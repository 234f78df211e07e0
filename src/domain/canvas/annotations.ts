/**
 * Computed columns on canvas tables (canvas_annotate): which columns of a table were computed, with which
 * definition, and which rows already hold their values; getting a table ready for new columns and writing the
 * values by row key. The chemistry is the tool's; this room only keeps the columns and their bookkeeping.
 */
import { randomBytes } from "node:crypto";
import { ToolError } from "../errors.js";
import type { Canvas } from "./canvas.js";
import { appendWithAppender } from "./rows-in.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { whereSql } from "./row-filter.js";
import { prepareGuarded } from "./sql-guard.js";
import { createTableSql, quoteIdent, type AnnotationType, type CellValue, type ColumnSpec, type TableMeta } from "./tables.js";

/** The bookkeeping column canvas_annotate adds to a table it annotates: each row's number, 0-based, the key its values are written by. */
export const ROW_KEY_COLUMN = "_row";

/** A computed column: its name, type, description and `definition` (the kind and its parameters, as JSON). */
export interface AnnotationColumn {
  name: string;
  type: AnnotationType;
  description: string;
  definition: string;
}

/** What is left to annotate: each pending row's key and SMILES text (null when the cell is NULL), and the table's row count. */
export interface AnnotationWork {
  pending: Array<{ row: number; smiles: string | null }>;
  total: number;
}

type ColumnState = { definition: string; done: Uint8Array };

/**
 * The book as a file-backed canvas's sidecar keeps it (persist.ts): per table, per computed column, its definition
 * and the rows done as [start, end) ranges of row keys (a column computed whole is one range, however many rows).
 */
export type AnnotationSnapshot = Record<string, Record<string, { definition: string; done: Array<[number, number]> }>>;

function toRanges(done: Uint8Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= done.length; i++) {
    const on = i < done.length && done[i] === 1;
    if (on && start < 0) start = i;
    else if (!on && start >= 0) {
      out.push([start, i]);
      start = -1;
    }
  }
  return out;
}

function fromRanges(ranges: ReadonlyArray<readonly [number, number]>): Uint8Array {
  const top = ranges.reduce((n, [, end]) => Math.max(n, end), 0);
  const done = new Uint8Array(top);
  for (const [start, end] of ranges) done.fill(1, start, end);
  return done;
}

/**
 * Per table of one canvas: each computed column's definition and which rows (by ROW_KEY_COLUMN) hold its value.
 * Kept beside the DuckDB instance it describes; re-staging or dropping a table forgets it.
 */
export class AnnotationBook {
  private readonly tables = new Map<string, Map<string, ColumnState>>();

  /** The columns computed on `table` (an import appending to it must not write into them). */
  columns(table: string): string[] {
    return [...(this.tables.get(table)?.keys() ?? [])];
  }

  forget(table: string): void {
    this.tables.delete(table);
  }

  state(table: string): Map<string, ColumnState> | undefined {
    return this.tables.get(table);
  }

  keep(table: string, state: Map<string, ColumnState>): void {
    this.tables.set(table, state);
  }

  /** What a sidecar keeps of the book (see AnnotationSnapshot). */
  snapshot(): AnnotationSnapshot {
    const out: AnnotationSnapshot = {};
    for (const [table, columns] of this.tables) {
      const entry: AnnotationSnapshot[string] = {};
      for (const [name, state] of columns) entry[name] = { definition: state.definition, done: toRanges(state.done) };
      out[table] = entry;
    }
    return out;
  }

  /** Takes back one table's columns from a snapshot (a reopened canvas; the caller has checked them against DuckDB). */
  restore(table: string, columns: AnnotationSnapshot[string]): void {
    const state = new Map<string, ColumnState>();
    for (const [name, c] of Object.entries(columns)) state.set(name, { definition: c.definition, done: fromRanges(c.done) });
    if (state.size > 0) this.tables.set(table, state);
  }
}

/** The table's metadata and annotation state, with its SMILES column checked (INVALID_ARGUMENTS otherwise). */
function checkSource(canvas: Canvas, table: string, smilesColumn: string): { meta: TableMeta; state: Map<string, ColumnState> } {
  const meta = canvas.tables.get(table);
  if (!meta) throw canvas.noTable(table);
  const state = canvas.annotations.state(table) ?? new Map<string, ColumnState>();
  const source = meta.columns.find((c) => c.name === smilesColumn);
  if (!source || source.type !== "VARCHAR" || state.has(smilesColumn) || smilesColumn === ROW_KEY_COLUMN) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      source ? `Column ${smilesColumn} of ${table} holds no SMILES text` : `Table ${table} has no column ${smilesColumn}`,
      { path: "/smiles_column", columns: meta.columns.filter((c) => c.type === "VARCHAR" && !state.has(c.name)).map((c) => c.name) },
      "Name the table's SMILES column in smiles_column (details.columns lists its text columns).",
    );
  }
  return { meta, state };
}

/** Adds ROW_KEY_COLUMN the first time, and keys to rows staged or appended since (above every key given so far). */
async function ensureRowKeys(connection: DuckDBConnection, meta: TableMeta, table: string): Promise<void> {
  const t = quoteIdent(table);
  const key = quoteIdent(ROW_KEY_COLUMN);
  if (!meta.columns.some((c) => c.name === ROW_KEY_COLUMN)) {
    await connection.run(`ALTER TABLE ${t} ADD COLUMN ${key} BIGINT`);
    meta.columns.push({
      name: ROW_KEY_COLUMN,
      type: "BIGINT",
      description: "The row's number (0-based): the key computed values and derived tables refer to it by.",
    });
  }
  await connection.run(`UPDATE ${t} SET ${key} = rowid + (SELECT coalesce(max(${key}), -1) + 1 FROM ${t}) WHERE ${key} IS NULL`);
}

/**
 * Each row's key and SMILES text (null when NULL), in key order, of the rows `where` keeps (a condition
 * countWhere has run): through the query locks (prepareGuarded), since the condition is the caller's text.
 */
async function readKeyedRows(
  canvas: Canvas,
  connection: DuckDBConnection,
  table: string,
  smilesColumn: string,
  where: string | undefined,
): Promise<Array<{ row: number; smiles: string | null }>> {
  const sql = `SELECT ${quoteIdent(ROW_KEY_COLUMN)}, CAST(${quoteIdent(smilesColumn)} AS VARCHAR) FROM ${quoteIdent(table)}${whereSql(where)} ORDER BY 1`;
  const prepared = await prepareGuarded(canvas.duckdb, connection, sql, [...canvas.tables.keys()], canvas.catalog);
  try {
    const read = await prepared.runAndReadAll();
    return read.getRows().map(([key, smiles]) => ({ row: Number(key), smiles: typeof smiles === "string" ? smiles : null }));
  } finally {
    prepared.destroySync();
  }
}

/**
 * Gets a table ready for computed columns (canvas_annotate): checks the table, its SMILES column and the
 * new columns' names (a name already taken by a staged column, or by a computed column of another
 * definition, is an INVALID_ARGUMENTS), adds the missing columns (and ROW_KEY_COLUMN the first time), and
 * answers the rows that do not yet hold every requested column, in row order: of the rows `where` keeps, when
 * given (a condition countWhere has run; `total` then counts those rows).
 */
export function prepareAnnotation(
  canvas: Canvas,
  table: string,
  smilesColumn: string,
  columns: readonly AnnotationColumn[],
  where?: string,
): Promise<AnnotationWork> {
  return canvas.write(async () => {
    const { meta, state } = checkSource(canvas, table, smilesColumn);
    for (const column of columns) {
      const taken = meta.columns.find((c) => c.name === column.name);
      const known = state.get(column.name);
      if (column.name === ROW_KEY_COLUMN || (taken && !known) || (known && known.definition !== column.definition)) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          known
            ? `Column ${column.name} of ${table} was computed with another definition (${known.definition})`
            : `Table ${table} already has a column named ${column.name}`,
          { path: "/columns", column: column.name, ...(known ? { definition: known.definition } : {}) },
          "Give this column another name with `as` (parameterised and single-valued kinds take one).",
        );
      }
    }
    const connection = await canvas.instance.connect();
    try {
      const t = quoteIdent(table);
      await ensureRowKeys(connection, meta, table);
      for (const column of columns) {
        if (state.has(column.name)) continue;
        await connection.run(`ALTER TABLE ${t} ADD COLUMN ${quoteIdent(column.name)} ${column.type}`);
        meta.columns.push({ name: column.name, type: column.type, description: column.description });
        state.set(column.name, { definition: column.definition, done: new Uint8Array(0) });
      }
      canvas.annotations.keep(table, state);
      const rows = await readKeyedRows(canvas, connection, table, smilesColumn, where);
      if (where === undefined) meta.row_count = rows.length;
      const marks = columns.map((c) => state.get(c.name)!.done);
      const pending = rows.filter(({ row }) => !marks.every((done) => row < done.length && done[row] === 1));
      return { pending, total: rows.length };
    } finally {
      connection.closeSync();
    }
  });
}

/**
 * The rows a set tool reads from a table (each row's key and SMILES, of the rows `where` keeps, a condition
 * countWhere has run), with ROW_KEY_COLUMN added the first time: the key a derived table (pairs, R-groups,
 * stereoisomers) refers to its source rows by.
 */
export function selectRows(canvas: Canvas, table: string, smilesColumn: string, where?: string): Promise<Array<{ row: number; smiles: string | null }>> {
  return canvas.write(async () => {
    const { meta } = checkSource(canvas, table, smilesColumn);
    const connection = await canvas.instance.connect();
    try {
      await ensureRowKeys(connection, meta, table);
      return await readKeyedRows(canvas, connection, table, smilesColumn, where);
    } finally {
      connection.closeSync();
    }
  });
}

/**
 * Writes computed values (row-major, one value per column, lists for VARCHAR[] columns) by row key, and
 * records those rows as done for these columns.
 */
export function writeAnnotation(
  canvas: Canvas,
  table: string,
  columns: readonly AnnotationColumn[],
  rows: readonly number[],
  values: readonly unknown[][],
  signal?: AbortSignal,
): Promise<void> {
  return canvas.write(async () => {
    const state = canvas.annotations.state(table);
    if (!state || !canvas.tables.has(table)) throw new Error(`table ${table} is not being annotated`);
    if (rows.length === 0) return;
    const connection = await canvas.instance.connect();
    const staging = `_annotate_${randomBytes(6).toString("hex")}`;
    try {
      // Lists travel as JSON text and are cast in the UPDATE (the appender takes scalars).
      const specs: ColumnSpec[] = [
        { name: "k", type: "BIGINT", description: "" },
        ...columns.map((c, i): ColumnSpec => ({ name: `v${i}`, type: c.type === "VARCHAR[]" ? "VARCHAR" : c.type, description: "" })),
      ];
      const cells: CellValue[][] = rows.map((row, r) => [
        row,
        ...columns.map((c, i) => {
          const v = values[r]![i];
          if (v === null || v === undefined) return null;
          return c.type === "VARCHAR[]" ? JSON.stringify(v) : (v as CellValue);
        }),
      ]);
      await connection.run(createTableSql(staging, specs, true));
      await appendWithAppender(canvas, connection, staging, specs, cells, signal);
      const sets = columns
        .map((c, i) => `${quoteIdent(c.name)} = ${c.type === "VARCHAR[]" ? `CAST(CAST(s.v${i} AS JSON) AS VARCHAR[])` : `s.v${i}`}`)
        .join(", ");
      await connection.run(
        `UPDATE ${quoteIdent(table)} SET ${sets} FROM ${quoteIdent(staging)} s WHERE ${quoteIdent(table)}.${quoteIdent(ROW_KEY_COLUMN)} = s.k`,
      );
      const top = Math.max(...rows) + 1;
      for (const column of columns) {
        const entry = state.get(column.name)!;
        if (entry.done.length < top) {
          const grown = new Uint8Array(Math.max(top, entry.done.length * 2));
          grown.set(entry.done);
          entry.done = grown;
        }
        for (const row of rows) entry.done[row] = 1;
      }
    } finally {
      await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(staging)}`).catch(() => undefined);
      connection.closeSync();
    }
  });
}

/**
 * Takes computed columns back off a table (a set tool whose computation failed after prepareAnnotation added
 * them), so a failed call leaves the table as it was.
 */
export function dropAnnotationColumns(canvas: Canvas, table: string, names: readonly string[]): Promise<void> {
  return canvas.write(async () => {
    const meta = canvas.tables.get(table);
    const state = canvas.annotations.state(table);
    if (!meta || !state || names.length === 0) return;
    const connection = await canvas.instance.connect();
    try {
      for (const name of names) {
        if (!state.has(name)) continue;
        await connection.run(`ALTER TABLE ${quoteIdent(table)} DROP COLUMN ${quoteIdent(name)}`);
        state.delete(name);
        meta.columns = meta.columns.filter((c) => c.name !== name);
      }
    } finally {
      connection.closeSync();
    }
  });
}
