/**
 * The one request path to ChEMBL: every GET the service makes goes through fetchJson, which applies
 *  - one deadline per call (CHEMBL_DEADLINE_MS, 45 s by default, never past the tool's own budget),
 *    passed down through chained requests, so every answer settles before a client's 60 s timeout;
 *  - a per-request timeout (CHEMBL_REQUEST_TIMEOUT_MS) cut to what the deadline leaves;
 *  - retries with exponential backoff and jitter on network errors, timeouts, 5xx, unreadable bodies and
 *    429 (honouring Retry-After), only while the deadline leaves room;
 *  - a service-wide pacer (CHEMBL_MAX_CONCURRENT_PAGES requests in flight);
 *  - the shared HTTP client underneath (proxies: HTTPS_PROXY, HTTP_PROXY, NO_PROXY);
 *  - a bounded in-memory cache of successful answers;
 *  - sanitising: every failure leaves as a ToolError written by errors.ts, never upstream text.
 * URLs are Django-style filtered `.json` URLs under CHEMBL_API_BASE_URL.
 */
import type { ChemblConfig } from "../../config.js";
import { ToolError } from "../errors.js";
import { ResponseCache, type CacheOptions } from "./cache.js";
import { UpstreamError, deadlineExceeded, httpFailure, malformedBody, networkFailure, offline, type RequestPurpose } from "./errors.js";
import { FetchAbortedError, FetchTimeoutError, sharedClientFetcher, type Fetcher } from "./http.js";
import { toInteger } from "./coerce.js";
import { Pacer, PacerTimeout } from "./pacer.js";

/** The deadline ends this long before the tool's own budget, so the sanitised answer wins the race. */
const DEADLINE_MARGIN_MS = 250;

// ---------------------------------------------------------------------------------------------------
// Calls and their one deadline

export interface CallOptions {
  signal?: AbortSignal;
  /** Epoch milliseconds the caller must have its answer by (ServiceContext.deadline). */
  deadline?: number;
  /** This call's own deadline in place of CHEMBL_DEADLINE_MS (a spill's walk: CHEMBL_SPILL_DEADLINE_MS). */
  deadlineMs?: number;
}

/**
 * The call options of a tool call or resource read: its cancellation signal and its deadline, which the
 * server sets as the call's end in epoch ms (Date.now() + budget).
 */
export function callOptions(ctx: { signal: AbortSignal; deadline: number }): CallOptions {
  // Accept a duration too (the field's comment once said "milliseconds left"): no epoch is below 1e12.
  const deadline = ctx.deadline < 1e12 ? Date.now() + ctx.deadline : ctx.deadline;
  return { signal: ctx.signal, deadline };
}

/** One tool call or resource read: a deadline and a cancellation signal shared by every request it makes. */
export class Call {
  constructor(
    /** Epoch ms. */
    readonly at: number,
    readonly signal: AbortSignal,
    /** The whole budget, for messages. */
    readonly budgetMs: number,
  ) {}

  remaining(now = Date.now()): number {
    return this.at - now;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new FetchAbortedError());
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new FetchAbortedError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// ---------------------------------------------------------------------------------------------------
// Requests

export type Param = readonly [string, string];

export type Json = Record<string, unknown>;

export const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export interface FetchControl {
  /** Skip the response cache (the release status has its own). */
  cache?: boolean;
  /** Attempts for this request (status: one). */
  maxAttempts?: number;
  /** A body shape check: a JSON answer that fails it counts as unreadable. */
  accept?: (value: Json) => boolean;
}

/** A detail answer is the record itself: it must name its molecule. */
export const HAS_MOLECULE_ID: FetchControl = { accept: (v) => typeof v.molecule_chembl_id === "string" };

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RequestOptions {
  fetcher?: Fetcher;
  retry?: Partial<RetryPolicy>;
  cache?: Partial<CacheOptions>;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 400, maxDelayMs: 4_000 };
const DEFAULT_CACHE: CacheOptions = { maxEntries: 2_000, maxBytes: 64 * 1024 * 1024, ttlMs: 6 * 3_600_000 };

/** The request path: calls, URLs, the retrying, cached, paced, deadline-bound GET, and list pages on top of it. */
export class ChemblRequests {
  readonly config: ChemblConfig;
  readonly pacer: Pacer;
  readonly cache: ResponseCache;
  private readonly fetcher: Fetcher;
  private readonly retry: RetryPolicy;
  private readonly random: () => number;

  constructor(config: ChemblConfig, options: RequestOptions = {}) {
    this.config = config;
    this.fetcher = options.fetcher ?? sharedClientFetcher();
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.cache = new ResponseCache({ ...DEFAULT_CACHE, ...options.cache });
    this.pacer = new Pacer(config.maxConcurrentPages);
    this.random = options.random ?? Math.random;
  }

  /** OFFLINE (CHEMATIC_OFFLINE) refuses every ChEMBL call before anything else, argument checks included. */
  assertOnline(): void {
    if (this.config.offline) throw offline();
  }

  /** Starts one call: OFFLINE refuses here, before any request. */
  startCall(options: CallOptions = {}): Call {
    if (this.config.offline) throw offline();
    const now = Date.now();
    let at = now + (options.deadlineMs ?? this.config.deadlineMs);
    if (options.deadline !== undefined && Number.isFinite(options.deadline)) at = Math.min(at, options.deadline - DEADLINE_MARGIN_MS);
    return new Call(at, options.signal ?? new AbortController().signal, Math.max(0, at - now));
  }

