/**
 * What a canvas table is: its column types, cells and metadata, and the rules every writer applies to them
 * (a table name a canvas accepts, a cell checked against its declared type, the byte estimate the caps count
 * in, how two column types widen). No DuckDB here: the rooms that write and read tables use these.
 */

export type ColumnType = "BIGINT" | "INTEGER" | "DOUBLE" | "VARCHAR" | "BOOLEAN";
/** What a computed column (canvas_annotate) may hold: a staged type, or a list of names. */
export type AnnotationType = Exclude<ColumnType, "BIGINT"> | "VARCHAR[]";

export interface ColumnSpec {
  name: string;
  type: ColumnType | AnnotationType;
  description: string;
}

export type CellValue = string | number | boolean | null;

/** What a staged table holds and where it came from (chembl_dataframe_describe shows it). */
export interface TableMeta {
  name: string;
  columns: ColumnSpec[];
  row_count: number;
  staged_at: string;
  provenance: Record<string, unknown>;
  /** Estimated data bytes (see estimateBytes), counted against the canvas's byte cap. */
  bytes: number;
}

/** A table name a canvas accepts (ours: bioactivities, bioactivities_null_potency). */
const TABLE_NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;

/** A name no query could read (upper case, punctuation, too long) is a bug of the tool that made it. */
export function checkTableName(name: string): void {
  if (!TABLE_NAME_RE.test(name)) throw new Error(`bad table name ${name}`);
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `CREATE TABLE name (columns)`, every name quoted. */
export function createTableSql(name: string, columns: readonly ColumnSpec[], temporary = false): string {
  return `CREATE ${temporary ? "TEMP " : ""}TABLE ${quoteIdent(name)} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ")})`;
}

/**
 * The data bytes rows hold, estimated the same way for every table: a string its UTF-8 length plus 4, a
 * number 8, a boolean 1, a NULL 1. Not DuckDB's own footprint (it compresses, indexes and pads), but a
 * stable measure the byte cap counts in.
 */
export function estimateBytes(rows: readonly CellValue[][]): number {
  let bytes = 0;
  for (const row of rows) for (const v of row) bytes += typeof v === "string" ? Buffer.byteLength(v, "utf8") + 4 : typeof v === "number" ? 8 : 1;
  return bytes;
}

/** The narrowest type holding values of both types (numbers widen to DOUBLE, anything else mixed to VARCHAR). */
export function widenType(a: ColumnSpec["type"], b: ColumnSpec["type"]): ColumnSpec["type"] {
  if (a === b) return a;
  const rank: Partial<Record<ColumnSpec["type"], number>> = { INTEGER: 0, BIGINT: 1, DOUBLE: 2 };
  const ra = rank[a];
  const rb = rank[b];
  if (ra !== undefined && rb !== undefined) return ra >= rb ? a : b;
  return "VARCHAR";
}

/** A value as a column of (possibly widened) type `type` takes it: a number or boolean in a VARCHAR column becomes its text. */
export function coerceTo(type: ColumnSpec["type"], v: CellValue): CellValue {
  if (v === null) return null;
  if (type === "VARCHAR" && typeof v !== "string") return String(v);
  return v;
}

/** A value as its declared column type takes it; a mismatch is a bug upstream of the canvas, never coerced. */
export function checkCell(column: ColumnSpec, v: CellValue): CellValue {
  if (v === null) return null;
  const ok =
    column.type === "VARCHAR"
      ? typeof v === "string"
      : column.type === "BOOLEAN"
        ? typeof v === "boolean"
        : column.type === "DOUBLE"
          ? typeof v === "number"
          : typeof v === "number" && Number.isInteger(v);
  if (!ok)
    throw new TypeError(
      `column ${column.name} (${column.type}): ${JSON.stringify(v)} is not ${column.type === "BIGINT" || column.type === "INTEGER" ? "an integer" : `a ${column.type}`}`,
    );
  return v;
}
