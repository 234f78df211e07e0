/** Environment configuration, parsed strictly: a bad value stops start-up naming the variable. */
import { availableParallelism, totalmem } from "node:os";
import { existsSync, mkdirSync, realpathSync, statSync, accessSync, constants as fsConstants } from "node:fs";
import { dirname, isAbsolute, normalize, resolve as resolvePath, sep } from "node:path";

export class ConfigError extends Error {}

export function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === "") return fallback;
  const v = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be a boolean (true/false/1/0/yes/no/on/off), got "${value}"`);
}

function parseInteger(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value.trim())) throw new ConfigError(`${name} must be a whole number, got "${value}"`);
  const n = Number(value.trim());
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export interface Config {
  /** Chemistry worker threads (CHEMATIC_WORKERS, default: available cores). */
  workers: number;
  /** Calls that may wait for a worker before BUSY (CHEMATIC_MAX_QUEUE, default 256). */
  maxQueue: number;
  /** The ChEMBL upstream (CHEMBL_* and CHEMATIC_OFFLINE). */
  chembl: ChemblConfig;
  /** The bioactivity canvas (CHEMATIC_CANVAS, CHEMATIC_CANVAS_DIR, CHEMBL_MAX_SPILL_ROWS, CHEMBL_DATAFRAME_DROP_ENABLED). */
  canvas: CanvasConfig;
  /** CHEMATIC_APPS (auto): who is shown the MCP Apps: auto the clients that declare the extension, on every client, off none. */
  apps: "auto" | "on" | "off";
}

function parseApps(value: string | undefined): Config["apps"] {
  if (value === undefined || value.trim() === "") return "auto";
  const v = value.trim().toLowerCase();
  if (v === "auto" || v === "on" || v === "off") return v;
  throw new ConfigError(`CHEMATIC_APPS must be auto, on or off, got "${value}"`);
}

export const CHEMBL_DEFAULT_BASE_URL = "https://www.ebi.ac.uk/chembl/api/data";

export interface ChemblConfig {
  /** CHEMBL_API_BASE_URL: the data API root (a mirror or a test server), no trailing slash. */
  apiBaseUrl: string;
  /** CHEMBL_REQUEST_TIMEOUT_MS (30000): one upstream request. */
  requestTimeoutMs: number;
  /** CHEMBL_DEADLINE_MS (45000): one tool call or resource read, retries and chained requests included. */
  deadlineMs: number;
  /** CHEMBL_MAX_CONCURRENT_PAGES (4, 1 to 6): upstream requests in flight at once, service-wide. */
  maxConcurrentPages: number;
  /**
   * CHEMBL_SPILL_DEADLINE_MS (45000, 10 to 600 s): how long a spill's walk may read pages. A call without a
   * progress token is held to SPILL_DEADLINE_CAP_MS (its answer must land before the client's 60 s timeout);
   * one with a token may run the whole deadline, its progress keeping the client's timeout alive.
   */
  spillDeadlineMs: number;
  /** CHEMBL_MAX_PAGE_SIZE (1000, 1 to 1000): rows one upstream list request asks for at most. */
  maxPageSize: number;
  /** CHEMBL_DEFAULT_LIMIT (25, 1 to 100): rows an inline page holds when the call gives no limit. */
  defaultLimit: number;
  /** CHEMATIC_OFFLINE: every networked tool answers OFFLINE. */
  offline: boolean;
  /**
   * CHEMBL_SQLITE: an official ChEMBL SQLite dump (chembl_NN.db), opened read-only; every ChEMBL tool and
   * resource then answers from it (even under CHEMATIC_OFFLINE). Unset: the web API.
   */
  sqlitePath?: string;
}

const DEFAULT_SPILL_DEADLINE_MS = 45_000;
/** A spill without a progress token answers within this (the client's 60 s timeout is not reset). */
export const SPILL_DEADLINE_CAP_MS = 54_000;
const DEFAULT_PAGE_LIMIT = 25;
/** ChEMBL's paginator refuses a limit above 1000. */
const CHEMBL_PAGE_CEILING = 1000;

export function loadChemblConfig(env: NodeJS.ProcessEnv = process.env): ChemblConfig {
  const raw = env.CHEMBL_API_BASE_URL?.trim() || CHEMBL_DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`CHEMBL_API_BASE_URL must be an http(s) URL, got "${raw}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`CHEMBL_API_BASE_URL must be an http(s) URL without query, fragment or credentials, got "${raw}"`);
  }
  return {
    apiBaseUrl: url.href.replace(/\/+$/, ""),
    requestTimeoutMs: parseInteger("CHEMBL_REQUEST_TIMEOUT_MS", env.CHEMBL_REQUEST_TIMEOUT_MS, 30_000, 50, 300_000),
    deadlineMs: parseInteger("CHEMBL_DEADLINE_MS", env.CHEMBL_DEADLINE_MS, 45_000, 100, 54_000),
    maxConcurrentPages: parseInteger("CHEMBL_MAX_CONCURRENT_PAGES", env.CHEMBL_MAX_CONCURRENT_PAGES, 4, 1, 6),
    spillDeadlineMs: parseInteger("CHEMBL_SPILL_DEADLINE_MS", env.CHEMBL_SPILL_DEADLINE_MS, DEFAULT_SPILL_DEADLINE_MS, 10_000, 600_000),
    maxPageSize: parseInteger("CHEMBL_MAX_PAGE_SIZE", env.CHEMBL_MAX_PAGE_SIZE, CHEMBL_PAGE_CEILING, 1, CHEMBL_PAGE_CEILING),
    defaultLimit: parseInteger("CHEMBL_DEFAULT_LIMIT", env.CHEMBL_DEFAULT_LIMIT, DEFAULT_PAGE_LIMIT, 1, 100),
    offline: parseBoolean("CHEMATIC_OFFLINE", env.CHEMATIC_OFFLINE, false),
    ...(env.CHEMBL_SQLITE?.trim() ? { sqlitePath: resolvePath(env.CHEMBL_SQLITE.trim()) } : {}),
  };
}

