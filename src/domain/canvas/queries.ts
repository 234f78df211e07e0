/**
 * Reading a canvas: one guarded SELECT at a time (sql-guard.ts holds every lock a query passes), run in one of the
 * process's query slots, under a timeout and a watch on the process's memory that interrupt DuckDB, its output
 * capped in rows and bytes.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBPreparedStatement, DuckDBType } from "@duckdb/node-api";
import { ToolError } from "../errors.js";
import type { Canvas } from "./canvas.js";
import { queryError } from "./duckdb-errors.js";
import { checkReadOnlySql, prepareGuarded } from "./sql-guard.js";
import { jsonConverter, type JsonValue } from "./values.js";

/** How often a running query's process memory is looked at (ms). */
const MEMORY_WATCH_MS = 20;
/** Growth a query may add to a process already past CHEMATIC_PROCESS_MAX_MB (memory earlier queries left resident). */
const MEMORY_GROWTH_SLACK = 128 * 1024 * 1024;

/** A value bound to a query's `$n` parameter (a list of strings binds as VARCHAR[]). */
export type QueryParam = string | number | boolean | readonly string[];

export interface QueryOptions {
  maxRows: number;
  maxBytes: number;
  /** Values bound to `$1`, `$2`, ... in order: never spliced into the SQL text. */
  params?: readonly QueryParam[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface QueryResult {
  columns: Array<{ name: string; type: string }>;
  rows: Array<Record<string, JsonValue>>;
  returned: number;
  truncated: boolean;
  truncated_by: "row_cap" | "byte_cap" | null;
  elapsed_ms: number;
}

/** A query DuckDB is running on a canvas: closing the canvas interrupts it and waits (a little) for `done`. */
export interface RunningQuery {
  connection: DuckDBConnection;
  done: Promise<unknown>;
}

/** Runs one guarded read-only query with its output capped and a timeout that interrupts DuckDB. */
export function runQuery(canvas: Canvas, sql: string, options: QueryOptions): Promise<QueryResult> {
  return guarded(canvas, sql, options, async (connection, checked) => {
    const result = await execute(canvas, connection, checked, options);
    return (elapsedMs) => ({ ...result, elapsed_ms: elapsedMs });
  });
}

/** What streamQuery hands its reader: the result's columns, then each chunk of rows DuckDB produces. */
export interface QueryStreamReader {
  columns(columns: ReadonlyArray<{ name: string; type: DuckDBType }>): void | Promise<void>;
  /** One chunk (DuckDB's vector of rows); a rejection stops the query and is the call's answer. */
  chunk(chunk: DuckDBDataChunk): void | Promise<void>;
}

/**
 * One guarded read-only query whose every row is handed to `reader` chunk by chunk (an export), through the same
 * locks, slot, timeout and memory watch as runQuery; past `maxRows` it stops (`truncated`). Answers the rows read.
 */
export function streamQuery(
  canvas: Canvas,
  sql: string,
  options: { maxRows: number; timeoutMs?: number; signal?: AbortSignal },
  reader: QueryStreamReader,
): Promise<{ rows: number; truncated: boolean; elapsed_ms: number }> {
  return guarded(canvas, sql, options, async (connection, checked) => {
    const prepared = await prepareGuarded(canvas.duckdb, connection, checked, [...canvas.tables.keys()], canvas.catalog);
    try {
      const result = await prepared.stream();
      const names = result.deduplicatedColumnNames();
      const types = result.columnTypes();
      await reader.columns(names.map((name, i) => ({ name, type: types[i]! })));
      let rows = 0;
      let truncated = false;
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        if (rows + chunk.rowCount > options.maxRows) {
          truncated = true;
          break;
        }
        await reader.chunk(chunk);
        rows += chunk.rowCount;
      }
      return (elapsedMs) => ({ rows, truncated, elapsed_ms: elapsedMs });
    } finally {
      prepared.destroySync();
    }
  });
}

/**
 * The frame of every canvas read: the SQL through the first lock, the canvas held, a query slot (round-robin across
 * callers), a connection, the timeout and the memory watch that interrupt DuckDB, and DuckDB's failures worded.
 * `body` runs the checked SQL and answers how to finish the result once its elapsed time is known.
 */
async function guarded<T>(
  canvas: Canvas,
  sql: string,
  options: { timeoutMs?: number; signal?: AbortSignal; params?: readonly QueryParam[] },
  body: (connection: DuckDBConnection, checkedSql: string) => Promise<(elapsedMs: number) => T>,
): Promise<T> {
  const names = new Set([...canvas.tables.values()].flatMap((t) => [t.name, ...t.columns.map((c) => c.name)].map((n) => n.toLowerCase())));
  const checked = checkReadOnlySql(sql, names, options.params !== undefined);
  const host = canvas.host;
  return canvas.hold(async () => {
    const arrived = host.now();
    // Slots go round-robin across callers (the canvas's owner is the caller); the wait has its own deadline.
    const release = await host.querySlots.acquire(host.queueWaitMs, options.signal, canvas.owner ?? "");
    const queuedMs = host.now() - arrived;
    if (!release)
      throw new ToolError(
        "QUEUE_TIMEOUT",
        `Other canvas queries held both query slots for ${queuedMs} ms; this one waited its ${host.queueWaitMs} ms and did not run`,
        { queued_ms: queuedMs, queue_wait_ms: host.queueWaitMs, max_concurrent_queries: host.maxConcurrentQueries },
        "Retry in a moment; the query itself was not run.",
      );
    if (canvas.closed) {
      release();
      throw host.notFound(canvas.id, canvas.owner);
    }
    const started = host.now();
    const timeoutMs = options.timeoutMs ?? host.queryTimeoutMs;
    let connection: DuckDBConnection;
    try {
      connection = await canvas.instance.connect();
    } catch (e) {
      release();
      throw e;
    }
    let timedOut = false;
    const interrupt = () => {
      try {
        connection.interrupt();
      } catch {
        // Nothing is running any more.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      interrupt();
    }, timeoutMs);
    const onAbort = () => interrupt();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // The process's resident memory is watched while the query runs: growth spread over many steps (string_agg,
    // list, a recursive CTE, a cross join) that DuckDB's memory_limit does not count is interrupted past the ceiling.
    // Memory freed by an earlier query stays resident (the allocator keeps it for reuse), so a process already past
    // the ceiling interrupts only a query that grows it further, by MEMORY_GROWTH_SLACK.
    let overMemory: number | undefined;
    const ceiling = Math.max(host.processMaxBytes, process.memoryUsage.rss() + MEMORY_GROWTH_SLACK);
    const watchdog = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > ceiling && overMemory === undefined) {
        overMemory = rss;
        interrupt();
      }
    }, MEMORY_WATCH_MS);
    const work = body(connection, checked.sql);
    const entry: RunningQuery = { connection, done: work.catch(() => undefined) };
    canvas.running.add(entry);
    // The connection, the slot and the listener go when DuckDB is really done, even after a timeout answer.
    void entry.done.finally(() => {
      clearTimeout(timer);
      clearInterval(watchdog);
      options.signal?.removeEventListener("abort", onAbort);
      canvas.running.delete(entry);
      try {
        connection.closeSync();
      } catch {
        // Already closed.
      }
      release();
    });
    // Some DuckDB functions check for an interrupt only between steps: the answer does not wait for them.
    let late: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      late = setTimeout(() => {
        timedOut = true;
        reject(new Error("INTERRUPT Error: the query did not stop in time"));
      }, timeoutMs + 250);
    });
    try {
      const finish = await Promise.race([work, deadline]);
      return finish(host.now() - started);
    } catch (e) {
      if (overMemory !== undefined) {
        throw new ToolError(
          "QUERY_REFUSED",
          `The query was interrupted: the server's memory passed its ceiling (${Math.round(overMemory / 1048576)} MB resident, at most ${Math.round(ceiling / 1048576)} MB: CHEMATIC_PROCESS_MAX_MB, or 128 MB over the memory at the query's start)`,
          { reason: "process_memory", resident_mb: Math.round(overMemory / 1048576), max_mb: Math.round(ceiling / 1048576) },
          "Aggregate (GROUP BY), filter (WHERE) or add a LIMIT so the query builds less at once, then retry.",
        );
      }
      if (timedOut)
        throw new ToolError(
          "QUERY_TIMEOUT",
          `The query ran past its ${timeoutMs} ms timeout and was interrupted (it queued ${queuedMs} ms for a slot, then ran ${host.now() - started} ms)`,
          { timeout_ms: timeoutMs, queued_ms: queuedMs, ran_ms: host.now() - started },
        );
      throw queryError(e, host.dir, host.memoryLimitMb);
    } finally {
      clearTimeout(late);
    }
  });
}

