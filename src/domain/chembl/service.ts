/**
 * The ChEMBL service: the only code that talks to ChEMBL. It builds Django-style filtered `.json` URLs
 * under CHEMBL_API_BASE_URL, asks for exactly the fields the normalisers read (`only=`), and runs every
 * request through one path (fetchJson) that applies:
 *  - one deadline per call (CHEMBL_DEADLINE_MS, 45 s by default, never past the tool's own budget),
 *    passed down through chained requests, so every answer settles before a client's 60 s timeout;
 *  - a per-request timeout (CHEMBL_REQUEST_TIMEOUT_MS) cut to what the deadline leaves;
 *  - retries with exponential backoff and jitter on network errors, timeouts, 5xx, unreadable bodies and
 *    429 (honouring Retry-After), only while the deadline leaves room;
 *  - a service-wide pacer (CHEMBL_MAX_CONCURRENT_PAGES requests in flight);
 *  - the shared HTTP client underneath (proxies: HTTPS_PROXY, HTTP_PROXY, NO_PROXY);
 *  - a bounded in-memory cache of successful answers;
 *  - sanitising: every failure leaves as a ToolError written by errors.ts, never upstream text.
 * Every answer names the release (from /status, cached) and carries the CC BY-SA 3.0 attribution.
 */
import { loadChemblConfig, type ChemblConfig } from "../../config.js";
import { ToolError } from "../errors.js";
import { ResponseCache, type CacheOptions } from "./cache.js";
import { UpstreamError, deadlineExceeded, httpFailure, malformedBody, networkFailure, offline, type RequestPurpose } from "./errors.js";
import { FetchAbortedError, FetchTimeoutError, sharedClientFetcher, type Fetcher } from "./http.js";
import {
  ACTIVITY_FIELDS,
  ASSAY_FIELDS,
  DOCUMENT_FIELDS,
  INDICATION_FIELDS,
  MECHANISM_FIELDS,
  MOLECULE_FIELDS,
  TARGET_FIELDS,
  WARNING_FIELDS,
  normalizeActivity,
  normalizeAssay,
  normalizeDocument,
  normalizeIndication,
  normalizeMechanism,
  normalizeMolecule,
  normalizeStatus,
  normalizeTarget,
  normalizeWarning,
  toFlag,
  toInteger,
  toText,
  type RawActivity,
  type RawAssay,
  type RawDocument,
  type RawIndication,
  type RawMechanism,
  type RawMolecule,
  type RawStatus,
  type RawTarget,
  type RawWarning,
} from "./normalise.js";
import { Pacer, PacerTimeout } from "./pacer.js";
import type { Activity, Assay, ChemblDocument, Indication, Mechanism, MoleculeRow, Source, TargetRow, Warning } from "./types.js";

// ---------------------------------------------------------------------------------------------------
// Constants of the upstream API

/** ChEMBL's paginator refuses a limit above 1000. */
export const MAX_PAGE_SIZE = 1000;
/** Distinct IDs looked up in one `__in` request; the rest come back in deferred_ids. */
export const ID_LOOKUP_CAP = 100;
/** molecule/search (Elasticsearch) reports at most this many hits. */
export const NAME_SEARCH_CEILING = 10_000;
/** Substructure search stops at this many hits (and filters max_phase only within them). */
export const SUBSTRUCTURE_CEILING = 30_000;
/** Forms of one parent read for drug info (salts, hydrates, isotopologues). */
export const MAX_FAMILY_FORMS = 100;
/** Rows of one drug section (mechanisms, indications, warnings) read before it reports truncated. */
export const MAX_SECTION_ROWS = 2000;
/** The deadline ends this long before the tool's own budget, so the sanitised answer wins the race. */
export const DEADLINE_MARGIN_MS = 250;

export const LICENSE_URL = "https://creativecommons.org/licenses/by-sa/3.0/";
export const CITATION =
  "Zdrazil B. et al. The ChEMBL Database in 2023: a drug discovery platform spanning multiple bioactivity data types and time periods. " +
  "Nucleic Acids Res. 2024;52(D1):D1180-D1192. doi:10.1093/nar/gkad1004";

