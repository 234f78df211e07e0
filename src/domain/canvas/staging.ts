/**
 * Writing whole tables onto a canvas: staging a table, appending rows to one, staging one part by part (a spill's
 * pages as they arrive), dropping one. Every write runs in the canvas's write turn (canvas.ts `write`) and goes
 * through a temporary table swapped in by one transaction, so a failed or cancelled write leaves the earlier table.
 * (firstRowsByKey, a read, sits here beside the append it prepares.)
 */
import { randomBytes } from "node:crypto";
import type { DuckDBConnection, DuckDBPreparedStatement } from "@duckdb/node-api";
import { ToolError } from "../errors.js";
import type { Canvas } from "./canvas.js";
import { appendWithAppender, bulkInsertSql, insertInBulk } from "./rows-in.js";
import { checkTableName, coerceTo, createTableSql, estimateBytes, quoteIdent, widenType, type CellValue, type ColumnSpec, type TableMeta } from "./tables.js";

/** A table being staged part by part (Canvas.openStage). */
export interface StageWriter {
  /** Rows appended so far. */
  rows(): number;
  /** Makes the temporary table and its insert ready (append does it when not done yet). */
  prepare(): Promise<void>;
  /** Appends rows (in the columns given to openStage), in chunks of at most appendChunkRows. */
  append(rows: readonly CellValue[][]): Promise<void>;
  /** Swaps the table in (replacing one of the same name) and records it with this provenance. */
  commit(provenance: Record<string, unknown>): Promise<TableMeta>;
  /** Drops what was staged; the earlier table stays. A no-op once committed or failed. */
  abort(): Promise<void>;
}

type Finish = (meta: Pick<TableMeta, "name" | "columns" | "staged_at">) => TableMeta;

const stagingName = (): string => `_staging_${randomBytes(6).toString("hex")}`;

/**
 * Stages `rows` as table `name` with the given explicit column types: into a new temporary table first,
 * then swapped in (drop the old, rename the new) in one transaction. A failure or a cancellation before
 * the swap's COMMIT (during the swap too) drops the temporary table and leaves the earlier one as it was.
 * CANVAS_FULL (checkBounds) before anything is written when the table or the canvas would pass its cap.
 */