export interface CanvasConfig {
  /** CHEMATIC_CANVAS: "duckdb" (default) stages large bioactivity views in DuckDB; "off" answers inline only. */
  enabled: boolean;
  /** CHEMATIC_CANVAS_DIR: an existing, writable directory (real path) for file-backed canvases; null keeps them in memory. */
  dir: string | null;
  /** CHEMATIC_CANVAS_KEEP_DAYS (7): days a file-backed canvas stays on disk unused before its files are deleted. */
  keepDays: number;
  /** CHEMBL_MAX_SPILL_ROWS (50000): rows one spill stages at most. */
  maxSpillRows: number;
  /** CHEMBL_DATAFRAME_DROP_ENABLED (false): registers chembl_dataframe_drop. */
  dropEnabled: boolean;
  /** CHEMATIC_CANVAS_MAX_TABLE_ROWS (100000): rows one canvas table holds at most (a spill's cap always fits). */
  maxTableRows: number;
  /** CHEMATIC_CANVAS_MAX_MB (256), in bytes: estimated data one canvas holds at most over all its tables. */
  maxBytes: number;
  /** CHEMATIC_IMPORT_DIR: an existing, readable directory (real path) canvas_import may read files from; null (default) switches path imports off. */
  importDir: string | null;
  /** CHEMATIC_EXPORT_DIR: an existing, writable directory (real path) canvas_export writes into; null (default) switches exports off. */
  exportDir: string | null;
  /** CHEMATIC_IMPORT_MAX_MB (128), in bytes: the largest file (or .sdf.gz content) canvas_import reads. */
  importMaxBytes: number;
  /** CHEMATIC_IMPORT_MAX_COLUMNS (1000): data columns (CSV columns, distinct SDF data items) one import may bring. */
  importMaxColumns: number;
  /** CHEMATIC_PROCESS_MAX_MB, in bytes: the resident memory past which a running canvas query is interrupted. */
  processMaxBytes: number;
  /** CHEMATIC_CANVAS_PER_CALLER (8): canvases one caller (token label, OAuth subject, the stdio process) holds at most. */
  maxCanvasesPerCaller: number;
  /** CHEMATIC_CANVAS_CALLER_MB (1024), in bytes: estimated data one caller's canvases hold at most together. */
  callerMaxBytes: number;
  /**
   * CHEMATIC_REPLICA_ID: this process's name in the canvas IDs it mints (a load balancer routes canvas calls
   * by it); null (unset) picks a random name at each start.
   */
  replicaId: string | null;
}

/**
 * Data columns one canvas_import may bring (CHEMATIC_IMPORT_MAX_COLUMNS). A CSV of 10,000 columns ended in an
 * internal error and 50,000 took 1.6 GB: each column is a DuckDB column with its own buffers. 1,000 is far past
 * any descriptor export a chemist stages (RDKit's full descriptor set is about 210 columns).
 */
