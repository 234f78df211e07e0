/**
 * Canvases: per-agent DuckDB workspaces holding staged bioactivity tables, read with one guarded SQL
 * SELECT at a time (chembl_dataframe_query).
 *
 * Isolation and bounds:
 *  - one DuckDB instance per canvas, opened locked down (sql-guard.ts), so a canvas sees only its own tables;
 *  - canvas IDs carry 143 random bits (over HTTP the ID is the only key, and with authentication on a canvas
 *    also belongs to the subject that made it: another subject's ID answers as an unknown one would);
 *  - a canvas ID names the replica holding it and the run of that replica (cv_<replica>_<run><random>), so a
 *    load balancer routes a canvas call by its Mcp-Param-Canvas-Id header, and a replica that restarted, or
 *    that received another replica's canvas, says so instead of "unknown";
 *  - a canvas expires after 30 minutes idle; at most 32 exist (the least recently used idle one makes room,
 *    else BUSY); each instance has a memory limit; queries run at most 2 at a time server-wide (DuckDB work
 *    occupies libuv's thread pool, which file and DNS work share);
 *  - writes to one canvas are serialised, and a table is replaced by staging it under a temporary name and
 *    swapping it in one transaction, so a failed or cancelled stage leaves the earlier table;
 *  - queries pass the three locks of sql-guard.ts (the lexical guard, then checks on DuckDB's own parse:
 *    exactly one statement, of type SELECT, naming only this canvas's tables; the instance is opened
 *    locked down), and run under a timeout that interrupts DuckDB, with their
 *    output capped in rows and bytes;
 *  - file-backed canvases (CHEMATIC_CANVAS_DIR) live in a per-process directory inside it, every path
 *    derived through safeJoin, and are deleted when the canvas expires or the server closes.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement, DuckDBType } from "@duckdb/node-api";
import { DEFAULT_CALLER_MB, DEFAULT_CANVASES_PER_CALLER, DEFAULT_IMPORT_MAX_COLUMNS, defaultProcessMaxMb, type CanvasConfig } from "../../config.js";
import { findValueGrowth, valueGrowthRefusal } from "./value-growth.js";
import { ToolError } from "../errors.js";
import { Semaphore } from "../semaphore.js";
import { diskFullError, queryError } from "./duckdb-errors.js";
import { loadDuckDb, type DuckDbLoader, type DuckDbModule } from "./duckdb.js";
import { isInside, safeJoin } from "./paths.js";
import { checkReadOnlySql, checkSelect, checkStatementCount, checkSyntaxTree, checkTableReferences, lockedDownOptions } from "./sql-guard.js";
import { jsonConverter, type JsonValue } from "./values.js";

/** Characters of a canvas ID after the replica: the run of the replica process, then the random part. */
const RUN_CHARS = 4;
const RANDOM_CHARS = 24;
/** cv_, the replica, _, then 28 base-62 characters (the replica's run, then 24 random ones: 143 bits). */
export const CANVAS_ID_PATTERN = `^cv_[a-z0-9]{1,16}_[A-Za-z0-9]{${RUN_CHARS + RANDOM_CHARS}}$`;
const CANVAS_ID_RE = /^cv_([a-z0-9]{1,16})_([A-Za-z0-9]{4})([A-Za-z0-9]{24})$/;
/** The longest canvas ID (the schemas' maxLength allows surrounding whitespace too). */
export const CANVAS_ID_MAX_LENGTH = 3 + 16 + 1 + RUN_CHARS + RANDOM_CHARS;
/** A table name a canvas accepts (ours: bioactivities, bioactivities_null_potency). */
const TABLE_NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;

export const CANVAS_DEFAULTS = {
  maxCanvases: 32,
  idleMs: 30 * 60_000,
  /** Per canvas; grows with CHEMBL_MAX_SPILL_ROWS (see memoryLimitFor). */
  memoryLimitMb: 256,
  threads: 2,
  queryTimeoutMs: 15_000,
  maxConcurrentQueries: 2,
  /**
   * How long a query waits for a free slot before QUEUE_TIMEOUT: longer than one query may run, so a caller waiting
   * behind another's long queries is served when the first of them ends (slots go round-robin across callers).
   * Not charged to the query's own timeout.
   */
  queueWaitMs: 20_000,
  /** Rows per appended chunk (DuckDB's vector size): the event loop gets a turn between chunks. */
  appendChunkRows: 2048,
  /** Rows one table holds at most (CHEMATIC_CANVAS_MAX_TABLE_ROWS; never below CHEMBL_MAX_SPILL_ROWS, so a spill fits). */
  maxTableRows: 100_000,
  /** Estimated data bytes one canvas holds at most, over all its tables (CHEMATIC_CANVAS_MAX_MB). */
  maxBytes: 256 * 1024 * 1024,
};

/** How often a running query's process memory is looked at (ms). */
const MEMORY_WATCH_MS = 20;
/** Growth a query may add to a process already past CHEMATIC_PROCESS_MAX_MB (memory earlier queries left resident). */
const MEMORY_GROWTH_SLACK = 128 * 1024 * 1024;

/** The memory limit of one canvas: room for two views of maxSpillRows rows, each twice during a swap. */
export function memoryLimitFor(maxSpillRows: number): number {
  return Math.max(CANVAS_DEFAULTS.memoryLimitMb, Math.ceil((maxSpillRows / 50_000) * CANVAS_DEFAULTS.memoryLimitMb));
}

export type ColumnType = "BIGINT" | "INTEGER" | "DOUBLE" | "VARCHAR" | "BOOLEAN";
/** What a computed column (canvas_annotate) may hold: a staged type, or a list of names. */
export type AnnotationType = Exclude<ColumnType, "BIGINT"> | "VARCHAR[]";

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
function coerceTo(type: ColumnSpec["type"], v: CellValue): CellValue {
  if (v === null) return null;
  if (type === "VARCHAR" && typeof v !== "string") return String(v);
  return v;
}