function bindParams(canvas: Canvas, prepared: DuckDBPreparedStatement, params: readonly QueryParam[]): void {
  const d = canvas.duckdb;
  prepared.bind(
    params.map((p) => (typeof p === "object" ? d.listValue([...p]) : p)),
    params.map((p) => (typeof p === "object" ? d.LIST(d.VARCHAR) : typeof p === "number" ? d.DOUBLE : typeof p === "boolean" ? d.BOOLEAN : d.VARCHAR)),
  );
}

/** The query through the second lock (sql-guard.ts prepareGuarded), then its rows streamed up to the caps. */
async function execute(canvas: Canvas, connection: DuckDBConnection, sql: string, options: QueryOptions): Promise<Omit<QueryResult, "elapsed_ms">> {
  const prepared = await prepareGuarded(canvas.duckdb, connection, sql, [...canvas.tables.keys()], canvas.catalog);
  try {
    if (options.params && options.params.length > 0) bindParams(canvas, prepared, options.params);
    const result = await prepared.stream();
    const names = result.deduplicatedColumnNames();
    const types = result.columnTypes();
    const columns = names.map((name, i) => ({ name, type: types[i]!.toString() }));
    const convert = jsonConverter(canvas.duckdb);
    const rows: Array<Record<string, JsonValue>> = [];
    let bytes = 2;
    let truncatedBy: QueryResult["truncated_by"] = null;
    outer: for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const values = chunk.convertRows(convert);
      for (const row of values) {
        if (rows.length >= options.maxRows) {
          truncatedBy = "row_cap";
          break outer;
        }
        const obj: Record<string, JsonValue> = {};
        names.forEach((name, i) => (obj[name] = row[i] ?? null));
        const size = Buffer.byteLength(JSON.stringify(obj), "utf8") + 1;
        if (bytes + size > options.maxBytes) {
          truncatedBy = "byte_cap";
          break outer;
        }
        bytes += size;
        rows.push(obj);
      }
    }
    return { columns, rows, returned: rows.length, truncated: truncatedBy !== null, truncated_by: truncatedBy };
  } finally {
    prepared.destroySync();
  }
}