export const DEFAULT_IMPORT_MAX_COLUMNS = 1_000;

/**
 * Each caller's share of a replica's 32 canvases (CHEMATIC_CANVAS_PER_CALLER) and of their data (CHEMATIC_CANVAS_CALLER_MB):
 * at its quota a caller loses its own oldest canvas, never another's (an audit saw 40 canvases of one bearer label
 * close another label's). 8 canvases leave room for four callers at their quota; 1,024 MB is four full canvases.
 */
export const DEFAULT_CANVASES_PER_CALLER = 8;
export const DEFAULT_CALLER_MB = 1_024;

/**
 * The resident memory (MB) past which a running canvas query is interrupted (CHEMATIC_PROCESS_MAX_MB): half the
 * machine's memory, at most 4,096 and at least 1,024, so one caller's query cannot push the process into the
 * kernel's out-of-memory killer, which would end every canvas.
 */
export function defaultProcessMaxMb(): number {
  return Math.max(1_024, Math.min(4_096, Math.floor(totalmem() / 1048576 / 2)));
}

/** A replica name (CHEMATIC_REPLICA_ID): 1 to 16 lower-case letters and digits, so an nginx map can match it plainly. */
const REPLICA_ID_PATTERN = /^[a-z0-9]{1,16}$/;

export function parseReplicaId(value: string | undefined): string | null {
  if (value === undefined || value.trim() === "") return null;
  const v = value.trim();
  if (!REPLICA_ID_PATTERN.test(v)) throw new ConfigError(`CHEMATIC_REPLICA_ID must be 1 to 16 lower-case letters and digits, got "${value}"`);
  return v;
}

const DEFAULT_MAX_SPILL_ROWS = 50_000;

/**
 * Days a file-backed canvas stays on disk without use (CHEMATIC_CANVAS_KEEP_DAYS): a week covers a work week's
 * pauses and restarts, while the directory does not grow without bound.
 */
export const DEFAULT_CANVAS_KEEP_DAYS = 7;

/**
 * CHEMATIC_CANVAS_DIR, guarded: an absolute path with no "." or ".." segment and no control character,
 * naming an existing writable directory. The answer is its real path (symlinks resolved), so every path
 * the canvas derives from it can be checked to stay inside it. With `create` (CHEMATIC_CREATE_DIRS, for the
 * import and export directories only) a missing directory is made first when at most its last two folders are missing.
 */
export function parseCanvasDir(name: string, value: string | undefined, writable = true, create = false): string | null {
  if (value === undefined || value.trim() === "") return null;
  const raw = value.trim();
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new ConfigError(`${name} must not contain control characters`);
  if (!isAbsolute(raw)) throw new ConfigError(`${name} must be an absolute path, got "${raw}"`);
  if (raw.split(/[\\/]+/).some((seg) => seg === "." || seg === "..")) throw new ConfigError(`${name} must not contain "." or ".." segments, got "${raw}"`);
  if (create) createMissingDir(name, raw);
  let real: string;
  try {
    real = realpathSync(normalize(raw));
    if (!statSync(real).isDirectory()) throw new Error("not a directory");
    accessSync(real, fsConstants.R_OK | (writable ? fsConstants.W_OK : 0) | fsConstants.X_OK);
  } catch (e) {
    throw new ConfigError(
      `${name} must name an existing ${writable ? "writable" : "readable"} directory, got "${raw}" (${(e as Error).message.split("\n")[0]})`,
    );
  }
  if (real === sep) throw new ConfigError(`${name} must not be the file system root`);
  return real;
}

/**
 * CHEMATIC_CREATE_DIRS: a missing import or export directory is made (mode 0700) when at most its last two folders are
 * missing, e.g. the Claude Desktop bundle's default <Documents>/chematic/import on a first start. Further up, the path
 * is more likely a typo (a misspelt home or drive) than a folder to make, and start-up is refused as without it.
 */
const CREATABLE_LEVELS = 2;

function createMissingDir(name: string, raw: string): void {
  const path = normalize(raw);
  if (existsSync(path)) return;
  let base = dirname(path);
  for (let level = 1; level < CREATABLE_LEVELS && !existsSync(base); level++) base = dirname(base);
  if (!existsSync(base)) {
    throw new ConfigError(
      `${name} must name an existing directory, got "${raw}": CHEMATIC_CREATE_DIRS makes at most its last ${CREATABLE_LEVELS} folders, and "${base}" does not exist either`,
    );
  }
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new ConfigError(`${name}: could not create "${raw}" (${(e as Error).message.split("\n")[0]})`);
  }
}