export interface QueryOptions {
  maxRows: number;
  maxBytes: number;
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

export interface CanvasManagerOptions {
  loader?: DuckDbLoader;
  maxCanvases?: number;
  /** Canvases one caller holds at most (default: CHEMATIC_CANVAS_PER_CALLER's). */
  maxCanvasesPerCaller?: number;
  /** Estimated data bytes one caller's canvases hold at most together (default: CHEMATIC_CANVAS_CALLER_MB's). */
  callerMaxBytes?: number;
  idleMs?: number;
  memoryLimitMb?: number;
  threads?: number;
  queryTimeoutMs?: number;
  maxConcurrentQueries?: number;
  queueWaitMs?: number;
  /** Rows a table holds at most (default: CANVAS_DEFAULTS.maxTableRows, or the spill cap when larger). */
  maxTableRows?: number;
  /** Estimated bytes a canvas holds at most (default CANVAS_DEFAULTS.maxBytes). */
  maxBytes?: number;
  now?: () => number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  /** The run tag of this process's canvas IDs (default: random); tests give one to play a restarted replica. */
  runTag?: string;
  /** Called with the rows of every chunk appended (the appender's data chunks, the bulk inserts' statements): tests. */
  onChunk?: (rows: number, how: "appender" | "bulk") => void;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `n` uniformly random base-62 characters (bytes past 247 are dropped, so no character is favoured). */
export function randomBase62(n: number): string {
  let out = "";
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

/** A replica name for a process given none: 6 random lower-case letters and digits (a new one each start). */
export function randomReplicaId(): string {
  let out = "";
  while (out.length < 6) {
    for (const b of randomBytes(12)) if (b < 252 && out.length < 6) out += BASE62[b % 36]!.toLowerCase();
  }
  return out;
}

/** What one replica run puts in its canvas IDs: the replica's name and a random tag of this run. */
export interface CanvasIdOrigin {
  replica: string;
  run: string;
}

export function newRunTag(): string {
  return randomBase62(RUN_CHARS);
}

/** A new canvas ID minted by `origin` (a fresh tag and a random replica name unless given). */
export function newCanvasId(origin: CanvasIdOrigin = { replica: randomReplicaId(), run: newRunTag() }): string {
  return `cv_${origin.replica}_${origin.run}${randomBase62(RANDOM_CHARS)}`;
}

export function isCanvasId(id: string): boolean {
  return CANVAS_ID_RE.test(id);
}

/** The replica and run a canvas ID names, or undefined for a malformed ID. */
export function canvasIdOrigin(id: string): CanvasIdOrigin | undefined {
  const m = CANVAS_ID_RE.exec(id);
  return m ? { replica: m[1]!, run: m[2]! } : undefined;
}

/** A value as its declared column type takes it; a mismatch is a bug upstream of the canvas, never coerced. */
function checkCell(column: ColumnSpec, v: CellValue): CellValue {
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

export class Canvas {
  readonly tables = new Map<string, TableMeta>();
  lastUsedAt: number;
  /** Calls holding this canvas (a spill, a query): it neither expires nor is evicted meanwhile. */
  pins = 0;
  closed = false;
  private writeChain: Promise<void> = Promise.resolve();
  /**
   * canvas_annotate's bookkeeping, per table: each computed column's definition and which rows (by ROW_KEY_COLUMN)
   * hold its value. Kept here, beside the DuckDB instance it describes; re-staging or dropping a table forgets it.
   */
  private readonly annotations = new Map<string, Map<string, { definition: string; done: Uint8Array }>>();
  private readonly running = new Set<{ connection: DuckDBConnection; done: Promise<unknown> }>();

  constructor(
    readonly id: string,
    private readonly manager: CanvasManager,
    private readonly duckdb: DuckDbModule,
    private readonly instance: DuckDBInstance,
    /** The database file, or null in memory. */
    readonly file: string | null,
    readonly createdAt: number,
    /** The subject (or token label) that made it when the server authenticates callers; null without authentication. */
    readonly owner: string | null = null,
  ) {
    this.lastUsedAt = createdAt;
  }

  touch(): void {
    this.lastUsedAt = this.manager.now();
  }

  /** Holds the canvas for the length of `work` (no expiry, no eviction). */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.pins++;
    this.touch();
    try {
      return await work();
    } finally {
      this.pins--;
      this.touch();
    }
  }

  describe(): TableMeta[] {
    return [...this.tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Runs one write after the ones before it (serialised per canvas); a failed write does not block the next. */
  private serialise<T>(write: () => Promise<T>): Promise<T> {
    // A full disk under CHEMATIC_CANVAS_DIR is a named refusal, whatever write met it.
    const mapped = () =>
      write().catch((e: unknown) => {
        throw diskFullError(e, this.manager.dir) ?? e;
      });
    const run = this.writeChain.then(mapped, mapped);
    this.writeChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Estimated data bytes of all this canvas's tables (see estimateBytes). */
  usedBytes(): number {
    let bytes = 0;
    for (const t of this.tables.values()) bytes += t.bytes;
    return bytes;
  }

  /**
   * CANVAS_FULL when table `name` holding `rows` rows and `bytes` bytes (in place of what it holds now)
   * would pass the rows-per-table or the bytes-per-canvas cap. Writers call it before they write.
   */
  checkBounds(name: string, rows: number, bytes: number): void {
    if (rows > this.manager.maxTableRows) throw this.manager.tooManyRows(name, rows);
    const others = this.usedBytes() - (this.tables.get(name)?.bytes ?? 0);
    if (others + bytes > this.manager.maxBytes) {
      throw new ToolError(
        "CANVAS_FULL",
        `Canvas ${this.id} would hold about ${others + bytes} bytes of data; a canvas holds at most ${this.manager.maxBytes}`,
        { table: name, bytes: others + bytes, max_bytes: this.manager.maxBytes, tables: [...this.tables.keys()] },
        "Drop tables you no longer need (chembl_dataframe_drop), or put the data on a new canvas (omit canvas_id).",
      );
    }
  }

  /**
   * Stages `rows` as table `name` with the given explicit column types: into a new temporary table first,
   * then swapped in (drop the old, rename the new) in one transaction. A failure or a cancellation before
   * the swap's COMMIT (during the swap too) drops the temporary table and leaves the earlier one as it was.
   * CANVAS_FULL (checkBounds) before anything is written when the table or the canvas would pass its cap.
   */
  stage(name: string, columns: ColumnSpec[], rows: readonly CellValue[][], provenance: Record<string, unknown>, signal?: AbortSignal): Promise<TableMeta> {
    if (!TABLE_NAME_RE.test(name)) throw new Error(`bad table name ${name}`);
    const bytes = estimateBytes(rows);
    return this.hold(() =>
      this.serialise(async () => {
        if (this.closed) throw this.manager.notFound(this.id, this.owner);
        this.checkBounds(name, rows.length, bytes);
        const meta = await this.writeTable(name, columns, undefined, rows, signal, (meta) => ({
          ...meta,
          row_count: rows.length,
          bytes,
          provenance,
        }));
        // A re-staged table starts with no annotations (canvas_annotate's bookkeeping is per table contents).
        this.annotations.delete(name);
        return meta;
      }),
    );
  }

  /**
   * Appends `rows` (given in `columns`, by name) to table `name`, as one swap like stage: a column the table
   * lacks is added (earlier rows NULL), a column whose type differs is widened (widenType: numbers to DOUBLE,
   * other mixes to VARCHAR, the earlier values cast by DuckDB), and a table column the rows lack is NULL in
   * them. `provenance` is merged over the table's. CANVAS_FULL before anything is written past a cap;
   * INVALID_ARGUMENTS when the table does not exist.
   */
  appendRows(
    name: string,
    columns: ColumnSpec[],
    rows: readonly CellValue[][],
    provenance: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<TableMeta> {
    return this.hold(() =>
      this.serialise(async () => {
        if (this.closed) throw this.manager.notFound(this.id, this.owner);
        const existing = this.tables.get(name);
        if (!existing) throw this.noTable(name);
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
        this.checkBounds(name, rowCount, bytes);
        return this.writeTable(name, merged, existing, full, signal, (meta) => ({
          ...meta,
          row_count: rowCount,
          bytes,
          provenance: { ...existing.provenance, ...provenance },
        }));
      }),
    );
  }

  /** The columns canvas_annotate computed on `table` (an import appending to it must not write into them). */
  computedColumns(table: string): string[] {
    return [...(this.annotations.get(table)?.keys() ?? [])];
  }

  /** INVALID_ARGUMENTS naming the tables there are. */
  noTable(name: string): ToolError {
    return new ToolError(
      "INVALID_ARGUMENTS",
      `No table ${name} on canvas ${this.id}`,
      { path: "/table", tables: [...this.tables.keys()] },
      "Pick a table chembl_dataframe_describe lists.",
    );
  }

  /**
   * The write behind stage and appendRows (inside serialise): a temporary table with `columns`, filled
   * with the rows of `from` (cast to the new types) when given and then `rows`, swapped in for `name` in
   * one transaction, and recorded with finish's metadata.
   */
  private async writeTable(
    name: string,
    columns: ColumnSpec[],
    from: TableMeta | undefined,
    rows: readonly CellValue[][],
    signal: AbortSignal | undefined,
    finish: (meta: Pick<TableMeta, "name" | "columns" | "staged_at">) => TableMeta,
  ): Promise<TableMeta> {
    const connection = await this.instance.connect();
    const staging = `_staging_${randomBytes(6).toString("hex")}`;
    let swapped = false;
    try {
      await connection.run(`CREATE TABLE ${quoteIdent(staging)} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ")})`);
      if (from) {
        const kept = columns.filter((c) => from.columns.some((f) => f.name === c.name));
        const list = kept.map((c) => quoteIdent(c.name)).join(", ");
        const casts = kept.map((c) => `CAST(${quoteIdent(c.name)} AS ${c.type})`).join(", ");
        await connection.run(`INSERT INTO ${quoteIdent(staging)} (${list}) SELECT ${casts} FROM ${quoteIdent(name)}`);
      }
      await this.append(connection, staging, columns, rows, signal);
      const meta = await this.swapIn(connection, staging, name, columns, signal, finish);
      swapped = true;
      return meta;
    } finally {
      if (!swapped) await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(staging)}`).catch(() => undefined);
      connection.closeSync();
    }
  }

  /**
   * Swaps the filled temporary table `staging` in for `name` (inside serialise) in one transaction and
   * records it with finish's metadata. A cancellation that arrives before its COMMIT rolls it back (the
   * earlier table stays exactly as it was); once COMMIT is sent the new table stands and is recorded.
   */
  private async swapIn(
    connection: DuckDBConnection,
    staging: string,
    name: string,
    columns: ColumnSpec[],
    signal: AbortSignal | undefined,
    finish: (meta: Pick<TableMeta, "name" | "columns" | "staged_at">) => TableMeta,
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
    const meta = finish({ name, columns: columns.map((c) => ({ ...c })), staged_at: new Date(this.manager.now()).toISOString() });
    this.tables.set(name, meta);
    return meta;
  }

  /**
   * Starts staging table `name` part by part (a spill stages each page as it arrives): each `append` and the
   * final `commit` is one serialised write like stage's, so other writes to this canvas take their turns in
   * between and nothing holds the canvas's write turn while the walk waits for ChEMBL. The rows go into a
   * temporary table that no query can name (queries see only the tables recorded here); `commit` swaps it in
   * for `name` exactly as stage does, and `abort` (or a failed append or commit) drops it, leaving the earlier
   * table as it was. CANVAS_FULL as soon as the rows so far pass a cap (checkBounds), and again at the commit.
   */
  openStage(name: string, columns: ColumnSpec[], signal?: AbortSignal): StageWriter {
    if (!TABLE_NAME_RE.test(name)) throw new Error(`bad table name ${name}`);
    const staging = `_staging_${randomBytes(6).toString("hex")}`;
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
    // Each step runs in its turn; a failed step drops the temporary table, and later steps then refuse.
    const step = <T>(work: () => Promise<T>): Promise<T> =>
      this.hold(() =>
        this.serialise(async () => {
          if (done) throw new Error(`the staging of ${name} has ended`);
          try {
            if (this.closed) throw this.manager.notFound(this.id, this.owner);
            return await work();
          } catch (e) {
            await drop();
            throw e;
          }
        }),
      );
    const ready = async (): Promise<DuckDBConnection> => {
      if (!connection) {
        connection = await this.instance.connect();
        await connection.run(`CREATE TABLE ${quoteIdent(staging)} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ")})`);
        bulk.statement = await connection.prepare(this.bulkInsertSql(staging, columns));
      }
      return connection;
    };
    return {
      rows: () => rowCount,
      prepare: () => step(async () => void (await ready())),
      append: (rows) =>
        step(async () => {
          const addedBytes = estimateBytes(rows);
          this.checkBounds(name, rowCount + rows.length, bytes + addedBytes);
          await this.appendBulk(await ready(), staging, columns, rows, signal, bulk);
          rowCount += rows.length;
          bytes += addedBytes;
        }),
      commit: (provenance) =>
        step(async () => {
          this.checkBounds(name, rowCount, bytes);
          const c = await ready();
          release();
          const meta = await this.swapIn(c, staging, name, columns, signal, (meta) => ({ ...meta, row_count: rowCount, bytes, provenance }));
          done = true;
          c.closeSync();
          connection = undefined;
          // A re-staged table starts with no annotations (canvas_annotate's bookkeeping is per table contents).
          this.annotations.delete(name);
          return meta;
        }),
      abort: () => (done ? Promise.resolve() : this.serialise(drop)),
    };
  }

  private async append(connection: DuckDBConnection, table: string, columns: ColumnSpec[], rows: readonly CellValue[][], signal?: AbortSignal): Promise<void> {
    const d = this.duckdb;
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
      const step = this.manager.appendChunkRows;
      for (let start = 0; start < rows.length; start += step) {
        if (signal?.aborted) throw signal.reason ?? new Error("aborted");
        const end = Math.min(rows.length, start + step);
        this.manager.onChunk?.(end - start, "appender");
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

  /** appendBulk's statement: each column a JSON array in $1, unnested back into rows. */
  private bulkInsertSql(table: string, columns: ColumnSpec[]): string {
    const spec = JSON.stringify(Object.fromEntries(columns.map((c, i) => [`c${i}`, `${c.type}[]`]))).replace(/'/g, "''");
    return `INSERT INTO ${quoteIdent(table)} SELECT ${columns.map((_, i) => `unnest(j.c${i})`).join(", ")} FROM (SELECT from_json($1::VARCHAR, '${spec}') AS j)`;
  }

  /**
   * Appends rows like `append`, but as columnar bulk inserts that DuckDB runs off the main thread: at most
   * appendChunkRows rows a statement, each column one JSON array, unnested back into rows by DuckDB
   * (`INSERT ... SELECT unnest(j.c0), unnest(j.c1), ... FROM from_json(...)`), so the event loop only checks
   * the values and serialises them while DuckDB parses, converts and stores them on its own threads (the
   * appender does all of that on the main thread). A part JSON cannot carry exactly (-0, NaN, Infinity) or
   * that DuckDB refuses (a lone UTF-16 surrogate) goes through the appender instead.
   */
  private async appendBulk(
    connection: DuckDBConnection,
    table: string,
    columns: ColumnSpec[],
    rows: readonly CellValue[][],
    signal?: AbortSignal,
    cache: { statement?: DuckDBPreparedStatement } = {},
  ): Promise<void> {
    const step = this.manager.appendChunkRows;
    for (let start = 0; start < rows.length; start += step) {
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
      const part = rows.slice(start, Math.min(rows.length, start + step));
      // Column-major, checking every value against its declared type (as append does).
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
        await this.append(connection, table, columns, part, signal);
        continue;
      }
      this.manager.onChunk?.(part.length, "bulk");
      try {
        cache.statement ??= await connection.prepare(this.bulkInsertSql(table, columns));
        cache.statement.bindVarchar(1, JSON.stringify(data));
        await cache.statement.run();
      } catch (e) {
        if (signal?.aborted) throw e;
        this.manager.log(`canvas ${this.id}: a bulk insert was refused (${(e as Error).message.split("\n")[0]!.slice(0, 160)}); appending those rows instead`);
        await this.append(connection, table, columns, part, signal);
      }
    }
  }

  /** The tables and columns as DuckDB itself holds them (checks and diagnostics; queries cannot read information_schema). */
  async inspect(): Promise<Array<{ table_name: string; column_name: string; data_type: string }>> {
    const connection = await this.instance.connect();
    try {
      const r = await connection.runAndReadAll(
        "SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY table_name, ordinal_position",
      );
      return r.getRowObjectsJson() as Array<{ table_name: string; column_name: string; data_type: string }>;
    } finally {
      connection.closeSync();
    }
  }

  /** Drops one table (a write: it takes its turn). */
  dropTable(name: string): Promise<void> {
    return this.hold(() =>
      this.serialise(async () => {
        if (!this.tables.has(name)) throw this.noTable(name);
        const connection = await this.instance.connect();
        try {
          await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
          this.tables.delete(name);
          this.annotations.delete(name);
        } finally {
          connection.closeSync();
        }
      }),
    );
  }

  /**
   * Gets a table ready for computed columns (canvas_annotate): checks the table, its SMILES column and the
   * new columns' names (a name already taken by a staged column, or by a computed column of another
   * definition, is an INVALID_ARGUMENTS), adds the missing columns (and ROW_KEY_COLUMN the first time), and
   * answers the rows that do not yet hold every requested column, in row order.
   */
  prepareAnnotation(table: string, smilesColumn: string, columns: readonly AnnotationColumn[]): Promise<AnnotationWork> {
    return this.hold(() =>
      this.serialise(async () => {
        if (this.closed) throw this.manager.notFound(this.id, this.owner);
        const meta = this.tables.get(table);
        if (!meta) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            `No table ${table} on canvas ${this.id}`,
            { path: "/table", tables: [...this.tables.keys()].sort() },
            "Pick a table chembl_dataframe_describe lists.",
          );
        }
        const state = this.annotations.get(table) ?? new Map<string, { definition: string; done: Uint8Array }>();
        const source = meta.columns.find((c) => c.name === smilesColumn);
        if (!source || source.type !== "VARCHAR" || state.has(smilesColumn) || smilesColumn === ROW_KEY_COLUMN) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            source ? `Column ${smilesColumn} of ${table} holds no SMILES text` : `Table ${table} has no column ${smilesColumn}`,
            { path: "/smiles_column", columns: meta.columns.filter((c) => c.type === "VARCHAR" && !state.has(c.name)).map((c) => c.name) },
            "Name the table's SMILES column in smiles_column (details.columns lists its text columns).",
          );
        }
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
        const connection = await this.instance.connect();
        try {
          const t = quoteIdent(table);
          const key = quoteIdent(ROW_KEY_COLUMN);
          if (!meta.columns.some((c) => c.name === ROW_KEY_COLUMN)) {
            await connection.run(`ALTER TABLE ${t} ADD COLUMN ${key} BIGINT`);
            meta.columns.push({
              name: ROW_KEY_COLUMN,
              type: "BIGINT",
              description: "canvas_annotate's row number (0-based): the key its computed values are written by.",
            });
          }
          // Rows staged or appended since the last call get keys above every key given so far.
          await connection.run(`UPDATE ${t} SET ${key} = rowid + (SELECT coalesce(max(${key}), -1) + 1 FROM ${t}) WHERE ${key} IS NULL`);
          for (const column of columns) {
            if (state.has(column.name)) continue;
            await connection.run(`ALTER TABLE ${t} ADD COLUMN ${quoteIdent(column.name)} ${column.type}`);
            meta.columns.push({ name: column.name, type: column.type, description: column.description });
            state.set(column.name, { definition: column.definition, done: new Uint8Array(0) });
          }
          this.annotations.set(table, state);
          const read = await connection.runAndReadAll(`SELECT ${key}, CAST(${quoteIdent(smilesColumn)} AS VARCHAR) FROM ${t} ORDER BY ${key}`);
          const rows = read.getRows();
          meta.row_count = rows.length;
          const marks = columns.map((c) => state.get(c.name)!.done);
          const pending: AnnotationWork["pending"] = [];
          for (const [rawKey, smiles] of rows) {
            const row = Number(rawKey);
            if (marks.every((done) => row < done.length && done[row] === 1)) continue;
            pending.push({ row, smiles: typeof smiles === "string" ? smiles : null });
          }
          return { pending, total: rows.length };
        } finally {
          connection.closeSync();
        }
      }),
    );
  }

  /**
   * Writes computed values (row-major, one value per column, lists for VARCHAR[] columns) by row key, and
   * records those rows as done for these columns.
   */
  writeAnnotation(
    table: string,
    columns: readonly AnnotationColumn[],
    rows: readonly number[],
    values: readonly unknown[][],
    signal?: AbortSignal,
  ): Promise<void> {
    return this.hold(() =>
      this.serialise(async () => {
        if (this.closed) throw this.manager.notFound(this.id, this.owner);
        const state = this.annotations.get(table);
        if (!state || !this.tables.has(table)) throw new Error(`table ${table} is not being annotated`);
        if (rows.length === 0) return;
        const connection = await this.instance.connect();
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
          await connection.run(`CREATE TEMP TABLE ${quoteIdent(staging)} (${specs.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(", ")})`);
          await this.append(connection, staging, specs, cells, signal);
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
      }),
    );
  }

  /** Runs one guarded read-only query with its output capped and a timeout that interrupts DuckDB. */
  async query(sql: string, options: QueryOptions): Promise<QueryResult> {
    const checked = checkReadOnlySql(sql);
    return this.hold(async () => {
      const arrived = this.manager.now();
      // Slots go round-robin across callers (the canvas's owner is the caller); the wait has its own deadline.
      const release = await this.manager.querySlots.acquire(this.manager.queueWaitMs, options.signal, this.owner ?? "");
      const queuedMs = this.manager.now() - arrived;
      if (!release)
        throw new ToolError(
          "QUEUE_TIMEOUT",
          `Other canvas queries held both query slots for ${queuedMs} ms; this one waited its ${this.manager.queueWaitMs} ms and did not run`,
          { queued_ms: queuedMs, queue_wait_ms: this.manager.queueWaitMs, max_concurrent_queries: this.manager.maxConcurrentQueries },
          "Retry in a moment; the query itself was not run.",
        );
      if (this.closed) {
        release();
        throw this.manager.notFound(this.id, this.owner);
      }
      const started = this.manager.now();
      const timeoutMs = options.timeoutMs ?? this.manager.queryTimeoutMs;
      let connection: DuckDBConnection;
      try {
        connection = await this.instance.connect();
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
      const ceiling = Math.max(this.manager.processMaxBytes, process.memoryUsage.rss() + MEMORY_GROWTH_SLACK);
      const watchdog = setInterval(() => {
        const rss = process.memoryUsage.rss();
        if (rss > ceiling && overMemory === undefined) {
          overMemory = rss;
          interrupt();
        }
      }, MEMORY_WATCH_MS);
      const work = this.execute(connection, checked.sql, options);
      const entry = { connection, done: work.catch(() => undefined) };
      this.running.add(entry);
      // The connection, the slot and the listener go when DuckDB is really done, even after a timeout answer.
      void entry.done.finally(() => {
        clearTimeout(timer);
        clearInterval(watchdog);
        options.signal?.removeEventListener("abort", onAbort);
        this.running.delete(entry);
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
        const result = await Promise.race([work, deadline]);
        return { ...result, elapsed_ms: this.manager.now() - started };
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
            `The query ran past its ${timeoutMs} ms timeout and was interrupted (it queued ${queuedMs} ms for a slot, then ran ${this.manager.now() - started} ms)`,
            { timeout_ms: timeoutMs, queued_ms: queuedMs, ran_ms: this.manager.now() - started },
          );
        throw queryError(e, this.manager.dir, this.manager.memoryLimitMb);
      } finally {
        clearTimeout(late);
      }
    });
  }

  private async execute(connection: DuckDBConnection, sql: string, options: QueryOptions): Promise<Omit<QueryResult, "elapsed_ms">> {
    const d = this.duckdb;
    // DuckDB's own parser: exactly one statement...
    const extracted = await connection.extractStatements(sql);
    checkStatementCount(extracted.count);
    // ...naming no table but this canvas's own (a quoted path is a table name to DuckDB, and a replacement scan would read it)...
    const own = new Set([...this.tables.keys()].map((t) => t.toLowerCase()));
    const catalog = this.catalog().toLowerCase();
    const serialised = await connection.runAndReadAll("SELECT json_serialize_sql($1::VARCHAR) AS ast", [sql]);
    const tree = JSON.parse(String(serialised.getRowsJson()[0]![0])) as unknown;
    checkSyntaxTree(tree, own, catalog, [...this.tables.keys()]);
    // ...building no value larger than one step may hold (a single call cannot be interrupted once it runs)...
    const growth = findValueGrowth(tree);
    if (growth) throw valueGrowthRefusal(growth);
    checkTableReferences(connection.getTableNames(sql, true), own, catalog, [...this.tables.keys()]);
    // ...and of type SELECT once prepared (binding happens here, under the locked-down configuration).
    const prepared = await extracted.prepare(0);
    try {
      checkSelect(prepared.statementType === d.StatementType.SELECT);
      const result = await prepared.stream();
      const names = result.deduplicatedColumnNames();
      const types = result.columnTypes();
      const columns = names.map((name, i) => ({ name, type: types[i]!.toString() }));
      const convert = jsonConverter(d);
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

  /** The catalog (database) name DuckDB gives this canvas: the file's stem, or "memory". */
  private catalog(): string {
    return this.file ? this.id : "memory";
  }

  /** Interrupts what runs, waits a little for it, closes the instance and deletes its files. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.running) {
      try {
        r.connection.interrupt();
      } catch {
        // Finished meanwhile.
      }
    }
    const pending = [...this.running].map((r) => r.done);
    const settled = await Promise.race([Promise.all(pending).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000).unref())]);
    await this.writeChain;
    // A query DuckDB could not interrupt still uses the instance: leave it to the garbage collector then.
    if (settled) this.instance.closeSync();
    this.manager.deleteFiles(this);
  }
}

export class CanvasManager {
  readonly enabled: boolean;
  readonly dir: string | null;
  readonly maxSpillRows: number;
  readonly maxCanvases: number;
  /** CHEMATIC_CANVAS_PER_CALLER: canvases one caller (token label, OAuth subject, the stdio process) holds at most. */
  readonly maxCanvasesPerCaller: number;
  /** CHEMATIC_CANVAS_CALLER_MB, in bytes: estimated data one caller's canvases hold at most together. */
  readonly callerMaxBytes: number;
  readonly idleMs: number;
  readonly memoryLimitMb: number;
  readonly threads: number;
  readonly queryTimeoutMs: number;
  readonly maxConcurrentQueries: number;
  readonly queueWaitMs: number;
  readonly appendChunkRows = CANVAS_DEFAULTS.appendChunkRows;
  readonly maxTableRows: number;
  readonly maxBytes: number;
  /** CHEMATIC_IMPORT_DIR (real path), or null: canvas_import's path argument is off. */
  readonly importDir: string | null;
  readonly importMaxBytes: number;
  /** CHEMATIC_IMPORT_MAX_COLUMNS: data columns one import may bring. */
  readonly importMaxColumns: number;
  /** CHEMATIC_PROCESS_MAX_MB, in bytes: the resident memory past which a running query is interrupted. */
  readonly processMaxBytes: number;
  readonly querySlots: Semaphore;
  readonly now: () => number;
  readonly onChunk: ((rows: number, how: "appender" | "bulk") => void) | undefined;
  private readonly loader: DuckDbLoader;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** The name and run tag this process puts in the canvas IDs it mints (see canvasIdOrigin). */
  readonly origin: CanvasIdOrigin;
  private readonly canvases = new Map<string, Canvas>();
  /** IDs that expired or were evicted lately, and whose they were, to tell their owner why (bounded). */
  private readonly gone = new Map<string, { why: "expired" | "evicted" | "dropped"; owner: string | null }>();
  private duckdb: Promise<DuckDbModule | null> | undefined;
  private keywordSet: Promise<ReadonlySet<string>> | undefined;
  private loadError: string | null = null;
  private sessionDir: string | null = null;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closing = false;

  constructor(
    config: Pick<CanvasConfig, "enabled" | "dir" | "maxSpillRows"> &
      Partial<
        Pick<
          CanvasConfig,
          | "maxTableRows"
          | "maxBytes"
          | "importDir"
          | "importMaxBytes"
          | "importMaxColumns"
          | "processMaxBytes"
          | "maxCanvasesPerCaller"
          | "callerMaxBytes"
          | "replicaId"
        >
      >,
    options: CanvasManagerOptions = {},
    private readonly offReason = "CHEMATIC_CANVAS=off",
  ) {
    this.enabled = config.enabled;
    this.dir = config.dir;
    this.maxSpillRows = config.maxSpillRows;
    this.loader = options.loader ?? loadDuckDb;
    this.maxCanvases = options.maxCanvases ?? CANVAS_DEFAULTS.maxCanvases;
    this.maxCanvasesPerCaller = Math.min(this.maxCanvases, options.maxCanvasesPerCaller ?? config.maxCanvasesPerCaller ?? DEFAULT_CANVASES_PER_CALLER);
    this.callerMaxBytes = options.callerMaxBytes ?? config.callerMaxBytes ?? DEFAULT_CALLER_MB * 1024 * 1024;
    this.idleMs = options.idleMs ?? CANVAS_DEFAULTS.idleMs;
    this.memoryLimitMb = options.memoryLimitMb ?? memoryLimitFor(config.maxSpillRows);
    this.threads = options.threads ?? CANVAS_DEFAULTS.threads;
    this.queryTimeoutMs = options.queryTimeoutMs ?? CANVAS_DEFAULTS.queryTimeoutMs;
    this.maxConcurrentQueries = options.maxConcurrentQueries ?? CANVAS_DEFAULTS.maxConcurrentQueries;
    this.queueWaitMs = options.queueWaitMs ?? CANVAS_DEFAULTS.queueWaitMs;
    // A spill of CHEMBL_MAX_SPILL_ROWS rows always fits one table.
    this.maxTableRows = Math.max(options.maxTableRows ?? config.maxTableRows ?? CANVAS_DEFAULTS.maxTableRows, config.maxSpillRows);
    this.maxBytes = options.maxBytes ?? config.maxBytes ?? CANVAS_DEFAULTS.maxBytes;
    this.importDir = config.importDir ?? null;
    this.importMaxBytes = config.importMaxBytes ?? 128 * 1024 * 1024;
    this.importMaxColumns = config.importMaxColumns ?? DEFAULT_IMPORT_MAX_COLUMNS;
    this.processMaxBytes = config.processMaxBytes ?? defaultProcessMaxMb() * 1024 * 1024;
    this.querySlots = new Semaphore(this.maxConcurrentQueries);
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => {});
    this.onChunk = options.onChunk;
    this.origin = { replica: config.replicaId ?? randomReplicaId(), run: options.runTag ?? newRunTag() };
  }

  /** Loads DuckDB once; false when the canvas is off or the binding cannot load (logged once). */
  async available(): Promise<boolean> {
    return (await this.module()) !== null;
  }

  /**
   * DuckDB's keywords that SQL cannot use as an unquoted table or column name: its reserved ones (select, order,
   * table) and its type_function ones (semi, join, left), asked of DuckDB itself once. A name a tool makes
   * (canvas_import's table, canvas_annotate's `as`) must not be one, or every query of it would need quotes.
   */
  sqlKeywords(): Promise<ReadonlySet<string>> {
    this.keywordSet ??= (async () => {
      const duckdb = await this.module();
      if (!duckdb) return new Set<string>();
      const instance = await duckdb.DuckDBInstance.create(":memory:", lockedDownOptions({ memoryLimitMb: 64, threads: 1, inMemory: true }));
      try {
        const connection = await instance.connect();
        try {
          const read = await connection.runAndReadAll("SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category IN ('reserved', 'type_function')");
          return new Set(read.getRows().map(([k]) => String(k)));
        } finally {
          connection.closeSync();
        }
      } finally {
        instance.closeSync();
      }
    })();
    return this.keywordSet;
  }

  /** INVALID_ARGUMENTS when `name` (a table or column a tool makes) is one of DuckDB's sqlKeywords. */
  async refuseKeyword(name: string, path: string): Promise<void> {
    if (!(await this.sqlKeywords()).has(name.toLowerCase())) return;
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `${name} is an SQL keyword in DuckDB: a table or column of that name would need quotes in every query`,
      { path, name },
      `Pick another name, e.g. ${name}_set.`,
    );
  }

  /** False once the canvas is known to be unavailable (off, closing, or the binding failed to load); true before DuckDB is tried. */
  mayBeAvailable(): boolean {
    return this.enabled && !this.closing && this.loadError === null;
  }

  /** Why the canvas is unavailable, for messages (null while it is available or not yet tried). */
  get disabledReason(): string | null {
    if (!this.enabled) return this.offReason;
    return this.loadError;
  }

  private module(): Promise<DuckDbModule | null> {
    if (!this.enabled || this.closing) return Promise.resolve(null);
    this.duckdb ??= this.loader().then(
      (m) => m,
      (e: unknown) => {
        this.loadError = `the DuckDB binding could not load (${(e instanceof Error ? e.message : String(e)).split("\n")[0]})`;
        this.log(`canvas off: ${this.loadError}`);
        return null;
      },
    );
    return this.duckdb;
  }

  /** CANVAS_FULL for a table that would hold `rows` rows, past maxTableRows. */
  tooManyRows(name: string, rows: number): ToolError {
    const max = this.maxTableRows;
    return new ToolError(
      "CANVAS_FULL",
      `Table ${name} would hold ${rows} rows; a canvas table holds at most ${max}`,
      { table: name, rows, max_table_rows: max },
      `Import at most ${max} rows into one table: split the set over several tables (another table name), or drop rows you do not need first.`,
    );
  }

  disabledError(): ToolError {
    return new ToolError(
      "CANVAS_DISABLED",
      `The canvas is off on this server: ${this.disabledReason ?? "unavailable"}`,
      { reason: this.disabledReason },
      "Call chembl_get_bioactivities without canvas_id and page through the view with limit and nextCursor instead.",
    );
  }

  /**
   * CANVAS_NOT_FOUND for `id` asked by `owner`, saying why when that is known: the ID names another replica
   * (the call was not routed to the replica holding it) or an earlier run of this one (it restarted since),
   * or the canvas expired, was evicted or dropped. Whether a canvas of another owner exists, or existed, is
   * never told: to anyone but its owner it answers as an unknown ID.
   */
  notFound(id: string, owner: string | null = null): ToolError {
    const origin = canvasIdOrigin(id);
    const shown = origin ? id : "(malformed id)";
    const details = { canvas_id: origin ? id : null };
    const restage = "Re-run chembl_get_bioactivities without canvas_id (same filters) to stage the rows on a new canvas, then query the canvas_id it returns.";
    if (origin && origin.replica !== this.origin.replica) {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} is held by replica ${origin.replica}; this call reached replica ${this.origin.replica}`,
        { ...details, reason: "other_replica", replica: this.origin.replica, canvas_replica: origin.replica },
        "A load balancer routes a canvas call to its replica by the Mcp-Param-Canvas-Id header, which 2026-07-28 clients send and " +
          `clients of earlier protocol versions do not: use a 2026-07-28 client (or an address that reaches replica ${origin.replica}). ${restage}`,
      );
    }
    if (origin && origin.run !== this.origin.run) {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} was made before replica ${origin.replica} restarted; canvases live in the server's memory and do not survive a restart`,
        { ...details, reason: "restarted", replica: this.origin.replica },
        restage,
      );
    }
    const gone = this.gone.get(id);
    const why = gone !== undefined && gone.owner === owner ? gone.why : undefined;
    const what =
      why === "expired"
        ? `expired after ${Math.round(this.idleMs / 60_000)} minutes without use`
        : why === "evicted"
          ? `was closed to make room: your oldest canvas goes when you hold ${this.maxCanvasesPerCaller} canvases or ${Math.round(this.callerMaxBytes / 1048576)} MB of data, ` +
            `and the caller holding the most gives one up when the server holds ${this.maxCanvases}`
          : why === "dropped"
            ? "was dropped"
            : "is unknown on this server (it may have expired, or the server restarted)";
    return new ToolError("CANVAS_NOT_FOUND", `Canvas ${shown} ${what}`, { ...details, reason: why ?? "unknown" }, restage);
  }

  /**
   * The live canvas with this ID (touched), or CANVAS_DISABLED / CANVAS_NOT_FOUND. `owner` is the caller's
   * subject when the server authenticates: a canvas another subject made answers CANVAS_NOT_FOUND, exactly
   * as an unknown ID does.
   */
  async get(id: string, owner: string | null = null): Promise<Canvas> {
    if (!(await this.available())) throw this.disabledError();
    this.sweep();
    const canvas = isCanvasId(id) ? this.canvases.get(id) : undefined;
    if (!canvas || canvas.closed || canvas.owner !== owner) throw this.notFound(id, owner);
    canvas.touch();
    return canvas;
  }

  get size(): number {
    return this.canvases.size;
  }

  ids(): string[] {
    return [...this.canvases.keys()];
  }

  /** A new, empty canvas; the least recently used idle canvas is closed first when the cap is reached. */
  async create(pinned = false, owner: string | null = null): Promise<Canvas> {
    const duckdb = await this.module();
    if (!duckdb) throw this.disabledError();
    this.sweep();
    await this.makeRoomFor(owner);
    const id = newCanvasId(this.origin);
    let instance: DuckDBInstance;
    let file: string | null;
    try {
      file = this.dir ? safeJoin(this.ensureSessionDir(), `${id}.duckdb`) : null;
      instance = await duckdb.DuckDBInstance.create(
        file ?? ":memory:",
        lockedDownOptions({ memoryLimitMb: this.memoryLimitMb, threads: this.threads, inMemory: file === null }),
      );
    } catch (e) {
      // A full disk under CHEMATIC_CANVAS_DIR: no canvas file can be made.
      throw diskFullError(e, this.dir) ?? e;
    }
    const canvas = new Canvas(id, this, duckdb, instance, file, this.now(), owner);
    // Pinned from the start when the caller stages at once: a concurrent create cannot evict it meanwhile.
    if (pinned) canvas.pins++;
    this.canvases.set(id, canvas);
    this.startSweeper();
    return canvas;
  }

  /**
   * Room for one more canvas of `owner`, by the eviction rule (README, "Serving a team"): a caller at its quota of
   * canvases (CHEMATIC_CANVAS_PER_CALLER) or of data (CHEMATIC_CANVAS_CALLER_MB) loses its own least recently used
   * idle canvas, never another's; when the replica holds maxCanvases, the caller holding the most canvases (then the
   * most data) loses its least recently used idle one. A canvas in use (a query or a write running) is never closed:
   * with none idle where one must go, QUOTA_EXCEEDED (the caller's own) or BUSY (the replica's).
   */
  private async makeRoomFor(owner: string | null): Promise<void> {
    const lru = (a: Canvas, b: Canvas) => a.lastUsedAt - b.lastUsedAt;
    const allInUse = () => new ToolError("BUSY", `All ${this.maxCanvases} canvases are in use`, { max_canvases: this.maxCanvases });
    const own = () => [...this.canvases.values()].filter((c) => c.owner === owner);
    const ownBytes = () => own().reduce((n, c) => n + c.usedBytes(), 0);
    while (own().length >= this.maxCanvasesPerCaller || (own().length > 0 && ownBytes() >= this.callerMaxBytes)) {
      const oldest = own()
        .filter((c) => c.pins === 0)
        .sort(lru)[0];
      if (!oldest) {
        // A caller allowed every canvas of the replica (one stdio process with CHEMATIC_CANVAS_PER_CALLER=32) is
        // refused as the replica is: BUSY.
        if (this.maxCanvasesPerCaller >= this.maxCanvases) throw allInUse();
        const byCount = own().length >= this.maxCanvasesPerCaller;
        throw new ToolError(
          "QUOTA_EXCEEDED",
          byCount
            ? `You hold ${own().length} canvases, the most one caller may (CHEMATIC_CANVAS_PER_CALLER), and all are in use`
            : `Your canvases hold about ${ownBytes()} bytes of data, the most one caller may (${this.callerMaxBytes}, CHEMATIC_CANVAS_CALLER_MB), and all are in use`,
          {
            reason: byCount ? "canvases" : "bytes",
            canvases: own().length,
            max_canvases_per_caller: this.maxCanvasesPerCaller,
            max_bytes_per_caller: this.callerMaxBytes,
          },
          "Wait for your running queries to finish, or drop canvases you no longer need (chembl_dataframe_drop), then retry.",
        );
      }
      await this.release(oldest.id, "evicted");
    }
    while (this.canvases.size >= this.maxCanvases) {
      const holdings = new Map<string | null, { count: number; bytes: number; idle: Canvas[] }>();
      for (const c of this.canvases.values()) {
        const h = holdings.get(c.owner) ?? { count: 0, bytes: 0, idle: [] };
        h.count++;
        h.bytes += c.usedBytes();
        if (c.pins === 0) h.idle.push(c);
        holdings.set(c.owner, h);
      }
      const biggest = [...holdings.values()].filter((h) => h.idle.length > 0).sort((a, b) => b.count - a.count || b.bytes - a.bytes)[0];
      if (!biggest) throw allInUse();
      await this.release(biggest.idle.sort(lru)[0]!.id, "evicted");
    }
  }

  /**
   * Stages a table on a canvas created for it: the canvas exists only once the rows are in, and is
   * released again when staging fails (so a failed spill holds no canvas slot).
   */
  async stageOnNewCanvas(
    name: string,
    columns: ColumnSpec[],
    rows: readonly CellValue[][],
    provenance: Record<string, unknown>,
    signal?: AbortSignal,
    owner: string | null = null,
  ): Promise<{ canvas: Canvas; table: TableMeta }> {
    const canvas = await this.create(true, owner);
    try {
      const table = await canvas.stage(name, columns, rows, provenance, signal);
      return { canvas, table };
    } catch (e) {
      await this.release(canvas.id, "dropped");
      throw e;
    } finally {
      canvas.pins--;
    }
  }

  /** Closes one canvas and forgets it (its ID then answers CANVAS_NOT_FOUND saying why). */
  async release(id: string, why: "expired" | "evicted" | "dropped" = "dropped"): Promise<void> {
    const canvas = this.canvases.get(id);
    if (!canvas) return;
    this.canvases.delete(id);
    this.remember(id, why, canvas.owner);
    await canvas.close();
  }

  private remember(id: string, why: "expired" | "evicted" | "dropped", owner: string | null): void {
    this.gone.set(id, { why, owner });
    while (this.gone.size > 1_000) this.gone.delete(this.gone.keys().next().value!);
  }

  /** Closes the canvases idle for longer than idleMs (never one a call holds). */
  sweep(): string[] {
    const now = this.now();
    const expired = [...this.canvases.values()].filter((c) => c.pins === 0 && now - c.lastUsedAt > this.idleMs).map((c) => c.id);
    for (const id of expired) void this.release(id, "expired");
    return expired;
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(60_000, Math.floor(this.idleMs / 2))));
    this.sweeper.unref();
  }