export function stageTable(
  canvas: Canvas,
  name: string,
  columns: ColumnSpec[],
  rows: readonly CellValue[][],
  provenance: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<TableMeta> {
  checkTableName(name);
  const bytes = estimateBytes(rows);
  return canvas.write(async () => {
    canvas.checkBounds(name, rows.length, bytes);
    const meta = await writeTable(canvas, name, columns, undefined, rows, signal, (meta) => ({ ...meta, row_count: rows.length, bytes, provenance }));
    // A re-staged table starts with no annotations (canvas_annotate's bookkeeping is per table contents).
    canvas.annotations.forget(name);
    return meta;
  });
}

/** What an append may also do to the rows already there, in the same swap (appendToTable). */
export interface AppendOptions {
  /**
   * The row count the caller read the table at: when another write changed it meanwhile the append is refused
   * (BUSY, nothing written), since the caller numbered its rows (and matched its keys) against that table.
   */
  expectRows?: number;
  /** Integers added to `column` of the earlier rows whose `key` column holds a key of `deltas` (NULL counts as 0). */
  increments?: { column: string; key: string; deltas: ReadonlyMap<number, number> };
}

/**
 * Appends `rows` (given in `columns`, by name) to table `name`, as one swap like stageTable: a column the table
 * lacks is added (earlier rows NULL), a column whose type differs is widened (widenType: numbers to DOUBLE,
 * other mixes to VARCHAR, the earlier values cast by DuckDB), and a table column the rows lack is NULL in
 * them. `provenance` is merged over the table's; `options` may check the table did not change since the caller
 * read it and add to a count column of earlier rows (canvas_import's duplicates), within the same swap.
 * CANVAS_FULL before anything is written past a cap; INVALID_ARGUMENTS when the table does not exist.
 */
export function appendToTable(
  canvas: Canvas,
  name: string,
  columns: ColumnSpec[],
  rows: readonly CellValue[][],
  provenance: Record<string, unknown>,
  signal?: AbortSignal,
  options: AppendOptions = {},
): Promise<TableMeta> {
  return canvas.write(async () => {
    const existing = canvas.tables.get(name);
    if (!existing) throw canvas.noTable(name);
    if (options.expectRows !== undefined && existing.row_count !== options.expectRows) {
      throw new ToolError(
        "BUSY",
        `Table ${name} changed while this call ran (another write made it ${existing.row_count} rows, not ${options.expectRows}); nothing was written`,
        { table: name, row_count: existing.row_count, expected_rows: options.expectRows },
        "Call again once the other write to this table is done (appends to one table go one after another).",
      );
    }
    const merged: ColumnSpec[] = existing.columns.map((c) => ({ ...c }));
    for (const c of columns) {
      const at = merged.find((m) => m.name === c.name);
      if (at) at.type = widenType(at.type, c.type);
      else merged.push({ ...c });
    }
    const index = new Map(columns.map((c, i) => [c.name, i]));
    const full = rows.map((row) =>
      merged.map((m) => {
        const i = index.get(m.name);
        return i === undefined ? null : coerceTo(m.type, row[i] ?? null);
      }),
    );
    const bytes = existing.bytes + estimateBytes(full);
    const rowCount = existing.row_count + rows.length;
    canvas.checkBounds(name, rowCount, bytes);
    const inc = options.increments;
    const adjust =
      inc && inc.deltas.size > 0
        ? async (connection: DuckDBConnection, staging: string) => {
            const col = quoteIdent(inc.column);
            await connection.run(
              `UPDATE ${quoteIdent(staging)} SET ${col} = COALESCE(${col}, 0) + d.n FROM (SELECT unnest(from_json($1::VARCHAR, '["BIGINT"]')) AS k, ` +
                `unnest(from_json($2::VARCHAR, '["BIGINT"]')) AS n) d WHERE ${quoteIdent(staging)}.${quoteIdent(inc.key)} = d.k`,
              [JSON.stringify([...inc.deltas.keys()]), JSON.stringify([...inc.deltas.values()])],
            );
          }
        : undefined;
    return writeTable(
      canvas,
      name,
      merged,
      existing,
      full,
      signal,
      (meta) => ({
        ...meta,
        row_count: rowCount,
        bytes,
        provenance: { ...existing.provenance, ...provenance },
      }),
      adjust,
    );
  });
}

/**
 * The first row (smallest `idColumn`) of each of `keys` in `column` of table `name`, for the keys the table holds
 * (canvas_import's dedupe on append: which row a record duplicates).
 */
export async function firstRowsByKey(canvas: Canvas, name: string, column: string, idColumn: string, keys: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (keys.length === 0) return out;
  canvas.checkOpen();
  const connection = await canvas.instance.connect();
  try {
    const read = await connection.runAndReadAll(
      `SELECT ${quoteIdent(column)} AS k, min(${quoteIdent(idColumn)}) AS id FROM ${quoteIdent(name)} ` +
        `WHERE ${quoteIdent(column)} IN (SELECT unnest(from_json($1::VARCHAR, '["VARCHAR"]'))) GROUP BY 1`,
      [JSON.stringify(keys)],
    );
    for (const row of read.getRowObjectsJson() as Array<{ k: string; id: string | number }>) out.set(row.k, Number(row.id));
    return out;
  } finally {
    connection.closeSync();
  }
}

/**
 * The write behind stageTable and appendToTable (in the write turn): a temporary table with `columns`, filled
 * with the rows of `from` (cast to the new types) when given and then `rows`, swapped in for `name` in
 * one transaction, and recorded with finish's metadata.
 */
async function writeTable(
  canvas: Canvas,
  name: string,
  columns: ColumnSpec[],
  from: TableMeta | undefined,
  rows: readonly CellValue[][],
  signal: AbortSignal | undefined,
  finish: Finish,
  adjust?: (connection: DuckDBConnection, staging: string) => Promise<void>,
): Promise<TableMeta> {
  const connection = await canvas.instance.connect();
  const staging = stagingName();
  let swapped = false;
  try {
    await connection.run(createTableSql(staging, columns));
    if (from) {
      const kept = columns.filter((c) => from.columns.some((f) => f.name === c.name));
      const list = kept.map((c) => quoteIdent(c.name)).join(", ");
      const casts = kept.map((c) => `CAST(${quoteIdent(c.name)} AS ${c.type})`).join(", ");
      await connection.run(`INSERT INTO ${quoteIdent(staging)} (${list}) SELECT ${casts} FROM ${quoteIdent(name)}`);
    }
    // Changes to the earlier rows, made on the copy: they stand only if the swap does.
    if (adjust) await adjust(connection, staging);
    await appendWithAppender(canvas, connection, staging, columns, rows, signal);
    const meta = await swapIn(canvas, connection, staging, name, columns, signal, finish);
    swapped = true;
    return meta;
  } finally {
    if (!swapped) await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(staging)}`).catch(() => undefined);
    connection.closeSync();
  }
}

/**
 * Swaps the filled temporary table `staging` in for `name` (in the write turn) in one transaction and
 * records it with finish's metadata. A cancellation that arrives before its COMMIT rolls it back (the
 * earlier table stays exactly as it was); once COMMIT is sent the new table stands and is recorded.
 */
async function swapIn(
  canvas: Canvas,
  connection: DuckDBConnection,
  staging: string,
  name: string,
  columns: ColumnSpec[],
  signal: AbortSignal | undefined,
  finish: Finish,
): Promise<TableMeta> {
  if (signal?.aborted) throw signal.reason ?? new Error("aborted");
  await connection.run("BEGIN TRANSACTION");
  try {
    await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
    await connection.run(`ALTER TABLE ${quoteIdent(staging)} RENAME TO ${quoteIdent(name)}`);
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    await connection.run("COMMIT");
  } catch (e) {
    await connection.run("ROLLBACK").catch(() => undefined);
    throw e;
  }
  // The table's own copy of its columns: canvas_annotate adds to it, and the caller's list (a spill's is one
  // constant shared by every canvas) must not change, or every other canvas would believe it has those columns.
  const meta = finish({ name, columns: columns.map((c) => ({ ...c })), staged_at: new Date(canvas.host.now()).toISOString() });
  canvas.tables.set(name, meta);
  return meta;
}

/**
 * Starts staging table `name` part by part (a spill stages each page as it arrives): each `append` and the
 * final `commit` is one write turn like stageTable's, so other writes to this canvas take their turns in
 * between and nothing holds the canvas's write turn while the walk waits for ChEMBL. The rows go into a
 * temporary table that no query can name (queries see only the tables recorded here); `commit` swaps it in
 * for `name` exactly as stageTable does, and `abort` (or a failed append or commit) drops it, leaving the earlier
 * table as it was. CANVAS_FULL as soon as the rows so far pass a cap (checkBounds), and again at the commit.
 */
export function openStage(canvas: Canvas, name: string, columns: ColumnSpec[], signal?: AbortSignal): StageWriter {
  checkTableName(name);
  const staging = stagingName();
  let connection: DuckDBConnection | undefined;
  // The bulk insert, prepared once for the whole stage.
  const bulk: { statement?: DuckDBPreparedStatement } = {};
  let rowCount = 0;
  let bytes = 0;
  let done = false;
  const release = () => {
    bulk.statement?.destroySync();
    bulk.statement = undefined;
  };
  const drop = async () => {
    done = true;
    release();
    if (!connection) return;
    const c = connection;
    connection = undefined;
    await c.run(`DROP TABLE IF EXISTS ${quoteIdent(staging)}`).catch(() => undefined);
    c.closeSync();
  };
  // Each step runs in its turn; a failed step (a closed canvas too) drops the temporary table, and later steps then refuse.
  const step = <T>(work: () => Promise<T>): Promise<T> =>
    canvas.hold(() =>
      canvas.inTurn(async () => {
        if (done) throw new Error(`the staging of ${name} has ended`);
        try {
          canvas.checkOpen();
          return await work();
        } catch (e) {
          await drop();
          throw e;
        }
      }),
    );
  const ready = async (): Promise<DuckDBConnection> => {
    if (!connection) {
      connection = await canvas.instance.connect();
      await connection.run(createTableSql(staging, columns));
      bulk.statement = await connection.prepare(bulkInsertSql(staging, columns));
    }
    return connection;
  };
  return {
    rows: () => rowCount,
    prepare: () => step(async () => void (await ready())),
    append: (rows) =>
      step(async () => {
        const addedBytes = estimateBytes(rows);
        canvas.checkBounds(name, rowCount + rows.length, bytes + addedBytes);
        await insertInBulk(canvas, await ready(), staging, columns, rows, signal, bulk);
        rowCount += rows.length;
        bytes += addedBytes;
      }),
    commit: (provenance) =>
      step(async () => {
        canvas.checkBounds(name, rowCount, bytes);
        const c = await ready();
        release();
        const meta = await swapIn(canvas, c, staging, name, columns, signal, (meta) => ({ ...meta, row_count: rowCount, bytes, provenance }));
        done = true;
        c.closeSync();
        connection = undefined;
        // A re-staged table starts with no annotations (canvas_annotate's bookkeeping is per table contents).
        canvas.annotations.forget(name);
        return meta;
      }),
    abort: () => (done ? Promise.resolve() : canvas.inTurn(drop)),
  };
}

/** Drops one table (a write: it takes its turn). */
export function dropTable(canvas: Canvas, name: string): Promise<void> {
  return canvas.write(async () => {
    if (!canvas.tables.has(name)) throw canvas.noTable(name);
    const connection = await canvas.instance.connect();
    try {
      await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
      canvas.tables.delete(name);
      canvas.annotations.forget(name);
    } finally {
      connection.closeSync();
    }
  });
}
