/**
 * A canvas's bounds: the defaults, the options a manager is built with, and what each canvas asks of its manager
 * (CanvasHost: the bounds, the clock, the shared query slots and the refusals it words). The rooms read these;
 * only the manager (manager.ts) decides them.
 */
import type { ToolError } from "../errors.js";
import type { Semaphore } from "../semaphore.js";
import type { Canvas } from "./canvas.js";
import type { DuckDbLoader } from "./duckdb.js";

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

/** The memory limit of one canvas: room for two views of maxSpillRows rows, each twice during a swap. */
export function memoryLimitFor(maxSpillRows: number): number {
  return Math.max(CANVAS_DEFAULTS.memoryLimitMb, Math.ceil((maxSpillRows / 50_000) * CANVAS_DEFAULTS.memoryLimitMb));
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

/** What a canvas and its rooms ask of the manager that made it. */
export interface CanvasHost {
  /** CHEMATIC_CANVAS_DIR, or null: canvases live in memory. */
  readonly dir: string | null;
  readonly maxTableRows: number;
  readonly maxBytes: number;
  readonly memoryLimitMb: number;
  readonly appendChunkRows: number;
  readonly queryTimeoutMs: number;
  readonly maxConcurrentQueries: number;
  readonly queueWaitMs: number;
  /** CHEMATIC_PROCESS_MAX_MB, in bytes. */
  readonly processMaxBytes: number;
  /** Query slots shared by every canvas of the process, handed round-robin across callers. */
  readonly querySlots: Semaphore;
  readonly now: () => number;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  readonly onChunk: ((rows: number, how: "appender" | "bulk") => void) | undefined;
  /** CANVAS_NOT_FOUND for this ID and caller (a canvas closed under a call answers as a gone one). */
  notFound(id: string, owner: string | null): ToolError;
  /** CANVAS_FULL for a table of `rows` rows, past maxTableRows. */
  tooManyRows(name: string, rows: number): ToolError;
  /**
   * Brings a file-backed canvas's sidecar up to date (no-op in memory): after each write turn, and at close
   * (`final`) when the canvas stays on disk.
   */
  persist(canvas: Canvas, final?: boolean): void;
}
