/**
 * A pool of chemistry worker threads (one RDKit instance each) behind a bounded queue.
 *
 * - Every call has a time budget counted from when it starts running; past it the caller gets TIMEOUT. A
 *   call still running then is stopped the only way WASM can be stopped: its worker is terminated and
 *   replaced. Waiting in the queue is bounded by the queue (BUSY) and by the horizon: every answer, a
 *   TIMEOUT included, lands within MAX_TOOL_BUDGET_MS of the call's arrival (clients give up at 60 s), so a
 *   call that waited long runs for its full budget or what is left of the horizon, whichever is shorter.
 * - Past the queue bound a call is refused at once with BUSY rather than waiting without end.
 * - An aborted call (notifications/cancelled) leaves the queue, or has its worker replaced.
 * - Calls go only to workers that have loaded RDKit; a worker still loading (at start, or a replacement)
 *   takes calls from the queue once it is ready, so a call never waits on a load while a loaded worker is free.
 * - At start, at most one worker per core but one loads RDKit at a time (the main thread needs the
 *   remaining core): the others start loading when the first is ready. On a small machine this makes the
 *   first call faster than loading them all at once.
 * - A busy worker is sent its next single call ahead (one at most), so it starts that call the moment it
 *   posts its answer instead of waiting for the main thread to read the answer and post the next: with one
 *   job at a time each worker sat idle about half the time under load (docs/performance.md, hot path). A
 *   call sent ahead stays the pool's until the worker claims it (an atomic compare-and-swap on a shared
 *   Int32Array): a worker that comes free first takes it back, and so does a cancellation or the horizon; its
 *   budget starts when the call before it is answered.
 */
import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";
import { ToolError } from "../domain/errors.js";
import { CLAIM_SLOTS, type ItemOutcome, type ToMain, type ToWorker, type WorkerData } from "./pool-messages.js";
import { WORKER_URL, takePrestartedWorker, workerOptions } from "./prestart.js";
import type { DomainErrorPayload } from "../domain/errors.js";
import type { ProgressReporter } from "../contract/tool.js";
import { CancelledError } from "../contract/errors.js";
import { MAX_PROGRESS_BUDGET_MS, MAX_TOOL_BUDGET_MS } from "../contract/limits.js";

export class InternalToolError extends Error {
  constructor(readonly detail: string) {
    super("internal error");
    this.name = "InternalToolError";
  }
}

export interface PoolOptions {
  size?: number;
  /** Calls allowed to wait for a worker; more get BUSY. */
  maxQueue?: number;
  /** Spawn the workers on the first call rather than at once (a one-shot command may need none). */
  lazy?: boolean | undefined;
  /** Called with diagnostics for stderr. */
  log?: (message: string) => void;
  /**
   * Receives each line a worker prints on its stdout or stderr (an engine message, a stray console.log), so
   * that the logger can wrap it (one JSON line per event). Default: the bytes go to stderr as they are.
   */
  output?: (line: string) => void;
  /**
   * A worker whose WASM heap has grown past this after a call is replaced once the call is answered
   * (default RECYCLE_HEAP_BYTES): the heap never shrinks, and one giant molecule can grow it by hundreds of MiB.
   */
  recycleHeapBytes?: number;
  /** Bytes of C++ stack each worker gives RDKit (engine-stack.ts); tests set a small one to reach its end. */
  engineStackBytes?: number;
  /** The answer horizon from a call's arrival (default MAX_TOOL_BUDGET_MS); tests shorten it. */
  horizonMs?: number;
}

/** A list entry's outcome (runList): its value, or the error it answered. */
export type ListOutcome = { ok: true; value: unknown } | { ok: false; error: DomainErrorPayload };

export interface ListRunOptions {
  /** The whole list's budget, counted from its arrival. */
  budgetMs: number;
  signal?: AbortSignal | undefined;
  /** Called after each chunk with the entries done so far. */
  onChunk?: ((done: number, total: number) => void) | undefined;
  /** Entries per chunk (default: about eight chunks a worker, at most MAX_CHUNK). */
  chunkSize?: number | undefined;
}

