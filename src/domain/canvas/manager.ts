/**
 * Every canvas of the process, coordinated: DuckDB loaded once (or the reason the canvas is off), canvases made,
 * found by ID for their owner, expired when idle, evicted by the quotas (quotas.ts), and closed; the refusals that
 * name the whole canvas service (off, not found, too many rows). What happens inside a canvas is canvas.ts's and
 * its rooms'.
 *
 * File-backed canvases (CHEMATIC_CANVAS_DIR) outlive their DuckDB instance: idle expiry, eviction and the server's
 * exit only close them ("on disk"), and get() reopens one for its owner on the next call, in this run or a later
 * one (reopen.ts); a drop deletes the files. A canvas unused for CHEMATIC_CANVAS_KEEP_DAYS is deleted by the disk
 * sweep (at start, then every ten minutes), its sidecar left as a tombstone for as long again.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import {
  DEFAULT_CALLER_MB,
  DEFAULT_CANVAS_KEEP_DAYS,
  DEFAULT_CANVASES_PER_CALLER,
  DEFAULT_IMPORT_MAX_COLUMNS,
  defaultProcessMaxMb,
  type CanvasConfig,
} from "../../config.js";
import { ToolError } from "../errors.js";
import { Semaphore } from "../semaphore.js";
import { Canvas } from "./canvas.js";
import { diskFullError } from "./duckdb-errors.js";
import { loadDuckDb, type DuckDbLoader, type DuckDbModule } from "./duckdb.js";
import { CanvasFiles } from "./files.js";
import { canvasIdOrigin, isCanvasId, newCanvasId, newRunTag, randomReplicaId, type CanvasIdOrigin } from "./ids.js";
import { LostCanvases, type GoneWhy, type OnDisk } from "./lost.js";
import { makeRoomFor } from "./quotas.js";
import { reopenCanvas } from "./reopen.js";
import { SIDECAR_FORMAT, type LiveSidecar } from "./sidecar.js";
import { CANVAS_DEFAULTS, memoryLimitFor, type CanvasHost, type CanvasManagerOptions } from "./settings.js";
import { lockedDownOptions } from "./sql-guard.js";
import type { CellValue, ColumnSpec, TableMeta } from "./tables.js";

/** One of a caller's canvases as chembl_dataframe_describe lists them: open here, on disk (closed), or lost (its database gone). */
export interface CanvasListing {
  canvas_id: string;
  state: "open" | "on_disk" | "lost";
  last_used_at: string;
  tables: Array<{ name: string; row_count: number }>;
}

