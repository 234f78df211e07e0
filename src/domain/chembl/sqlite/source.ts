/**
 * The offline ChEMBL source on the main thread: a Fetcher (the service's one request seam) that answers
 * the service's API requests from the official SQLite dump through a dedicated worker thread holding the
 * read-only handle, so a query never blocks the protocol. A request past its timeout is given up and the
 * worker replaced (better-sqlite3 cannot interrupt a statement; the new worker serves the next calls).
 */
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import { ToolError } from "../../errors.js";
import { FetchAbortedError, FetchTimeoutError, type Fetcher } from "../http.js";
import { unpack } from "./columnar.js";
import type { DumpInfo, WorkerMessage, WorkerSetup } from "./protocol.js";

export type { DumpInfo } from "./protocol.js";

const WORKER_URL = new URL("./worker.js", import.meta.url);

/** Where the sidecar goes when the dump's folder is not writable. */
export function sidecarCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME?.trim() || join(homedir(), ".cache"), "chematic-mcp", "chembl");
}

/** The typed error of a dump that cannot be served: the driver missing, no file, not a ChEMBL dump. */
function dumpUnavailable(reason: string, message: string, path: string): ToolError {
  const hint =
    reason === "driver_missing"
      ? "Install the optional SQLite driver (npm install better-sqlite3@12; it builds from source with python3, make and g++), or unset CHEMBL_SQLITE to use the web API."
      : "Point CHEMBL_SQLITE at an official chembl_NN.db file (chematic-mcp doctor checks it), or unset it to use the web API.";
  return new ToolError("UPSTREAM_UNAVAILABLE", `The ChEMBL SQLite dump cannot be used: ${message}`, { source: "sqlite", reason, path }, hint);
}

interface Pending {
  resolve(v: { status: number; body: string; parsed?: { value: unknown; bytes: number } }): void;
  reject(e: Error): void;
}

export class SqliteSource {
  private worker: Worker | undefined;
  private ready: Promise<DumpInfo> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The dump's facts once the worker is ready (queries may be sent). */
  private info: DumpInfo | undefined;
  /** The last step of a first open still building the sidecar. */
  private building: string | undefined;

  constructor(
    readonly path: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** The driver's module name: better-sqlite3 (tests name a missing one). */
    private readonly driver = "better-sqlite3",
    /** Steps of building the lookup sidecar (the index command prints them). */
    private readonly onProgress?: (message: string) => void,
  ) {}

  private setup(): WorkerSetup {
    return {
      dump: this.path,
      sidecarDirs: [dirname(this.path), sidecarCacheDir(this.env)],
      sidecarName: `${basename(this.path)}.chematic-index.sqlite`,
      driver: this.driver,
    };
  }

  /** Starts the worker (once) and resolves with the dump's facts; rejects with the typed error. */
  open(): Promise<DumpInfo> {
    if (this.ready) return this.ready;
    const worker = new Worker(WORKER_URL, { workerData: this.setup() });
    worker.unref();
    this.worker = worker;
    this.ready = new Promise<DumpInfo>((resolve, reject) => {
      worker.on("message", (m: WorkerMessage) => {
        if (m.kind === "ready") {
          this.info = m.info;
          this.building = undefined;
          resolve(m.info);
        } else if (m.kind === "progress") {
          this.building = m.message;
          this.onProgress?.(m.message);
        } else if (m.kind === "fatal") reject(dumpUnavailable(m.reason, m.message, this.path));
        else {
          const p = this.pending.get(m.id);
          if (!p) return;
          this.pending.delete(m.id);
          if (m.error !== undefined) p.reject(dumpUnavailable("query_failed", m.error, this.path));
          else p.resolve({ status: m.status, body: m.body, ...(m.packed ? { parsed: { value: unpack(m.packed), bytes: m.bytes ?? 0 } } : {}) });
        }
      });
      worker.on("error", (e) => {
        reject(dumpUnavailable("worker_failed", e.message, this.path));
        this.failAll(dumpUnavailable("worker_failed", e.message, this.path));
      });
      worker.on("exit", () => {
        if (this.worker === worker) {
          this.worker = undefined;
          this.ready = undefined;
          this.info = undefined;
        }
      });
    });
    // A failed open is tried again on the next call (the operator may have fixed the file).
    this.ready.catch(() => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.ready = undefined;
        void worker.terminate();
      }
    });
    return this.ready;
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** Replaces a worker stuck in a long statement (never one still opening: its sidecar build would start over). */
  private restart(): void {
    const w = this.worker;
    if (!this.info) return;
    this.worker = undefined;
    this.ready = undefined;
    this.info = undefined;
    this.failAll(new FetchTimeoutError(0));
    if (w) void w.terminate();
  }

  /**
   * Waits for the open up to a request's timeout. A first open of a full release builds the lookup sidecar
   * for minutes: a call meanwhile answers a typed error saying so (the build goes on), not a timeout.
   */
  private openWithin(timeoutMs: number, signal: AbortSignal): Promise<DumpInfo> {
    const opening = this.open();
    return new Promise<DumpInfo>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        reject(
          new ToolError(
            "UPSTREAM_UNAVAILABLE",
            `The ChEMBL SQLite dump is still being opened${this.building ? `: ${this.building}` : ""}`,
            { source: "sqlite", reason: this.building ? "index_building" : "opening", path: this.path },
            "The first open of a dump builds its lookup index (minutes for a full release) and goes on in the background: retry in a minute, or build it ahead with chematic-mcp chembl index.",
          ),
        );
      }, timeoutMs);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new FetchAbortedError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      opening.then(
        (info) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve(info);
        },
        (e: Error) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  /** The Fetcher the service uses in place of HTTP: `base` is the configured API root the URLs start with. */
  fetcher(base: string): Fetcher {
    return async (url, { signal, timeoutMs }) => {
      const rest = url.startsWith(`${base}/`) ? url.slice(base.length + 1) : url;
      const q = rest.indexOf("?");
      const path = (q < 0 ? rest : rest.slice(0, q)).replace(/\.json$/, "");
      const query = q < 0 ? "" : rest.slice(q + 1);
      if (!this.info) await this.openWithin(timeoutMs, signal);
      const worker = this.worker!;
      const id = this.nextId++;
      return new Promise((resolve, reject) => {
        const due = performance.now() + timeoutMs;
        const timer = setTimeout(() => {
          cleanup();
          reject(new FetchTimeoutError(timeoutMs));
          this.restart();
        }, timeoutMs);
        const onAbort = () => {
          cleanup();
          reject(new FetchAbortedError());
        };
        const cleanup = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          this.pending.delete(id);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        this.pending.set(id, {
          resolve: (v) => {
            cleanup();
            // An answer read after the timeout is late whichever came first in the event loop, the timer or
            // the worker's message (a busy main thread reads queued messages before due timers): a timeout.
            if (performance.now() > due) return reject(new FetchTimeoutError(timeoutMs));
            const headers = { "content-type": v.status === 404 ? "text/html" : "application/json" };
            const parsed = v.parsed;
            // A packed answer's text is written only if someone reads it (the service reads `parsed`).
            if (parsed)
              resolve({
                status: v.status,
                headers,
                parsed,
                get body() {
                  return JSON.stringify(parsed.value);
                },
              });
            else resolve({ status: v.status, headers, body: v.body });
          },
          reject: (e) => {
            cleanup();
            reject(e);
          },
        });
        worker.postMessage({ id, path, query });
      });
    };
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.info = undefined;
    if (w) await w.terminate();
  }
}