/** Most entries in one list chunk. */
const MAX_CHUNK = 100;
/** How long past a list's deadline a worker still inside an entry is given before it is replaced. */
const CHUNK_GRACE_MS = 1_000;

export interface RunOptions {
  budgetMs: number;
  signal?: AbortSignal | undefined;
  onProgress?: ProgressReporter | undefined;
  /**
   * Who asked (a token label or OAuth subject; absent for the one stdio caller): waiting single calls are taken
   * round-robin across callers, a caller with nothing running first (see takeQueued).
   */
  caller?: string | undefined;
}

interface Job {
  id: number;
  tool: string;
  args: Record<string, unknown>;
  /** A list chunk (runList): the entries, and the list's deadline (epoch ms). */
  chunk?: { items: Record<string, unknown>[]; deadline: number };
  options: RunOptions;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** When the call arrived (Date.now()): the horizon counts from here. */
  arrivedAt: number;
  /** While queued: the horizon; once running: the budget (or what the horizon leaves of it). */
  timer: NodeJS.Timeout;
  /** The budget the call runs with (set when it starts). */
  runBudgetMs?: number;
  slot?: Slot;
  /** Sent ahead to `slot`: the index of its entry in the slot's claim array. */
  claim?: number;
  settled: boolean;
  removeAbort?: () => void;
}

interface Slot {
  worker: Worker;
  /** The job the worker runs (or is about to start: see `ahead`). */
  job?: Job;
  /** A single call sent ahead: queued in the worker's port behind `job`, still revocable (revoke()). */
  ahead?: Job;
  /** claims[i] holds the id of a job sent ahead with claim i until the worker (sets 0) or the pool takes it. */
  claims: Int32Array;
  nextClaim: number;
  ready: boolean;
  /** Told to load RDKit (see WorkerPool.startDeferred). */
  started: boolean;
  stats: Map<number, (bytes: number) => void>;
  heapBytes: number;
}

/**
 * RDKit's descriptors take memory with the square of the atom count: calc_properties on a chain of 2,000
 * atoms grew a worker's heap from 16 to 28 MiB, on 4,000 atoms to 88 MiB, and WASM memory is never given
 * back. Everyday molecules stay far below (a worker serving 100,000 drug-sized calls stays at its start size).
 */
const RECYCLE_HEAP_BYTES = 256 * 1024 * 1024;

function defaultPoolSize(): number {
  return Math.max(1, availableParallelism());
}

export class WorkerPool {
  readonly size: number;
  readonly maxQueue: number;
  /** Every call is answered within this of its arrival (queue wait and run together). */
  readonly horizonMs: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** Chunks of list calls (runList), run when no single call waits; they never count against maxQueue. */
  private readonly chunks: Job[] = [];
  /** List calls admitted and not yet answered: each counts as one waiting call. */
  private activeLists = 0;
  private nextJobId = 1;
  private nextStatsId = 1;
  private closed = false;
  /** Worker threads spawned and not yet exited (replaced ones included until they are gone). */
  private alive = 0;
  private warnedEngineStack = false;
  private readonly log: (message: string) => void;
  private readonly output: ((line: string) => void) | undefined;
  private readonly engineStackBytes: number | undefined;
  private readonly recycleHeapBytes: number;