const DAY_MS = 86_400_000;
/** How often the disk sweep (retention) runs, and how stale an open canvas's saved last use may grow before it is rewritten. */
const DISK_SWEEP_MS = 10 * 60_000;
/** How long a reopen waits for this process's earlier instance of the same file to close (a query it could not interrupt). */
const SHUT_WAIT_MS = 5_000;

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
  /** CHEMATIC_CANVAS_KEEP_DAYS: days a file-backed canvas stays on disk unused. */
  readonly keepDays: number;
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
  /** Canvases being reopened, so two calls at once open one instance of the file. */
  private readonly reopening = new Map<string, Promise<Canvas | undefined>>();
  /** Closed canvases whose instance may still hold their file (see Canvas.shut). */
  private readonly shutting = new Map<string, Promise<void>>();
  /** What each open file-backed canvas's sidecar last said (its tables and bookkeeping, its last use), to skip rewriting the same. */
  private readonly saved = new WeakMap<Canvas, { body: string; lastUsedAt: number }>();
  private lastDiskSweep = Number.NEGATIVE_INFINITY;
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
          | "keepDays"
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
    this.keepDays = config.keepDays ?? DEFAULT_CANVAS_KEEP_DAYS;
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
    // The retention runs at start: what earlier runs left past CHEMATIC_CANVAS_KEEP_DAYS goes before anything is listed.
    if (this.enabled && this.dir) {
      this.sweepDisk();
      this.startSweeper();
    }
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
    return this.lost.notFound(id, owner, this, this.onDisk(id, owner));
  }

  /**
   * What the canvas directory says of `id` to `owner`: another owner's files read as absent, so its answer is an
   * unknown ID's; a canvas still on disk (closed under a call that held it) reads as absent in this run's IDs too.
   */
  private onDisk(id: string, owner: string | null): OnDisk {
    if (!this.dir) return undefined;
    if (!isCanvasId(id) || !this.mayReopen(id)) return { kind: "absent" };
    const sidecar = this.files.readSidecar(id);
    if (!sidecar || sidecar.owner !== owner) return { kind: "absent" };
    if (sidecar.state !== "live") return { kind: "tombstone", why: sidecar.state };
    return this.files.hasDatabase(id) ? undefined : { kind: "lost" };
  }

  /**
   * Whether this process may open canvas `id` from the directory: any ID when replicas are unnamed (each start draws a
   * new name), only its own replica's when they are named (another replica's canvas is that replica's to open).
   */
  private mayReopen(id: string): boolean {
    const origin = canvasIdOrigin(id);
    return origin !== undefined && (!this.replicated || origin.replica === this.origin.replica);
  }

  /**
   * The canvas with this ID (touched), or CANVAS_DISABLED / CANVAS_NOT_FOUND. A file-backed canvas on disk is
   * reopened for its owner (BUSY when another process holds its file). `owner` is the caller's subject when the
   * server authenticates: a canvas another subject made answers CANVAS_NOT_FOUND, exactly as an unknown ID does.
   */
  async get(id: string, owner: string | null = null): Promise<Canvas> {
    if (!(await this.available())) throw this.disabledError();
    this.sweep();
    if (!isCanvasId(id)) throw this.notFound(id, owner);
    let canvas = this.canvases.get(id);
    if (!canvas && this.dir && this.mayReopen(id)) canvas = await this.reopen(id, owner);
    if (!canvas || canvas.closed || canvas.owner !== owner) throw this.notFound(id, owner);
    canvas.touch();
    return canvas;
  }

  /** The live sidecar of `id` when `owner` may reopen it and its database is there. */
  private reopenable(id: string, owner: string | null): LiveSidecar | undefined {
    const sidecar = this.files.readSidecar(id);
    return sidecar && sidecar.state === "live" && sidecar.owner === owner && this.files.hasDatabase(id) ? sidecar : undefined;
  }

  /** Canvas `id` reopened from disk for `owner`, or undefined when the directory holds no live canvas of theirs by that ID. */
  private async reopen(id: string, owner: string | null): Promise<Canvas | undefined> {
    // The owner is checked before joining a reopen under way: another caller learns nothing, not even BUSY.
    if (!this.reopenable(id, owner)) return undefined;
    let pending = this.reopening.get(id);
    if (!pending) {
      pending = this.openFromDisk(id, owner).finally(() => this.reopening.delete(id));
      this.reopening.set(id, pending);
    }
    return pending;
  }

  private async openFromDisk(id: string, owner: string | null): Promise<Canvas | undefined> {
    const duckdb = await this.module();
    if (!duckdb) throw this.disabledError();
    const shut = this.shutting.get(id);
    if (shut) {
      const done = await Promise.race([shut.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), SHUT_WAIT_MS).unref())]);
      if (!done) {
        throw new ToolError(
          "BUSY",
          `Canvas ${id} is still closing (a query on it has not stopped yet)`,
          { canvas_id: id, reason: "canvas_closing" },
          "Retry in a few seconds.",
        );
      }
    }
    // Read again once this process's earlier instance is closed: a drop meanwhile left a tombstone, not a canvas (and
    // DuckDB would make a new, empty database where the file was deleted).
    const sidecar = this.reopenable(id, owner);
    if (!sidecar) return undefined;
    await makeRoomFor(this.canvases, owner, this, (other) => this.release(other, "evicted"));
    const canvas = await reopenCanvas(this, duckdb, sidecar, this.files.fileFor(id)!, {
      memoryLimitMb: this.memoryLimitMb,
      threads: this.threads,
      fileMtime: this.files.databaseMtime(id) ?? this.now(),
    });
    if (this.closing) {
      await canvas.close(true);
      throw this.disabledError();
    }
    this.canvases.set(id, canvas);
    this.persist(canvas, true);
    this.startSweeper();
    return canvas;
  }

  /**
   * `owner`'s canvases, open here or on disk (file-backed: closed when idle, or left by an earlier run), most recently
   * used first; a canvas whose database is gone is listed as lost. Read from the sidecars: nothing is opened.
   */
  list(owner: string | null = null): CanvasListing[] {
    const out: CanvasListing[] = [];
    for (const c of this.canvases.values()) {
      if (c.closed || c.owner !== owner) continue;
      out.push({
        canvas_id: c.id,
        state: "open",
        last_used_at: new Date(c.lastUsedAt).toISOString(),
        tables: c.describe().map((t) => ({ name: t.name, row_count: t.row_count })),
      });
    }
    for (const id of this.files.scan().sidecars) {
      if (this.canvases.has(id) || !this.mayReopen(id)) continue;
      const s = this.files.readSidecar(id);
      if (!s || s.state !== "live" || s.owner !== owner) continue;
      out.push({
        canvas_id: id,
        state: this.files.hasDatabase(id) ? "on_disk" : "lost",
        last_used_at: s.last_used_at,
        tables: [...s.tables].sort((a, b) => a.name.localeCompare(b.name)).map((t) => ({ name: t.name, row_count: t.row_count })),
      });
    }
    return out.sort((a, b) => b.last_used_at.localeCompare(a.last_used_at) || a.canvas_id.localeCompare(b.canvas_id));
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
      this.files.deleteData(id);
      // A full disk under CHEMATIC_CANVAS_DIR: no canvas file can be made.
      throw diskFullError(e, this.dir) ?? e;
    }
    const canvas = new Canvas(id, this, duckdb, instance, file, this.now(), owner);
    // Pinned from the start when the caller stages at once: a concurrent create cannot evict it meanwhile.
    if (pinned) canvas.pins++;
    this.canvases.set(id, canvas);
    // Its sidecar from the start: a restart finds the canvas (and its owner) even before its first table.
    this.persist(canvas, true);
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

  /**
   * Closes one canvas. In memory it is gone (its ID then answers CANVAS_NOT_FOUND saying why); a file-backed one
   * expired or evicted stays on disk, to be reopened, and a dropped one has its files deleted (a tombstone says so).
   */
  async release(id: string, why: GoneWhy = "dropped"): Promise<void> {
    const canvas = this.canvases.get(id);
    if (!canvas) return;
    this.canvases.delete(id);
    const keep = canvas.file !== null && why !== "dropped";
    if (!keep) this.lost.remember(id, why, canvas.owner);
    const closed = canvas.close(keep);
    if (canvas.file !== null) {
      // From now until its instance is closed (at once, unless a query would not stop) the file is not opened again
      // here: two instances of one file in one process would not see each other's lock.
      const shut: Promise<void> = closed
        .then(() => canvas.shut)
        .finally(() => {
          if (this.shutting.get(id) === shut) this.shutting.delete(id);
        });
      this.shutting.set(id, shut);
    }
    await closed;
    if (canvas.file === null || keep) return;
    // The tombstone first, so a reopen that waited for the close finds it. A canvas that never held a table (a spill
    // made ready and not needed, a failed first stage) was never named to anyone: it leaves no tombstone.
    if (canvas.tables.size > 0) {
      this.files.writeSidecar({ format: SIDECAR_FORMAT, id, owner: canvas.owner, state: "dropped", gone_at: new Date(this.now()).toISOString() });
    } else {
      this.files.deleteSidecar(id);
    }
    this.files.deleteData(id);
  }

  /**
   * Closes the canvases idle for longer than idleMs (never one a call holds); with a canvas directory, refreshes the
   * saved last use of canvases in use and runs the disk sweep (retention) every ten minutes.
   */
  sweep(): string[] {
    const now = this.now();
    const expired = [...this.canvases.values()].filter((c) => c.pins === 0 && now - c.lastUsedAt > this.idleMs).map((c) => c.id);
    for (const id of expired) void this.release(id, "expired");
    if (this.dir && now - this.lastDiskSweep >= DISK_SWEEP_MS) {
      // Read-only use does not write the sidecar: its last use is brought up to date here, outside any call.
      for (const c of this.canvases.values()) if (c.pins === 0 && !c.closed) this.persist(c);
      this.sweepDisk();
    }
    return expired;
  }

  /** The retention (files.ts `retain`), leaving alone the canvases open or opening in this process. */
  sweepDisk(): void {
    if (!this.dir) return;
    this.lastDiskSweep = this.now();
    const inUse = (id: string) => this.canvases.has(id) || this.reopening.has(id);
    for (const id of this.files.retain(this.lastDiskSweep, this.keepDays * DAY_MS, inUse)) {
      this.log(`canvas ${id} deleted: unused for ${this.keepDays} days (CHEMATIC_CANVAS_KEEP_DAYS)`, { canvas_id: id });
    }
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(60_000, Math.floor(this.idleMs / 2))));
    this.sweeper.unref();
  }

  /**
   * Writes a file-backed canvas's sidecar (CanvasHost): when its tables or bookkeeping changed since the last write,
   * when its last use is more than the sweep period newer than the saved one, or always when `final`.
   */
  persist(canvas: Canvas, final = false): void {
    if (canvas.file === null || !this.dir) return;
    const tables = canvas.describe();
    const annotations = canvas.annotations.snapshot();
    const body = JSON.stringify([tables, annotations]);
    const saved = this.saved.get(canvas);
    if (!final && saved && saved.body === body && canvas.lastUsedAt - saved.lastUsedAt < DISK_SWEEP_MS) return;
    const written = this.files.writeSidecar({
      format: SIDECAR_FORMAT,
      id: canvas.id,
      owner: canvas.owner,
      state: "live",
      created_at: new Date(canvas.createdAt).toISOString(),
      last_used_at: new Date(canvas.lastUsedAt).toISOString(),
      tables,
      annotations,
    });
    if (written) this.saved.set(canvas, { body, lastUsedAt: canvas.lastUsedAt });
  }

  /** Closes every canvas: in memory they are gone, file-backed ones stay on disk for the next run. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all(this.ids().map((id) => this.release(id, this.dir ? "expired" : "dropped")));
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
