/**
 * Putting rows into a DuckDB table: the two ways, and which one a chunk takes. Every value is checked against its
 * column's declared type (tables.ts checkCell) and the event loop gets a turn between chunks, so staging 50,000 rows
 * never holds it for seconds. Callers hold the canvas's write turn (canvas.ts `write`).
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBType } from "@duckdb/node-api";
import type { DuckDbModule } from "./duckdb.js";
import type { CanvasHost } from "./settings.js";
import { checkCell, quoteIdent, type CellValue, type ColumnSpec } from "./tables.js";

/** What the writers need of the canvas they write on. */
export interface RowsTarget {
  readonly id: string;
  readonly duckdb: DuckDbModule;
  readonly host: CanvasHost;
}

/** Rows through DuckDB's appender, a data chunk at a time (column-major, filled on the main thread). */
export async function appendWithAppender(
  target: RowsTarget,
  connection: DuckDBConnection,
  table: string,
  columns: readonly ColumnSpec[],
  rows: readonly CellValue[][],
  signal?: AbortSignal,
): Promise<void> {
  const d = target.duckdb;
  // A VARCHAR[] column is an annotation's (pains_names): rows appended to an annotated table carry NULL there
  // until canvas_annotate computes them.
  const types: DuckDBType[] = columns.map((c) =>
    c.type === "VARCHAR[]" ? d.LIST(d.VARCHAR) : { BIGINT: d.BIGINT, INTEGER: d.INTEGER, DOUBLE: d.DOUBLE, VARCHAR: d.VARCHAR, BOOLEAN: d.BOOLEAN }[c.type],
  );
  // Column-major once (the chunks are filled column by column), checking every value against its declared type.
  const data: CellValue[][] = columns.map(() => new Array<CellValue>(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    for (let c = 0; c < columns.length; c++) data[c]![r] = checkCell(columns[c]!, row[c] ?? null);
  }
  const appender = await connection.createAppender(table);
  try {
    const step = target.host.appendChunkRows;
    for (let start = 0; start < rows.length; start += step) {
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
      const end = Math.min(rows.length, start + step);
      target.host.onChunk?.(end - start, "appender");
      const chunk = d.DuckDBDataChunk.create(types, end - start);
      chunk.setColumns(
        data.map((values, c) => {
          const part = values.slice(start, end);
          if (columns[c]!.type === "BIGINT")
            for (let i = 0; i < part.length; i++) if (part[i] !== null) part[i] = BigInt(part[i] as number) as unknown as number;
          return part as never;
        }),
      );
      appender.appendDataChunk(chunk);
      // Yield between chunks: a 50,000-row stage must not hold the event loop for seconds.
      await new Promise<void>((r) => setImmediate(r));
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

/** insertInBulk's statement: each column a JSON array in $1, unnested back into rows. */
export function bulkInsertSql(table: string, columns: readonly ColumnSpec[]): string {
  const spec = JSON.stringify(Object.fromEntries(columns.map((c, i) => [`c${i}`, `${c.type}[]`]))).replace(/'/g, "''");
  return `INSERT INTO ${quoteIdent(table)} SELECT ${columns.map((_, i) => `unnest(j.c${i})`).join(", ")} FROM (SELECT from_json($1::VARCHAR, '${spec}') AS j)`;
}

/**
 * Appends rows like appendWithAppender, but as columnar bulk inserts that DuckDB runs off the main thread: at most
 * appendChunkRows rows a statement, each column one JSON array, unnested back into rows by DuckDB
 * (`INSERT ... SELECT unnest(j.c0), unnest(j.c1), ... FROM from_json(...)`), so the event loop only checks
 * the values and serialises them while DuckDB parses, converts and stores them on its own threads (the
 * appender does all of that on the main thread). A part JSON cannot carry exactly (-0, NaN, Infinity) or
 * that DuckDB refuses (a lone UTF-16 surrogate) goes through the appender instead.
 */
export async function insertInBulk(
  target: RowsTarget,
  connection: DuckDBConnection,
  table: string,
  columns: readonly ColumnSpec[],
  rows: readonly CellValue[][],
  signal?: AbortSignal,
  cache: { statement?: DuckDBPreparedStatement } = {},
): Promise<void> {
  const step = target.host.appendChunkRows;
  for (let start = 0; start < rows.length; start += step) {
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    const part = rows.slice(start, Math.min(rows.length, start + step));
    // Column-major, checking every value against its declared type (as appendWithAppender does).
    const data: Record<string, CellValue[]> = {};
    // JSON has no -0, NaN or Infinity: a part holding one goes through the appender.
    let exact = true;
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c]!;
      const values = new Array<CellValue>(part.length);
      for (let r = 0; r < part.length; r++) {
        const v = checkCell(column, part[r]![c] ?? null);
        if (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))) exact = false;
        values[r] = v;
      }
      data[`c${c}`] = values;
    }
    if (!exact) {
      await appendWithAppender(target, connection, table, columns, part, signal);
      continue;
    }
    target.host.onChunk?.(part.length, "bulk");
    try {
      cache.statement ??= await connection.prepare(bulkInsertSql(table, columns));
      cache.statement.bindVarchar(1, JSON.stringify(data));
      await cache.statement.run();
    } catch (e) {
      if (signal?.aborted) throw e;
      target.host.log(`canvas ${target.id}: a bulk insert was refused (${(e as Error).message.split("\n")[0]!.slice(0, 160)}); appending those rows instead`);
      await appendWithAppender(target, connection, table, columns, part, signal);
    }
  }
}