  url(path: string, params: readonly Param[] = []): string {
    const query = new URLSearchParams();
    for (const [k, v] of params) query.append(k, v);
    const qs = query.toString();
    return `${this.config.apiBaseUrl}/${path}.json${qs ? `?${qs}` : ""}`;
  }

  /** GET one JSON object, with the cache, the pacer, retries and sanitising. */
  async fetchJson(path: string, params: readonly Param[], purpose: RequestPurpose, call: Call, control: FetchControl = {}): Promise<Json> {
    const url = this.url(path, params);
    const useCache = control.cache !== false;
    if (useCache) {
      const hit = this.cache.get(url);
      if (hit !== undefined) return hit as Json;
    }
    const maxAttempts = control.maxAttempts ?? this.retry.maxAttempts;
    let last: UpstreamError | undefined;
    for (let attempt = 1; ; attempt++) {
      if (call.remaining() <= 0) throw deadlineExceeded(purpose, call.budgetMs, last).withDetails({ attempts: attempt - 1 });
      let release: () => void;
      try {
        release = await this.pacer.acquire(call.signal, call.at);
      } catch (e) {
        if (e instanceof PacerTimeout) throw deadlineExceeded(purpose, call.budgetMs, e, "request_slot").withDetails({ attempts: attempt - 1 });
        throw e;
      }
      const remaining = call.remaining();
      const timeoutMs = Math.max(1, Math.min(this.config.requestTimeoutMs, remaining));
      const cutByDeadline = remaining < this.config.requestTimeoutMs;
      let failure: UpstreamError;
      try {
        const res = await this.fetcher(url, {
          signal: call.signal,
          timeoutMs,
          headers: { accept: "application/json" },
        });
        if (res.status >= 200 && res.status < 300) {
          let value: unknown;
          let parseError: unknown;
          if (res.parsed) value = res.parsed.value;
          else {
            try {
              value = JSON.parse(res.body);
            } catch (e) {
              parseError = e;
            }
          }
          if (parseError === undefined && isJson(value) && (!control.accept || control.accept(value))) {
            if (useCache) this.cache.set(url, value, res.parsed?.bytes ?? res.body.length);
            return value;
          }
          failure = malformedBody(purpose, parseError ?? new Error("unexpected JSON shape"));
        } else {
          failure = httpFailure(res.status, res.body, res.headers, purpose);
        }
      } catch (e) {
        if (call.signal.aborted) throw e;
        // The offline source's own typed failures (no driver, not a ChEMBL file) reach the caller as they are.
        if (e instanceof ToolError) throw e;
        if (e instanceof FetchTimeoutError && cutByDeadline) throw deadlineExceeded(purpose, call.budgetMs, e).withDetails({ attempts: attempt });
        failure = networkFailure(purpose, e instanceof FetchTimeoutError, timeoutMs, e);
      } finally {
        release();
      }
      last = failure;
      if (!failure.retryable || attempt >= maxAttempts) throw failure.withDetails({ attempts: attempt });
      const delay = failure.retryAfterMs ?? this.backoff(attempt);
      if (Date.now() + delay >= call.at) {
        // The budget stops the retries short: the client gets the failure itself, marked as such.
        const stopped = failure.withDetails({ attempts: attempt, retry_stopped_by_deadline: true });
        (stopped as { cause?: unknown }).cause = { reason: "retry_deadline_exceeded", last: (failure as { cause?: unknown }).cause };
        throw stopped;
      }
      await sleep(delay, call.signal);
    }
  }

  /** Exponential backoff with jitter: base * 2^(n-1), capped, scaled by a random factor in [0.5, 1). */
  backoff(attempt: number): number {
    const raw = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(raw * (0.5 + this.random() * 0.5));
  }

  /** One list page: the collection under `key` and page_meta.total_count. */
  async listPage(
    path: string,
    key: string,
    params: readonly Param[],
    purpose: RequestPurpose,
    call: Call,
  ): Promise<{ rows: Json[]; total: number | null; didYouMean?: string[] }> {
    const body = await this.fetchJson(path, params, purpose, call, { accept: (v) => Array.isArray(v[key]) });
    const rows = (body[key] as unknown[]).filter(isJson);
    const meta = isJson(body.page_meta) ? body.page_meta : {};
    // The offline dump's suggestions for a name that finds nothing (sqlite/rest.ts); the web API sends none.
    const near = Array.isArray(body.did_you_mean) ? body.did_you_mean.filter((n): n is string => typeof n === "string").slice(0, 10) : [];
    return near.length > 0 ? { rows, total: toInteger(meta.total_count), didYouMean: near } : { rows, total: toInteger(meta.total_count) };
  }

  /** Every row of a small list (drug sections), page by page up to `cap` rows. */
  async listAll(
    path: string,
    key: string,
    params: readonly Param[],
    purpose: RequestPurpose,
    call: Call,
    cap: number,
  ): Promise<{ rows: Json[]; total: number | null; complete: boolean }> {
    const rows: Json[] = [];
    let total: number | null = null;
    const pageSize = this.config.maxPageSize;
    for (let offset = 0; offset < cap; offset += pageSize) {
      const limit = Math.min(pageSize, cap - offset);
      const page = await this.listPage(path, key, [...params, ["limit", String(limit)], ["offset", String(offset)]], purpose, call);
      rows.push(...page.rows);
      total = page.total;
      if (page.rows.length < limit || (total !== null && rows.length >= total)) return { rows, total, complete: true };
    }
    return { rows, total, complete: total !== null && rows.length >= total };
  }
}