export function loadCanvasConfig(env: NodeJS.ProcessEnv = process.env): CanvasConfig {
  const mode = (env.CHEMATIC_CANVAS ?? "").trim().toLowerCase();
  if (mode !== "" && mode !== "duckdb" && mode !== "off") throw new ConfigError(`CHEMATIC_CANVAS must be duckdb or off, got "${env.CHEMATIC_CANVAS}"`);
  const enabled = mode !== "off";
  const create = parseBoolean("CHEMATIC_CREATE_DIRS", env.CHEMATIC_CREATE_DIRS, false);
  return {
    enabled,
    dir: enabled ? parseCanvasDir("CHEMATIC_CANVAS_DIR", env.CHEMATIC_CANVAS_DIR) : null,
    keepDays: parseInteger("CHEMATIC_CANVAS_KEEP_DAYS", env.CHEMATIC_CANVAS_KEEP_DAYS, DEFAULT_CANVAS_KEEP_DAYS, 1, 3_650),
    maxSpillRows: parseInteger("CHEMBL_MAX_SPILL_ROWS", env.CHEMBL_MAX_SPILL_ROWS, DEFAULT_MAX_SPILL_ROWS, 1, 1_000_000),
    dropEnabled: dataframeDropEnabled(env),
    maxTableRows: parseInteger("CHEMATIC_CANVAS_MAX_TABLE_ROWS", env.CHEMATIC_CANVAS_MAX_TABLE_ROWS, 100_000, 1, 10_000_000),
    maxBytes: parseInteger("CHEMATIC_CANVAS_MAX_MB", env.CHEMATIC_CANVAS_MAX_MB, 256, 1, 65_536) * 1024 * 1024,
    importDir: enabled ? parseCanvasDir("CHEMATIC_IMPORT_DIR", env.CHEMATIC_IMPORT_DIR, false, create) : null,
    exportDir: enabled ? parseCanvasDir("CHEMATIC_EXPORT_DIR", env.CHEMATIC_EXPORT_DIR, true, create) : null,
    importMaxBytes: parseInteger("CHEMATIC_IMPORT_MAX_MB", env.CHEMATIC_IMPORT_MAX_MB, 128, 1, 4_096) * 1024 * 1024,
    importMaxColumns: parseInteger("CHEMATIC_IMPORT_MAX_COLUMNS", env.CHEMATIC_IMPORT_MAX_COLUMNS, DEFAULT_IMPORT_MAX_COLUMNS, 1, 10_000),
    processMaxBytes: parseInteger("CHEMATIC_PROCESS_MAX_MB", env.CHEMATIC_PROCESS_MAX_MB, defaultProcessMaxMb(), 256, 1_048_576) * 1024 * 1024,
    maxCanvasesPerCaller: parseInteger("CHEMATIC_CANVAS_PER_CALLER", env.CHEMATIC_CANVAS_PER_CALLER, DEFAULT_CANVASES_PER_CALLER, 1, 32),
    callerMaxBytes: parseInteger("CHEMATIC_CANVAS_CALLER_MB", env.CHEMATIC_CANVAS_CALLER_MB, DEFAULT_CALLER_MB, 1, 1_048_576) * 1024 * 1024,
    replicaId: parseReplicaId(env.CHEMATIC_REPLICA_ID),
  };
}

/** CHEMBL_DATAFRAME_DROP_ENABLED, a strict boolean (false when unset): whether chembl_dataframe_drop is registered. */
export function dataframeDropEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return parseBoolean("CHEMBL_DATAFRAME_DROP_ENABLED", env.CHEMBL_DATAFRAME_DROP_ENABLED, false);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    workers: parseInteger("CHEMATIC_WORKERS", env.CHEMATIC_WORKERS, Math.max(1, availableParallelism()), 1, 256),
    maxQueue: parseInteger("CHEMATIC_MAX_QUEUE", env.CHEMATIC_MAX_QUEUE, 256, 0, 100_000),
    chembl: loadChemblConfig(env),
    canvas: loadCanvasConfig(env),
    apps: parseApps(env.CHEMATIC_APPS),
  };
}