export function sourceOf(release: string | null, releaseDate: string | null): Source {
  return {
    database: "ChEMBL",
    release,
    release_date: releaseDate,
    license: "CC BY-SA 3.0",
    license_url: LICENSE_URL,
    attribution:
      `Data from ChEMBL${release ? ` release ${release}` : ""} (EMBL-EBI), licensed under CC BY-SA 3.0 (${LICENSE_URL}); ` +
      `keep this attribution and licence when redistributing. Cite: ${CITATION}`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Calls and their one deadline

export interface CallOptions {
  signal?: AbortSignal;
  /** Epoch milliseconds the caller must have its answer by (ServiceContext.deadline). */
  deadline?: number;
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
    if (signal.aborted) return reject(signal.reason ?? new FetchAbortedError());
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new FetchAbortedError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// ---------------------------------------------------------------------------------------------------
// Query types

export type Param = readonly [string, string];

export type MoleculeSearchType = "name" | "exact" | "similarity" | "substructure";

export interface MoleculeSearch {
  type: MoleculeSearchType;
  /** name: a name, ChEMBL ID or InChIKey (the tool decides which; see `by`). */
  query?: string;
  by?: "text" | "chembl_id" | "inchi_key";
  /** exact / similarity / substructure. */
  smiles?: string;
  threshold?: number;
  maxPhaseMin?: number;
  limit: number;
  offset: number;
}

export interface MoleculeSearchResult {
  molecules: MoleculeRow[];
  total_count: number | null;
  totalCountCapped: boolean;
  source: Source;
}

export interface TargetSearch {
  query?: string;
  geneSymbol?: string;
  accession?: string;
  targetChemblId?: string;
  organism?: string;
  targetType?: string;
  limit: number;
  offset: number;
}

export type TargetMatch = "pref_name" | "gene_symbol" | "accession" | "target_chembl_id" | "filters";

export interface TargetSearchResult {
  targets: TargetRow[];
  total_count: number | null;
  matched_by: TargetMatch;
  source: Source;
}

export type PotencyView = "potency_ranked" | "null_potency";

/** One bioactivity view: the filters and the total order it is walked in. */
export interface ActivityQuery {
  moleculeChemblId?: string;
  /** Set instead of moleculeChemblId when alternate forms are included (the family's parent). */
  parentMoleculeChemblId?: string;
  targetChemblId?: string;
  view: PotencyView;
  standardType?: string;
  pchemblMin?: number;
  assayType?: string;
  organism?: string;
  /** "wild_type": assays with no recorded variant; otherwise one mutation as ChEMBL writes it (e.g. T790M). */
  variant?: { kind: "wild_type" } | { kind: "mutation"; mutation: string };
}

export interface ActivityPage {
  activities: Activity[];
  total_count: number | null;
  offset: number;
  source: Source;
}

export interface WalkResult {
  activities: Activity[];
  total_count: number | null;
  /** Why the walk stopped short of the view's total: the row cap, the deadline, or null when it read everything. */
  truncated_by: "row_cap" | "time_budget" | null;
  source: Source;
}

export type SectionStatus = "complete" | "truncated" | "failed";

export interface Section<T> {
  items: T[];
  status: SectionStatus;
  total_count: number | null;
  /** The error code when status is failed (the section's data is then absent, not empty). */
  error_code: string | null;
}

export interface FamilyForm {
  molecule_chembl_id: string | null;
  pref_name: string | null;
  is_parent: boolean | null;
  max_phase: number | null;
  first_approval: number | null;
  withdrawn_flag: boolean | null;
  black_box_warning: boolean | null;
}

export interface DrugInfo {
  molecule: MoleculeRow;
  parent_chembl_id: string;
  family: Section<FamilyForm>;
  mechanisms: Section<Mechanism>;
  indications: Section<Indication>;
  warnings: Section<Warning>;
  withdrawn: boolean | null;
  black_box_warning: boolean | null;
  source: Source;
}

export interface BatchLookup<T> {
  items: T[];
  not_found_ids: string[];
  deferred_ids: string[];
  source: Source;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface ServiceOptions {
  fetcher?: Fetcher;
  retry?: Partial<RetryPolicy>;
  cache?: Partial<CacheOptions>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** How long the release name from /status is trusted. */
  statusTtlMs?: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 400, maxDelayMs: 4_000 };
export const DEFAULT_CACHE: CacheOptions = { maxEntries: 2_000, maxBytes: 64 * 1024 * 1024, ttlMs: 6 * 3_600_000 };
const STATUS_TTL_MS = 3_600_000;
const STATUS_FAILURE_TTL_MS = 30_000;
const STATUS_TIMEOUT_MS = 5_000;

type Json = Record<string, unknown>;

interface FetchControl {
  /** Skip the response cache (the release status has its own). */
  cache?: boolean;
  /** Attempts for this request (status: one). */
  maxAttempts?: number;
  /** A body shape check: a JSON answer that fails it counts as unreadable. */
  accept?: (value: Json) => boolean;
}

/** A detail answer is the record itself: it must name its molecule. */
const HAS_MOLECULE_ID: FetchControl = { accept: (v) => typeof v.molecule_chembl_id === "string" };

const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------------

export class ChemblService {
  readonly config: ChemblConfig;
  readonly pacer: Pacer;
  readonly cache: ResponseCache;
  private readonly fetcher: Fetcher;
  private readonly retry: RetryPolicy;
  private readonly random: () => number;
  private readonly statusTtlMs: number;
  private status: { value: { release: string | null; release_date: string | null }; expires: number } | undefined;
  private statusInFlight: Promise<{ release: string | null; release_date: string | null }> | undefined;
  private lastRelease: string | undefined;

  constructor(config: ChemblConfig, options: ServiceOptions = {}) {
    this.config = config;
    this.fetcher = options.fetcher ?? sharedClientFetcher();
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.cache = new ResponseCache({ ...DEFAULT_CACHE, ...options.cache });
    this.pacer = new Pacer(config.maxConcurrentPages);
    this.random = options.random ?? Math.random;
    this.statusTtlMs = options.statusTtlMs ?? STATUS_TTL_MS;
  }

  /** OFFLINE (CHEMATIC_OFFLINE) refuses every ChEMBL call before anything else, argument checks included. */
  assertOnline(): void {
    if (this.config.offline) throw offline();
  }

  /** Starts one call: OFFLINE refuses here, before any request. */
  startCall(options: CallOptions = {}): Call {
    if (this.config.offline) throw offline();
    const now = Date.now();
    let at = now + this.config.deadlineMs;
    if (options.deadline !== undefined && Number.isFinite(options.deadline)) at = Math.min(at, options.deadline - DEADLINE_MARGIN_MS);
    return new Call(at, options.signal ?? new AbortController().signal, Math.max(0, at - now));
  }

  url(path: string, params: readonly Param[] = []): string {
    const query = new URLSearchParams();
    for (const [k, v] of params) query.append(k, v);
    const qs = query.toString();
    return `${this.config.apiBaseUrl}/${path}.json${qs ? `?${qs}` : ""}`;
  }

  // -------------------------------------------------------------------------------------------------
  // The one request path

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
        if (e instanceof PacerTimeout) throw deadlineExceeded(purpose, call.budgetMs, e).withDetails({ attempts: attempt - 1 });
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
          try {
            value = JSON.parse(res.body);
          } catch (e) {
            parseError = e;
          }
          if (parseError === undefined && isJson(value) && (!control.accept || control.accept(value))) {
            if (useCache) this.cache.set(url, value, res.body.length);
            return value;
          }
          failure = malformedBody(purpose, parseError ?? new Error("unexpected JSON shape"));
        } else {
          failure = httpFailure(res.status, res.body, res.headers, purpose);
        }
      } catch (e) {
        if (call.signal.aborted) throw e;
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
  private async listPage(
    path: string,
    key: string,
    params: readonly Param[],
    purpose: RequestPurpose,
    call: Call,
  ): Promise<{ rows: Json[]; total: number | null }> {
    const body = await this.fetchJson(path, params, purpose, call, { accept: (v) => Array.isArray(v[key]) });
    const rows = (body[key] as unknown[]).filter(isJson);
    const meta = isJson(body.page_meta) ? body.page_meta : {};
    return { rows, total: toInteger(meta.total_count) };
  }

  /** Every row of a small list (drug sections), page by page up to `cap` rows. */
  private async listAll(
    path: string,
    key: string,
    params: readonly Param[],
    purpose: RequestPurpose,
    call: Call,
    cap: number,
  ): Promise<{ rows: Json[]; total: number | null; complete: boolean }> {
    const rows: Json[] = [];
    let total: number | null = null;
    for (let offset = 0; offset < cap; offset += MAX_PAGE_SIZE) {
      const limit = Math.min(MAX_PAGE_SIZE, cap - offset);
      const page = await this.listPage(path, key, [...params, ["limit", String(limit)], ["offset", String(offset)]], purpose, call);
      rows.push(...page.rows);
      total = page.total;
      if (page.rows.length < limit || (total !== null && rows.length >= total)) return { rows, total, complete: true };
    }
    return { rows, total, complete: total !== null && rows.length >= total };
  }

  // -------------------------------------------------------------------------------------------------
  // Release and attribution

  /** The release and attribution; never fails the call (a failed status read names no release). */
  async source(): Promise<Source> {
    const { release, release_date } = await this.releaseInfo();
    return sourceOf(release, release_date);
  }

  private releaseInfo(): Promise<{ release: string | null; release_date: string | null }> {
    if (this.status && this.status.expires > Date.now()) return Promise.resolve(this.status.value);
    this.statusInFlight ??= (async () => {
      // Its own short budget, not the caller's: a slow status must not hold a finished answer back.
      const budget = Math.min(STATUS_TIMEOUT_MS, this.config.requestTimeoutMs, this.config.deadlineMs);
      const call = new Call(Date.now() + budget, AbortSignal.timeout(budget + 50), budget);
      try {
        const body = await this.fetchJson("status", [], { what: "the release status" }, call, {
          cache: false,
          maxAttempts: 1,
          accept: (v) => "chembl_db_version" in v,
        });
        const value = normalizeStatus(body as RawStatus);
        // A new release changes every record: answers cached under the old one go.
        const before = this.lastRelease;
        if (before !== undefined && value.release !== null && value.release !== before) this.cache.clear();
        if (value.release !== null) this.lastRelease = value.release;
        this.status = { value, expires: Date.now() + this.statusTtlMs };
        return value;
      } catch {
        const value = { release: null, release_date: null };
        this.status = { value, expires: Date.now() + Math.min(STATUS_FAILURE_TTL_MS, this.statusTtlMs) };
        return value;
      } finally {
        this.statusInFlight = undefined;
      }
    })();
    return this.statusInFlight;
  }

  /** Runs the call's main work and the release lookup side by side. */
  private async withSource<T>(work: Promise<T>): Promise<T & { source: Source }> {
    const [value, source] = await Promise.all([work, this.source()]);
    return { ...value, source };
  }

  // -------------------------------------------------------------------------------------------------
  // Molecules

  /** One molecule by ChEMBL ID (the search-row shape); NOT_FOUND when ChEMBL has none. */
  async getMolecule(id: string, options: CallOptions = {}): Promise<{ molecule: MoleculeRow; source: Source }> {
    const call = this.startCall(options);
    return this.withSource(
      (async () => {
        const body = await this.fetchJson(
          `molecule/${encodeURIComponent(id)}`,
          [["only", MOLECULE_FIELDS.join(",")]],
          { what: `molecule ${id}`, notFoundMeansMissing: true },
          call,
          HAS_MOLECULE_ID,
        );
        return { molecule: normalizeMolecule(body as RawMolecule) };
      })(),
    );
  }

  /** The URL parameters of one molecule search (exported for the URL tests). */
  moleculeSearchRequest(q: MoleculeSearch): { path: string; params: Param[]; ceiling: number | null } {
    const only: Param = ["only", MOLECULE_FIELDS.join(",")];
    const phase: Param[] = q.maxPhaseMin !== undefined ? [["max_phase__gte", String(q.maxPhaseMin)]] : [];
    const page: Param[] = [
      ["limit", String(q.limit)],
      ["offset", String(q.offset)],
    ];
    switch (q.type) {
      case "name":
        if (q.by === "chembl_id") return { path: "molecule", params: [["molecule_chembl_id", q.query!], ...phase, only, ...page], ceiling: null };
        if (q.by === "inchi_key")
          return { path: "molecule", params: [["molecule_structures__standard_inchi_key", q.query!], ...phase, only, ...page], ceiling: null };
        return { path: "molecule/search", params: [["q", q.query!], ...phase, only, ...page], ceiling: NAME_SEARCH_CEILING };
      case "exact":
        return { path: "molecule", params: [["molecule_structures__canonical_smiles__flexmatch", q.smiles!], ...phase, only, ...page], ceiling: null };
      case "similarity":
        return { path: "similarity", params: [["smiles", q.smiles!], ["similarity", String(q.threshold ?? 70)], ...phase, only, ...page], ceiling: null };
      case "substructure":
        return { path: "substructure", params: [["smiles", q.smiles!], ...phase, only, ...page], ceiling: SUBSTRUCTURE_CEILING };
    }
  }

  async searchMolecules(q: MoleculeSearch, options: CallOptions = {}): Promise<MoleculeSearchResult> {
    const call = this.startCall(options);
    const structure = q.type !== "name";
    const purpose: RequestPurpose = { what: structure ? `the ${q.type} structure search` : "the molecule search", structure };
    const { path, params, ceiling } = this.moleculeSearchRequest(q);
    return this.withSource(
      (async () => {
        // ChEMBL filters max_phase within its first 30,000 substructure hits only: when the unfiltered
        // structure reaches that ceiling, the filtered total is a lower bound too.
        const unfilteredCount =
          q.type === "substructure" && q.maxPhaseMin !== undefined
            ? this.listPage(
                "substructure",
                "molecules",
                [
                  ["smiles", q.smiles!],
                  ["only", "molecule_chembl_id"],
                  ["limit", "1"],
                  ["offset", "0"],
                ],
                purpose,
                call,
              )
            : undefined;
        const [page, unfiltered] = await Promise.all([this.listPage(path, "molecules", params, purpose, call), unfilteredCount]);
        const capped = ceiling !== null && ((page.total ?? 0) >= ceiling || (unfiltered?.total ?? 0) >= ceiling);
        return { molecules: page.rows.map((r) => normalizeMolecule(r as RawMolecule)), total_count: page.total, totalCountCapped: capped };
      })(),
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Targets

  async getTarget(id: string, options: CallOptions = {}): Promise<{ target: TargetRow; source: Source }> {
    const call = this.startCall(options);
    return this.withSource(
      (async () => {
        const body = await this.fetchJson(
          `target/${encodeURIComponent(id)}`,
          [["only", TARGET_FIELDS.join(",")]],
          { what: `target ${id}`, notFoundMeansMissing: true },
          call,
          {
            accept: (v) => typeof v.target_chembl_id === "string",
          },
        );
        return { target: normalizeTarget(body as RawTarget) };
      })(),
    );
  }

  targetSearchParams(q: TargetSearch, match: TargetMatch): Param[] {
    const params: Param[] = [];
    if (q.targetChemblId) params.push(["target_chembl_id", q.targetChemblId]);
    if (q.accession) params.push(["target_components__accession", q.accession]);
    const gene = match === "gene_symbol" ? (q.geneSymbol ?? q.query) : q.geneSymbol;
    if (gene) params.push(["target_components__target_component_synonyms__component_synonym__iexact", gene]);
    if (q.query && match === "pref_name") params.push(["pref_name__icontains", q.query]);
    if (q.organism) params.push(["organism__iexact", q.organism]);
    if (q.targetType) params.push(["target_type", q.targetType]);
    params.push(["only", TARGET_FIELDS.join(",")], ["order_by", "target_chembl_id"], ["limit", String(q.limit)], ["offset", String(q.offset)]);
    return params;
  }

  async searchTargets(q: TargetSearch, options: CallOptions = {}): Promise<TargetSearchResult> {
    const call = this.startCall(options);
    const purpose: RequestPurpose = { what: "the target search" };
    return this.withSource(
      (async () => {
        const first: TargetMatch = q.query
          ? "pref_name"
          : q.geneSymbol
            ? "gene_symbol"
            : q.accession
              ? "accession"
              : q.targetChemblId
                ? "target_chembl_id"
                : "filters";
        let match = first;
        let page = await this.listPage("target", "targets", this.targetSearchParams(q, match), purpose, call);
        // A one-word query that no target name contains is most often a gene symbol (EGFR, ACE, hERG's KCNH2).
        if (match === "pref_name" && page.rows.length === 0 && q.offset === 0 && !q.geneSymbol && /^[A-Za-z0-9-]{1,20}$/.test(q.query ?? "")) {
          match = "gene_symbol";
          page = await this.listPage("target", "targets", this.targetSearchParams(q, match), purpose, call);
        }
        return { targets: page.rows.map((r) => normalizeTarget(r as RawTarget)), total_count: page.total, matched_by: match };
      })(),
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Bioactivities

  /** The family parent of a molecule (itself when ChEMBL names no other); NOT_FOUND when the molecule does not exist. */
  async parentOf(id: string, call: Call): Promise<string> {
    const body = await this.fetchJson(
      `molecule/${encodeURIComponent(id)}`,
      [["only", "molecule_chembl_id,molecule_hierarchy"]],
      { what: `molecule ${id}`, notFoundMeansMissing: true },
      call,
      HAS_MOLECULE_ID,
    );
    const hierarchy = isJson(body.molecule_hierarchy) ? body.molecule_hierarchy : {};
    return toText(hierarchy.parent_chembl_id) ?? id;
  }

  /**
   * The filters and total order of one bioactivity view (exported for the spill, which walks the same
   * view): the ranked view holds the rows with a pchembl_value, ordered -pchembl_value then activity_id;
   * the null-potency view holds exactly the others, ordered by activity_id. ChEMBL sorts NULLs first on a
   * descending order, so the ranked view must exclude them explicitly.
   */
  activityParams(q: ActivityQuery): Param[] {
    const p: Param[] = [];
    if (q.parentMoleculeChemblId) p.push(["parent_molecule_chembl_id", q.parentMoleculeChemblId]);
    else if (q.moleculeChemblId) p.push(["molecule_chembl_id", q.moleculeChemblId]);
    if (q.targetChemblId) p.push(["target_chembl_id", q.targetChemblId]);
    if (q.standardType) p.push(["standard_type__iexact", q.standardType]);
    if (q.assayType) p.push(["assay_type", q.assayType]);
    if (q.organism) p.push(["target_organism__iexact", q.organism]);
    if (q.variant?.kind === "wild_type") p.push(["assay_variant_mutation__isnull", "true"]);
    else if (q.variant?.kind === "mutation") p.push(["assay_variant_mutation", q.variant.mutation]);
    if (q.view === "potency_ranked") {
      p.push(["pchembl_value__isnull", "false"]);
      if (q.pchemblMin !== undefined) p.push(["pchembl_value__gte", String(q.pchemblMin)]);
      p.push(["order_by", "-pchembl_value"], ["order_by", "activity_id"]);
    } else {
      p.push(["pchembl_value__isnull", "true"], ["order_by", "activity_id"]);
    }
    p.push(["only", ACTIVITY_FIELDS.join(",")]);
    return p;
  }

  private async fetchActivityPage(q: ActivityQuery, offset: number, limit: number, call: Call): Promise<{ activities: Activity[]; total: number | null }> {
    const page = await this.listPage(
      "activity",
      "activities",
      [...this.activityParams(q), ["limit", String(limit)], ["offset", String(offset)]],
      { what: "bioactivities" },
      call,
    );
    return { activities: page.rows.map((r) => normalizeActivity(r as RawActivity)), total: page.total };
  }

  /** Resolves include_alternate_forms into the parent filter, inside the same call. */
  async resolveActivityQuery(q: ActivityQuery & { includeAlternateForms?: boolean }, call: Call): Promise<ActivityQuery> {
    if (!q.includeAlternateForms || !q.moleculeChemblId) return { ...q, parentMoleculeChemblId: undefined };
    const parent = await this.parentOf(q.moleculeChemblId, call);
    return { ...q, parentMoleculeChemblId: parent };
  }

  /** One page of a view, by offset (the tool's cursor carries the offset; page_meta.next is never followed). */
  async activityPage(
    q: ActivityQuery & { includeAlternateForms?: boolean },
    offset: number,
    limit: number,
    options: CallOptions = {},
  ): Promise<ActivityPage & { query: ActivityQuery }> {
    const call = this.startCall(options);
    return this.withSource(
      (async () => {
        const query = await this.resolveActivityQuery(q, call);
        const page = await this.fetchActivityPage(query, offset, Math.min(limit, MAX_PAGE_SIZE), call);
        return { activities: page.activities, total_count: page.total, offset, query };
      })(),
    );
  }

  /**
   * Walks a whole view in its total order, up to `maxRows`, with up to CHEMBL_MAX_CONCURRENT_PAGES pages
   * in flight (the pacer bounds them service-wide). Pages land in offset order. At the deadline the walk
   * stops starting pages and returns the contiguous prefix it has, with truncated_by "time_budget". This
   * is the seam a canvas spill plugs into: it stages what this returns.
   */
  async walkActivities(
    q: ActivityQuery,
    opts: { maxRows: number; pageSize?: number; call?: Call; onProgress?: (fetched: number, goal: number) => void } & CallOptions,
  ): Promise<WalkResult> {
    const call = opts.call ?? this.startCall(opts);
    const pageSize = Math.min(opts.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE, opts.maxRows);
    const work = (async () => {
      const first = await this.fetchActivityPage(q, 0, pageSize, call);
      const total = first.total;
      const goal = Math.min(opts.maxRows, total ?? opts.maxRows);
      const pages: Activity[][] = [first.activities];
      let fetched = first.activities.length;
      opts.onProgress?.(fetched, goal);
      const offsets: number[] = [];
      if (first.activities.length === pageSize) for (let o = pageSize; o < goal; o += pageSize) offsets.push(o);
      let stoppedByTime = false;
      let shortPage = first.activities.length < pageSize;
      let next = 0;
      const results = new Map<number, Activity[]>();
      const worker = async () => {
        while (!stoppedByTime && !shortPage && next < offsets.length) {
          const i = next++;
          const offset = offsets[i]!;
          try {
            const page = await this.fetchActivityPage(q, offset, Math.min(pageSize, goal - offset), call);
            results.set(i, page.activities);
            fetched += page.activities.length;
            opts.onProgress?.(fetched, goal);
            if (page.activities.length < Math.min(pageSize, goal - offset)) shortPage = true;
          } catch (e) {
            if (e instanceof UpstreamError && (e.code === "DEADLINE_EXCEEDED" || e.details.retry_stopped_by_deadline === true)) {
              stoppedByTime = true;
              return;
            }
            throw e;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.config.maxConcurrentPages, offsets.length) }, worker));
      for (let i = 0; i < offsets.length && results.has(i); i++) pages.push(results.get(i)!);
      const activities = pages.flat().slice(0, opts.maxRows);
      let truncated: WalkResult["truncated_by"] = null;
      if (stoppedByTime && (total === null || activities.length < Math.min(total, opts.maxRows))) truncated = "time_budget";
      else if (total !== null && total > opts.maxRows && activities.length >= opts.maxRows) truncated = "row_cap";
      return { activities, total_count: total, truncated_by: truncated };
    })();
    return this.withSource(work);
  }

  // -------------------------------------------------------------------------------------------------
  // Drug information

  async drugInfo(id: string, options: CallOptions = {}): Promise<DrugInfo> {
    const call = this.startCall(options);
    return this.withSource(
      (async () => {
        const body = await this.fetchJson(
          `molecule/${encodeURIComponent(id)}`,
          [["only", MOLECULE_FIELDS.join(",")]],
          { what: `molecule ${id}`, notFoundMeansMissing: true },
          call,
          HAS_MOLECULE_ID,
        );
        const molecule = normalizeMolecule(body as RawMolecule);
        const parent = molecule.parent_chembl_id ?? molecule.molecule_chembl_id ?? id;
        const byParent: Param = ["parent_molecule_chembl_id", parent];
        const section = async <R, T>(
          path: string,
          key: string,
          fields: readonly string[],
          order: string,
          what: string,
          normalise: (r: R) => T,
        ): Promise<Section<T>> => {
          try {
            const all = await this.listAll(path, key, [byParent, ["only", fields.join(",")], ["order_by", order]], { what }, call, MAX_SECTION_ROWS);
            return { items: all.rows.map((r) => normalise(r as R)), status: all.complete ? "complete" : "truncated", total_count: all.total, error_code: null };
          } catch (e) {
            if (e instanceof ToolError && e.code !== "OFFLINE") return { items: [], status: "failed", total_count: null, error_code: e.code };
            throw e;
          }
        };
        const [family, mechanisms, indications, warnings] = await Promise.all([
          this.family(parent, call),
          section<RawMechanism, Mechanism>("mechanism", "mechanisms", MECHANISM_FIELDS, "mec_id", "drug mechanisms", normalizeMechanism),
          section<RawIndication, Indication>("drug_indication", "drug_indications", INDICATION_FIELDS, "drugind_id", "drug indications", normalizeIndication),
          section<RawWarning, Warning>("drug_warning", "drug_warnings", WARNING_FIELDS, "warning_id", "drug warnings", normalizeWarning),
        ]);
        await this.nameMechanismTargets(mechanisms.items, call);
        const flags = familyFlags(molecule, family, warnings);
        return { molecule, parent_chembl_id: parent, family, mechanisms, indications, warnings, ...flags };
      })(),
    );
  }

  /** The parent's forms (salts, hydrates, isotopologues) with their own phase and flags. */
  private async family(parent: string, call: Call): Promise<Section<FamilyForm>> {
    try {
      const forms = await this.listPage(
        "molecule_form",
        "molecule_forms",
        [
          ["parent_chembl_id", parent],
          ["only", "molecule_chembl_id,parent_chembl_id,is_parent"],
          ["limit", String(MAX_FAMILY_FORMS)],
          ["offset", "0"],
        ],
        { what: "the molecule's forms" },
        call,
      );
      const ids = [...new Set([parent, ...forms.rows.map((f) => toText(f.molecule_chembl_id)).filter((x): x is string => x !== null)])];
      const looked = await this.lookupRows(
        "molecule",
        "molecules",
        "molecule_chembl_id",
        ids.slice(0, ID_LOOKUP_CAP),
        MOLECULE_FIELDS,
        "the molecule's forms",
        call,
      );
      const items = looked.map((r): FamilyForm => {
        const m = normalizeMolecule(r as RawMolecule);
        const form = forms.rows.find((f) => toText(f.molecule_chembl_id) === m.molecule_chembl_id);
        return {
          molecule_chembl_id: m.molecule_chembl_id,
          pref_name: m.pref_name,
          is_parent: form ? toFlag(form.is_parent) : m.molecule_chembl_id === parent,
          max_phase: m.max_phase,
          first_approval: m.first_approval,
          withdrawn_flag: m.withdrawn_flag,
          black_box_warning: m.black_box_warning,
        };
      });
      const complete = forms.total === null || forms.total <= MAX_FAMILY_FORMS;
      return { items, status: complete ? "complete" : "truncated", total_count: forms.total, error_code: null };
    } catch (e) {
      if (e instanceof ToolError && e.code !== "OFFLINE") return { items: [], status: "failed", total_count: null, error_code: e.code };
      throw e;
    }
  }

  /** Best effort: the mechanisms' target names, one `__in` request. */
  private async nameMechanismTargets(mechanisms: Mechanism[], call: Call): Promise<void> {
    const ids = [...new Set(mechanisms.map((m) => m.target_chembl_id).filter((x): x is string => x !== null))].slice(0, ID_LOOKUP_CAP);
    if (ids.length === 0) return;
    try {
      const rows = await this.lookupRows(
        "target",
        "targets",
        "target_chembl_id",
        ids,
        ["target_chembl_id", "pref_name", "target_type"],
        "mechanism targets",
        call,
      );
      const byId = new Map(rows.map((r) => [toText(r.target_chembl_id), r]));
      for (const m of mechanisms) {
        const t = byId.get(m.target_chembl_id);
        if (t) {
          m.target_pref_name = toText(t.pref_name);
          m.target_type = toText(t.target_type);
        }
      }
    } catch (e) {
      if (!(e instanceof ToolError)) throw e;
      // The names are a convenience; the mechanisms stand without them.
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Batch lookups (assays, documents)

  /** One `__in` request for up to ID_LOOKUP_CAP IDs. A 404 here is a broken endpoint, not a miss. */
  private async lookupRows(
    path: string,
    key: string,
    idField: string,
    ids: readonly string[],
    fields: readonly string[],
    what: string,
    call: Call,
  ): Promise<Json[]> {
    if (ids.length === 0) return [];
    const page = await this.listPage(
      path,
      key,
      [
        [`${idField}__in`, ids.join(",")],
        ["only", fields.join(",")],
        ["limit", String(ids.length)],
        ["offset", "0"],
      ],
      { what, notFoundMeansMissing: false },
      call,
    );
    return page.rows;
  }

  /**
   * The shared batch contract: the first ID_LOOKUP_CAP distinct IDs are looked up in one request; the
   * rest come back in deferred_ids; an ID ChEMBL holds nothing for is in not_found_ids. Items keep the
   * order the IDs were given in.
   */
  async lookupByChemblIds<T extends object>(
    kind: { path: string; key: string; idField: string; fields: readonly string[]; what: string; normalise: (raw: Json) => T },
    ids: readonly string[],
    options: CallOptions = {},
  ): Promise<BatchLookup<T>> {
    const call = this.startCall(options);
    const distinct = [...new Set(ids)];
    const now = distinct.slice(0, ID_LOOKUP_CAP);
    const deferred = distinct.slice(ID_LOOKUP_CAP);
    return this.withSource(
      (async () => {
        const rows = (await this.lookupRows(kind.path, kind.key, kind.idField, now, kind.fields, kind.what, call)).map(kind.normalise);
        const byId = new Map<string, T>();
        for (const r of rows) {
          const id = (r as Record<string, unknown>)[kind.idField];
          if (typeof id === "string" && !byId.has(id)) byId.set(id, r);
        }
        return {
          items: now.filter((id) => byId.has(id)).map((id) => byId.get(id)!),
          not_found_ids: now.filter((id) => !byId.has(id)),
          deferred_ids: deferred,
        };
      })(),
    );
  }

  getAssays(ids: readonly string[], options: CallOptions = {}): Promise<BatchLookup<Assay>> {
    return this.lookupByChemblIds(
      { path: "assay", key: "assays", idField: "assay_chembl_id", fields: ASSAY_FIELDS, what: "assays", normalise: (r) => normalizeAssay(r as RawAssay) },
      ids,
      options,
    );
  }

  getDocuments(ids: readonly string[], options: CallOptions = {}): Promise<BatchLookup<ChemblDocument>> {
    return this.lookupByChemblIds(
      {
        path: "document",
        key: "documents",
        idField: "document_chembl_id",
        fields: DOCUMENT_FIELDS,
        what: "documents",
        normalise: (r) => normalizeDocument(r as RawDocument),
      },
      ids,
      options,
    );
  }
}

/**
 * Withdrawn and black-box status read across the family: true when any form is flagged or ChEMBL holds a
 * warning of that type; false only when every source was read and none says so; otherwise null.
 */
export function familyFlags(
  molecule: MoleculeRow,
  family: Section<FamilyForm>,
  warnings: Section<Warning>,
): { withdrawn: boolean | null; black_box_warning: boolean | null } {
  const decide = (own: boolean | null, forms: Array<boolean | null>, warningType: RegExp): boolean | null => {
    const values = [own, ...forms];
    const fromWarnings = warnings.items.some((w) => w.warning_type !== null && warningType.test(w.warning_type));
    if (values.includes(true) || fromWarnings) return true;
    const allRead = family.status === "complete" && warnings.status === "complete";
    return allRead && values.every((v) => v === false) ? false : null;
  };
  return {
    withdrawn: decide(
      molecule.withdrawn_flag,
      family.items.map((f) => f.withdrawn_flag),
      /withdrawn/i,
    ),
    black_box_warning: decide(
      molecule.black_box_warning,
      family.items.map((f) => f.black_box_warning),
      /black\s*box/i,
    ),
  };
}

// ---------------------------------------------------------------------------------------------------
// The process-wide service

let shared: ChemblService | undefined;

/** The service every registered tool and the chembl:// provider use (built from the validated config). */
export function getChemblService(): ChemblService {
  if (!shared) {
    // Built on first use, so importing this module has no side effect; createApp has validated the env.
    shared = new ChemblService(loadChemblConfig(process.env));
  }
  return shared;
}

/** Installs the service built from the start-up config (the app calls this once; tests may too). */
export function initChemblService(config: ChemblConfig, options: ServiceOptions = {}): ChemblService {
  shared = new ChemblService(config, options);
  return shared;
}