  /** The per-process directory inside CHEMATIC_CANVAS_DIR (created on the first file-backed canvas). */
  private ensureSessionDir(): string {
    if (!this.dir) throw new Error("no canvas directory");
    if (!this.sessionDir) {
      const made = realpathSync(mkdtempSync(join(this.dir, "chematic-canvas-")));
      if (!isInside(this.dir, made)) throw new Error("the canvas directory escaped CHEMATIC_CANVAS_DIR");
      this.sessionDir = made;
    }
    return this.sessionDir;
  }

  /** Deletes a file-backed canvas's database, WAL and temp directory (paths re-derived and guarded). */
  deleteFiles(canvas: Canvas): void {
    if (!canvas.file || !this.sessionDir) return;
    for (const name of [`${canvas.id}.duckdb`, `${canvas.id}.duckdb.wal`, `${canvas.id}.duckdb.tmp`]) {
      try {
        rmSync(safeJoin(this.sessionDir, name), { recursive: true, force: true });
      } catch (e) {
        this.log(`canvas ${canvas.id}: could not delete ${name}: ${(e as Error).message}`);
      }
    }
  }

  /** Closes every canvas and removes the per-process directory. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all(this.ids().map((id) => this.release(id, "dropped")));
    if (this.sessionDir && this.dir && isInside(this.dir, this.sessionDir)) {
      try {
        rmSync(this.sessionDir, { recursive: true, force: true });
      } catch (e) {
        this.log(`could not remove ${this.sessionDir}: ${(e as Error).message}`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The process-wide manager

let shared: CanvasManager | undefined;
const notInitialised = new CanvasManager({ enabled: false, dir: null, maxSpillRows: 50_000 }, {}, "the canvas was not initialised in this process");

/** The manager the registered tools use; before initCanvasManager, a manager whose canvas is off. */
export function getCanvasManager(): CanvasManager {
  return shared ?? notInitialised;
}

/** Installs the manager built from the start-up config (createApp calls this once). */
export function initCanvasManager(config: CanvasConfig, options: CanvasManagerOptions = {}): CanvasManager {
  shared = new CanvasManager(config, options);
  return shared;
}