  constructor(options: PoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultPoolSize());
    this.maxQueue = Math.max(0, options.maxQueue ?? 256);
    this.log = options.log ?? ((m) => process.stderr.write(`${m}\n`));
    this.output = options.output;
    this.engineStackBytes = options.engineStackBytes;
    this.recycleHeapBytes = options.recycleHeapBytes ?? RECYCLE_HEAP_BYTES;
    this.horizonMs = options.horizonMs ?? MAX_TOOL_BUDGET_MS;
    if (!options.lazy) this.spawnAll();
  }

  private spawnAll(): void {
    if (this.slots.length > 0 || this.closed) return;
    const firstBatch = Math.max(1, Math.min(this.size, availableParallelism() - 1));
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn(i < firstBatch));
  }

  /** How many workers have been told to load RDKit (the rest wait for the first to be ready). */
  get startedWorkers(): number {
    return this.slots.filter((s) => s.started).length;
  }

  private startDeferred(): void {
    for (const slot of this.slots) if (!slot.started) this.startWorker(slot);
  }

  private startWorker(slot: Slot): void {
    slot.started = true;
    slot.worker.postMessage({ type: "start", claims: slot.claims.buffer as SharedArrayBuffer } satisfies ToWorker);
  }

  /** Resolves when every worker has loaded RDKit. */
  async ready(): Promise<void> {
    this.spawnAll();
    await Promise.all(
      this.slots.map((slot) =>
        slot.ready
          ? Promise.resolve()
          : new Promise<void>((resolve, reject) => {
              const onMessage = (m: ToMain) => {
                if (m.type === "ready") {
                  slot.worker.off("message", onMessage);
                  resolve();
                }
              };
              slot.worker.on("message", onMessage);
              slot.worker.once("error", reject);
            }),
      ),
    );
  }

  /** Single calls waiting to start: queued, or sent ahead to a busy worker that has not answered its call yet. */
  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.ahead !== undefined).length;
  }

  run(tool: string, args: Record<string, unknown>, options: RunOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new ToolError("BUSY", "The server is shutting down"));
    if (options.signal?.aborted) return Promise.reject(new CancelledError());
    this.spawnAll();
    const idle = this.slots.find((s) => s.ready && !s.job);
    // A worker still loading RDKit will take a queued call as soon as it is ready: count it as a place.
    const loading = this.slots.filter((s) => !s.ready).length;
    // A call sent ahead is still a waiting call: the bound counts it (its worker may stay busy for long).
    const waiting = this.pending;
    if (!idle && waiting + this.activeLists >= this.maxQueue + loading) {
      return Promise.reject(
        new ToolError("BUSY", `All ${this.size} chemistry workers are busy and ${waiting} calls are waiting`, {
          workers: this.size,
          queued: waiting,
          max_queue: this.maxQueue,
        }),
      );
    }
    return new Promise((resolve, reject) => {
      const arrivedAt = Date.now();
      const job: Job = {
        id: this.nextJobId++,
        tool,
        args,
        options,
        resolve,
        reject,
        arrivedAt,
        settled: false,
        timer: setTimeout(() => this.expire(job), this.horizonMs),
      };
      if (options.signal) {
        const onAbort = () => this.abort(job);
        options.signal.addEventListener("abort", onAbort, { once: true });
        job.removeAbort = () => options.signal?.removeEventListener("abort", onAbort);
      }
      if (idle) this.start(idle, job);
      else {
        this.queue.push(job);
        const busy = this.slots.find((s) => s.ready && s.job && !s.ahead);
        if (busy) this.sendAhead(busy);
      }
    });
  }

  /**
   * Runs one tool on each entry of a list as one call: admitted like a single call (BUSY only when the queue
   * is full without it), split into chunks that every free worker takes in turn, bounded by `budgetMs` (and
   * the horizon). Resolves with one outcome per entry, in order: entries not done when the budget ends answer
   * TIMEOUT; a cancelled list rejects with CancelledError and its running chunks' workers are replaced.
   */
  runList(tool: string, items: Record<string, unknown>[], options: ListRunOptions): Promise<ListOutcome[]> {
    if (this.closed) return Promise.reject(new ToolError("BUSY", "The server is shutting down"));
    if (options.signal?.aborted) return Promise.reject(new CancelledError());
    this.spawnAll();
    const idle = this.slots.some((s) => s.ready && !s.job);
    const loading = this.slots.filter((s) => !s.ready).length;
    const waiting = this.pending + this.activeLists;
    if (!idle && waiting >= this.maxQueue + loading) {
      return Promise.reject(
        new ToolError("BUSY", `All ${this.size} chemistry workers are busy and ${waiting} calls are waiting`, {
          workers: this.size,
          queued: waiting,
          max_queue: this.maxQueue,
        }),
      );
    }
    const arrivedAt = Date.now();
    // A list's budget comes from its call's own deadline, which a progress-tracked call (a path import) may set past
    // the single-call horizon: it is bounded by the longest a tracked call may run instead.
    const budgetMs = Math.min(options.budgetMs, Math.max(this.horizonMs, MAX_PROGRESS_BUDGET_MS));
    const deadline = arrivedAt + budgetMs;
    // Small enough that every worker gets several chunks (the load evens out, progress is frequent) and a
    // budget cut loses little; big enough that messages stay few.
    const chunkSize = options.chunkSize ?? Math.max(1, Math.min(MAX_CHUNK, Math.ceil(items.length / (this.size * 8))));
    const outcomes: (ListOutcome | undefined)[] = new Array<ListOutcome | undefined>(items.length).fill(undefined);
    let done = 0;
    const jobs = new Set<Job>();
    this.activeLists++;
    return new Promise<ListOutcome[]>((resolve, reject) => {
      let finished = false;
      const timeoutError = () =>
        new ToolError("TIMEOUT", `${tool} list: this entry was not done within the list's ${budgetMs} ms budget`, { budget_ms: budgetMs, tool }).toPayload();
      const finish = (error?: Error) => {
        if (finished) return;
        finished = true;
        this.activeLists--;
        options.signal?.removeEventListener("abort", onAbort);
        clearTimeout(cutTimer);
        for (const job of jobs) this.stopJob(job, error ?? new ToolError("TIMEOUT", "list budget ended"));
        jobs.clear();
        if (error) reject(error);
        else resolve(outcomes.map((o) => o ?? { ok: false, error: timeoutError() }));
      };
      const onAbort = () => finish(new CancelledError());
      options.signal?.addEventListener("abort", onAbort, { once: true });
      // Workers start no entry past the deadline and answer what they finished; one still inside an entry
      // GRACE_MS later is replaced and its chunk's unfinished entries answer TIMEOUT.
      const cutTimer = setTimeout(() => finish(), budgetMs + CHUNK_GRACE_MS);
      const enqueue = (start: number, end: number) => {
        const chunkItems = items.slice(start, end);
        const job: Job = {
          id: this.nextJobId++,
          tool,
          args: {},
          chunk: { items: chunkItems, deadline },
          options: { budgetMs: budgetMs + CHUNK_GRACE_MS },
          resolve: (value) => {
            jobs.delete(job);
            const answers = value as ItemOutcome[];
            let firstSkipped = -1;
            answers.forEach((answer, k) => {
              if ("skipped" in answer) {
                if (firstSkipped < 0) firstSkipped = k;
                return;
              }
              outcomes[start + k] = answer;
              done++;
            });
            options.onChunk?.(done, items.length);
            // Entries skipped before the deadline (after one broke the engine) run again in a new chunk.
            if (firstSkipped >= 0 && Date.now() < deadline) enqueue(start + firstSkipped, end);
            settleIfDone();
          },
          reject: (error) => {
            jobs.delete(job);
            if (finished) return;
            if (error instanceof ToolError) {
              const payload = error.toPayload();
              for (let k = start; k < end; k++) outcomes[k] ??= { ok: false, error: payload };
              settleIfDone();
            } else finish(error);
          },
          arrivedAt,
          settled: false,
          timer: setTimeout(() => this.expire(job), budgetMs + CHUNK_GRACE_MS),
        };
        jobs.add(job);
        const free = this.slots.find((s) => s.ready && !s.job);
        if (free && this.queue.length === 0) this.start(free, job);
        else this.chunks.push(job);
      };
      const settleIfDone = () => {
        if (!finished && jobs.size === 0) finish();
      };
      for (let start = 0; start < items.length; start += chunkSize) enqueue(start, Math.min(items.length, start + chunkSize));
      settleIfDone();
    });
  }

  /** WASM heap size of each worker (waits for running jobs to finish). */
  async heapBytes(): Promise<number[]> {
    if (this.closed) return this.slots.map(() => 0);
    return Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<number>((resolve) => {
            const requestId = this.nextStatsId++;
            slot.stats.set(requestId, resolve);
            slot.worker.postMessage({ type: "stats", requestId } satisfies ToWorker);
          }),
      ),
    );
  }

  /** Worker threads still running: 0 once close() has resolved. */
  get liveWorkers(): number {
    return this.alive;
  }

  /**
   * Answers every call still waiting or running (BUSY) and terminates the workers. Running calls are
   * settled here too: left alone, a call's budget timer would fire after the close and start a
   * replacement worker that nothing terminates, keeping the process alive.
   */
  async close(): Promise<void> {
    this.closed = true;
    const shuttingDown = () => new ToolError("BUSY", "The server is shutting down");
    for (const job of [...this.queue.splice(0), ...this.chunks.splice(0)]) this.settle(job, shuttingDown());
    for (const slot of this.slots) {
      const job = slot.job;
      const ahead = slot.ahead;
      slot.job = undefined;
      slot.ahead = undefined;
      if (job) this.settle(job, shuttingDown());
      if (ahead) this.settle(ahead, shuttingDown());
      this.answerStats(slot);
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(start: boolean): Slot {
    // Workers inherit the environment (test-tool switch, log level). Whatever a worker prints (an engine
    // message, a stray console.log) is sent to stderr: stdout carries protocol only.
    const output = this.output;
    const workerData: WorkerData = { engineStackBytes: this.engineStackBytes };
    // The serving entry may have started the first worker already (prestart.ts); it is taken once.
    const worker =
      (output !== undefined ? takePrestartedWorker(this.engineStackBytes) : undefined) ??
      new Worker(WORKER_URL, { ...workerOptions(workerData), stderr: output !== undefined });
    this.alive++;
    if (output) {
      for (const stream of [worker.stdout, worker.stderr]) createInterface({ input: stream, crlfDelay: Infinity }).on("line", output);
    } else {
      worker.stdout.pipe(process.stderr, { end: false });
    }
    const slot: Slot = {
      worker,
      ready: false,
      started: false,
      stats: new Map(),
      heapBytes: 0,
      claims: new Int32Array(new SharedArrayBuffer(CLAIM_SLOTS * Int32Array.BYTES_PER_ELEMENT)),
      nextClaim: 0,
    };
    worker.on("message", (m: ToMain) => this.onMessage(slot, m));
    worker.on("error", (e) => this.onWorkerFailure(slot, `worker error: ${e.stack ?? e.message}`));
    worker.on("exit", (code) => {
      this.alive--;
      if (!this.closed && this.slots.includes(slot)) this.onWorkerFailure(slot, `worker exited with code ${code}`);
    });
    if (start) this.startWorker(slot);
    return slot;
  }

  private onMessage(slot: Slot, m: ToMain): void {
    switch (m.type) {
      case "ready":
        if (m.engineStackProblem && !this.warnedEngineStack) {
          this.warnedEngineStack = true;
          this.log(
            `chematic-mcp: warning: RDKit's C++ stack could not be enlarged and watched (${m.engineStackProblem}); molecules of several hundred atoms in a chain may overflow it unnoticed`,
          );
        }
        slot.ready = true;
        slot.heapBytes = m.heapBytes;
        this.startDeferred();
        if (!slot.job) this.next(slot);
        return;
      case "stats": {
        const cb = slot.stats.get(m.requestId);
        slot.stats.delete(m.requestId);
        cb?.(m.heapBytes);
        return;
      }
      case "progress":
        if (slot.job && slot.job.id === m.jobId && !slot.job.settled) slot.job.options.onProgress?.(m.progress, m.total, m.message);
        return;
      case "done": {
        const job = slot.job;
        if (!job || job.id !== m.jobId) return;
        slot.job = undefined;
        if (m.ok) this.settle(job, undefined, m.value);
        else if (m.error) this.settle(job, ToolError.fromPayload(m.error));
        else this.settle(job, new InternalToolError(m.internal ?? "unknown worker failure"));
        if (m.heapBytes !== undefined) slot.heapBytes = m.heapBytes;
        if (m.replaceWorker) this.replace(slot, `a WASM trap in ${job.tool}`);
        else if (slot.heapBytes > this.recycleHeapBytes) {
          const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
          this.replace(
            slot,
            `its WASM heap grew to ${mib(slot.heapBytes)} MiB in ${job.tool}, past the ${mib(this.recycleHeapBytes)} MiB at which workers are recycled`,
          );
        } else this.advance(slot);
        return;
      }
    }
  }

  /** Starts the job's run budget (the horizon's timer ends); false when nothing is left of it (answered TIMEOUT). */
  private arm(job: Job): boolean {
    clearTimeout(job.timer);
    const left = this.horizonMs - (Date.now() - job.arrivedAt);
    // A list chunk runs until its list's deadline (and the grace), wherever in the list it comes.
    job.runBudgetMs = job.chunk ? job.chunk.deadline + CHUNK_GRACE_MS - Date.now() : Math.min(job.options.budgetMs, left);
    if (job.runBudgetMs <= 0) return false;
    job.timer = setTimeout(() => this.expire(job), job.runBudgetMs);
    return true;
  }

  /** Gives an idle worker a job. */
  private start(slot: Slot, job: Job): void {
    if (!this.arm(job)) {
      this.expire(job);
      this.next(slot);
      return;
    }
    slot.job = job;
    job.slot = slot;
    const message: ToWorker = job.chunk
      ? { type: "runList", jobId: job.id, tool: job.tool, items: job.chunk.items, deadline: job.chunk.deadline }
      : { type: "run", jobId: job.id, tool: job.tool, args: job.args };
    slot.worker.postMessage(message);
    this.sendAhead(slot);
  }

  /**
   * Sends a busy worker the next waiting single call, to start when it is done with its own. List chunks are
   * not sent ahead: they are long enough that the hop between them costs little, and a single call that
   * arrives meanwhile must not wait behind two of them.
   */
  private sendAhead(slot: Slot): void {
    if (!slot.job || slot.ahead || !slot.ready || this.closed) return;
    const job = this.takeQueued();
    if (!job) return;
    const claim = slot.nextClaim;
    slot.nextClaim = (claim + 1) % CLAIM_SLOTS;
    Atomics.store(slot.claims, claim, job.id);
    job.claim = claim;
    job.slot = slot;
    slot.ahead = job;
    slot.worker.postMessage({ type: "run", jobId: job.id, tool: job.tool, args: job.args, claim } satisfies ToWorker);
  }

  /**
   * Takes back the call sent ahead to `slot`, if its worker has not claimed it yet; undefined when there is
   * none or the worker has begun it.
   */
  private revoke(slot: Slot): Job | undefined {
    const job = slot.ahead;
    if (!job || job.claim === undefined) return undefined;
    if (Atomics.compareExchange(slot.claims, job.claim, job.id, 0) !== job.id) return undefined;
    slot.ahead = undefined;
    job.slot = undefined;
    job.claim = undefined;
    return job;
  }

  /** A worker answered its job: the call sent ahead (already running there) becomes its job, or it takes the next. */
  private advance(slot: Slot): void {
    const ahead = slot.ahead;
    if (!ahead) {
      this.next(slot);
      return;
    }
    slot.ahead = undefined;
    ahead.claim = undefined;
    slot.job = ahead;
    if (ahead.settled) {
      // Cancelled or timed out after the worker had claimed it: it is running there, and only a new worker stops it.
      this.replace(slot, `stopped a running ${ahead.tool} call (answered before it started)`);
      return;
    }
    if (!this.arm(ahead)) {
      this.expire(ahead); // replaces the worker: it has begun the call
      return;
    }
    this.sendAhead(slot);
  }

  /** Gives an idle worker the next waiting job, or a call sent ahead to a busy worker that has not begun it. */
  private next(slot: Slot): void {
    // Single calls first: a long list never makes a single call wait behind all its chunks.
    const job = this.takeQueued() ?? this.chunks.shift() ?? this.takeBackAhead(slot);
    if (job) this.start(slot, job);
  }

  /** The caller whose call was taken last (round-robin starts after it). */
  private lastCaller: string | undefined;

  /**
   * The next waiting single call, taken fairly: a caller with no call running (or sent ahead) before one with some,
   * and among those round-robin from the caller served last; first come, first served within a caller. One caller's
   * burst of slow calls then keeps another's call waiting for one of them at most, not for all (the audit saw 55 s).
   */
  private takeQueued(): Job | undefined {
    if (this.queue.length <= 1) {
      const only = this.queue.shift();
      if (only) this.lastCaller = only.options.caller ?? "";
      return only;
    }
    const busy = new Set<string>();
    for (const s of this.slots) {
      if (s.job) busy.add(s.job.options.caller ?? "");
      if (s.ahead) busy.add(s.ahead.options.caller ?? "");
    }
    const callers = [...new Set(this.queue.map((j) => j.options.caller ?? ""))];
    const after = this.lastCaller === undefined ? -1 : callers.indexOf(this.lastCaller);
    const ring = after < 0 ? callers : [...callers.slice(after + 1), ...callers.slice(0, after + 1)];
    const caller = ring.find((c) => !busy.has(c)) ?? ring[0]!;
    const i = this.queue.findIndex((j) => (j.options.caller ?? "") === caller);
    this.lastCaller = caller;
    return this.queue.splice(i, 1)[0];
  }

  private takeBackAhead(idle: Slot): Job | undefined {
    for (const slot of this.slots) {
      if (slot === idle) continue;
      const job = this.revoke(slot);
      if (job) return job;
    }
    return undefined;
  }

  private settle(job: Job, error?: Error, value?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    job.removeAbort?.();
    if (error) job.reject(error);
    else job.resolve(value);
  }

  private expire(job: Job): void {
    const waitedMs = Date.now() - job.arrivedAt;
    const error =
      job.runBudgetMs === undefined || job.runBudgetMs <= 0
        ? // Never started: every worker stayed busy for the whole horizon.
          new ToolError("TIMEOUT", `${job.tool} waited ${waitedMs} ms for a chemistry worker and could not start before the answer was due`, {
            budget_ms: job.options.budgetMs,
            waited_ms: waitedMs,
            tool: job.tool,
          })
        : new ToolError("TIMEOUT", `${job.tool} did not finish within its ${job.runBudgetMs} ms budget`, {
            budget_ms: job.runBudgetMs,
            tool: job.tool,
          });
    this.stopJob(job, error);
  }

  private abort(job: Job): void {
    this.stopJob(job, new CancelledError());
  }

  private stopJob(job: Job, reason: Error): void {
    if (job.settled) return;
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(job, reason);
      return;
    }
    const chunk = this.chunks.indexOf(job);
    if (chunk >= 0) {
      this.chunks.splice(chunk, 1);
      this.settle(job, reason);
      return;
    }
    const aheadOf = job.slot && job.slot.ahead === job ? job.slot : undefined;
    if (aheadOf) {
      // Taken back before the worker began it: nothing runs. Otherwise it is running there; advance() replaces
      // the worker when the call before it is answered.
      if (this.revoke(aheadOf)) this.sendAhead(aheadOf);
      this.settle(job, reason);
      return;
    }
    this.settle(job, reason);
    const slot = job.slot;
    if (slot && slot.job === job) this.replace(slot, `stopped a running ${job.tool} call (${reason.message})`);
  }

  /** Answers a departing worker's pending heap-size requests with 0 (it will never answer them). */
  private answerStats(slot: Slot): void {
    for (const cb of slot.stats.values()) cb(0);
    slot.stats.clear();
  }

  /** Terminates a worker that is stuck in WASM and puts a fresh one in its place. */
  private replace(slot: Slot, why: string): void {
    if (this.closed) return;
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.log(`chematic-mcp: replacing chemistry worker: ${why}`);
    const fresh = this.spawn(true);
    this.slots[index] = fresh;
    slot.job = undefined;
    // A call sent ahead never answers from a terminated worker: it waits again, first in line.
    const ahead = slot.ahead;
    slot.ahead = undefined;
    if (ahead && !ahead.settled) {
      ahead.slot = undefined;
      ahead.claim = undefined;
      this.queue.unshift(ahead);
      const idle = this.slots.find((s) => s.ready && !s.job);
      if (idle) this.next(idle);
    }
    this.answerStats(slot);
    void slot.worker.terminate();
    // The queue waits for a loaded worker: the fresh one takes calls once it is ready (see "ready").
    // Should the first worker fail before it was ever ready, the deferred ones must not wait for it.
    this.startDeferred();
  }

  private onWorkerFailure(slot: Slot, why: string): void {
    const job = slot.job;
    if (job) this.settle(job, new InternalToolError(why));
    if (!this.closed) this.replace(slot, why);
  }
}
