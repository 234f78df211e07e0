/**
 * Every canvas of the process, coordinated: DuckDB loaded once (or the reason the canvas is off), canvases made,
 * found by ID for their owner, expired when idle, evicted by the quotas (quotas.ts), and closed; the refusals that
 * name the whole canvas service (off, not found, too many rows). What happens inside a canvas is canvas.ts's and
 * its rooms'.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { DEFAULT_CALLER_MB, DEFAULT_CANVASES_PER_CALLER, DEFAULT_IMPORT_MAX_COLUMNS, defaultProcessMaxMb, type CanvasConfig } from "../../config.js";
import { ToolError } from "../errors.js";
import { Semaphore } from "../semaphore.js";
import { Canvas } from "./canvas.js";
import { diskFullError } from "./duckdb-errors.js";
import { loadDuckDb, type DuckDbLoader, type DuckDbModule } from "./duckdb.js";
import { CanvasFiles } from "./files.js";
import { isCanvasId, newCanvasId, newRunTag, randomReplicaId, type CanvasIdOrigin } from "./ids.js";
import { LostCanvases, type GoneWhy } from "./lost.js";
import { makeRoomFor } from "./quotas.js";
import { CANVAS_DEFAULTS, memoryLimitFor, type CanvasHost, type CanvasManagerOptions } from "./settings.js";
import { lockedDownOptions } from "./sql-guard.js";
import type { CellValue, ColumnSpec, TableMeta } from "./tables.js";

export class CanvasManager implements CanvasHost {
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
  /** CHEMATIC_EXPORT_DIR (real path), or null: canvas_export is off. */
  readonly exportDir: string | null;
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
  /** CHEMATIC_REPLICA_ID is set: replicas are named, so an ID's replica part names one. */
  readonly replicated: boolean;
  private readonly canvases = new Map<string, Canvas>();
  private readonly lost = new LostCanvases();
  private readonly files: CanvasFiles;
  private duckdb: Promise<DuckDbModule | null> | undefined;
  private keywordSet: Promise<ReadonlySet<string>> | undefined;
  private loadError: string | null = null;
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
          | "exportDir"
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
    this.exportDir = config.exportDir ?? null;
    this.importMaxBytes = config.importMaxBytes ?? 128 * 1024 * 1024;
    this.importMaxColumns = config.importMaxColumns ?? DEFAULT_IMPORT_MAX_COLUMNS;
    this.processMaxBytes = config.processMaxBytes ?? defaultProcessMaxMb() * 1024 * 1024;
    this.querySlots = new Semaphore(this.maxConcurrentQueries);
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => {});
    this.onChunk = options.onChunk;
    this.origin = { replica: config.replicaId ?? randomReplicaId(), run: options.runTag ?? newRunTag() };
    this.replicated = config.replicaId !== undefined && config.replicaId !== null;
    this.files = new CanvasFiles(this.dir, (m) => this.log(m));
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

  /** CANVAS_NOT_FOUND for `id` asked by `owner`, saying why when that is known (lost.ts). */
  notFound(id: string, owner: string | null = null): ToolError {
    return this.lost.notFound(id, owner, this);
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

  /** A new, empty canvas; the quotas (quotas.ts) make room first. */
  async create(pinned = false, owner: string | null = null): Promise<Canvas> {
    const duckdb = await this.module();
    if (!duckdb) throw this.disabledError();
    this.sweep();
    await makeRoomFor(this.canvases, owner, this, (id) => this.release(id, "evicted"));
    const id = newCanvasId(this.origin);
    let instance: DuckDBInstance;
    let file: string | null;
    try {
      file = this.files.fileFor(id);
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
  async release(id: string, why: GoneWhy = "dropped"): Promise<void> {
    const canvas = this.canvases.get(id);
    if (!canvas) return;
    this.canvases.delete(id);
    this.lost.remember(id, why, canvas.owner);
    await canvas.close();
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

  /** Deletes a closed canvas's files (CanvasHost). */
  deleteFiles(canvas: { readonly id: string; readonly file: string | null }): void {
    this.files.delete(canvas);
  }

  /** Closes every canvas and removes the per-process directory. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all(this.ids().map((id) => this.release(id, "dropped")));
    this.files.removeAll();
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
