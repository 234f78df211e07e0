/**
 * The ChEMBL service: the only code that talks to ChEMBL, and the facade the tools and the chembl://
 * resources call. Its parts:
 *  - request.ts: the one request path (a retrying, cached, paced, deadline-bound GET) and call deadlines;
 *  - release.ts: the release every answer names (from /status, cached) and the CC BY-SA 3.0 attribution;
 *  - queries.ts: the query types and the URL parameters they become;
 *  - walk.ts: bioactivity pages and the walk of a whole view;
 *  - drug-info.ts: the drug-information aggregation;
 *  - batch.ts: lookups by ChEMBL ID;
 *  - structures/: with CHEMBL_SQLITE, similarity and substructure searches over the dump's structure index.
 * Every answer names the release and carries the attribution.
 */
import { basename } from "node:path";
import { loadChemblConfig, type ChemblConfig } from "../../config.js";
import { ToolError } from "../errors.js";
import { round } from "../chem/rdkit.js";
import { ASSAY_LOOKUP, DOCUMENT_LOOKUP, lookupByChemblIds, type BatchLookup, type LookupKind } from "./batch.js";
import type { ResponseCache } from "./cache.js";
import { drugInfo, type DrugInfo } from "./drug-info.js";
import type { RequestPurpose } from "./errors.js";
import { MOLECULE_FIELDS, TARGET_FIELDS, normalizeMolecule, normalizeTarget } from "./normalise.js";
import { toText } from "./coerce.js";
import type { Pacer } from "./pacer.js";
import {
  SUBSTRUCTURE_CEILING,
  activityParams,
  moleculeSearchRequest,
  targetSearchParams,
  type ActivityQuery,
  type MoleculeSearch,
  type MoleculeSearchResult,
  type TargetMatch,
  type TargetSearch,
  type TargetSearchResult,
} from "./queries.js";
import { ReleaseLookup } from "./release.js";
import { ChemblRequests, HAS_MOLECULE_ID, isJson, type Call, type CallOptions, type Json, type Param, type RequestOptions } from "./request.js";
import type { Assay, ChemblDocument, MoleculeRow, Source, TargetRow } from "./types.js";
import { SqliteSource, type DumpInfo } from "./sqlite/source.js";
import { locateStructureIndex } from "./structures/place.js";
import { structureSearch, type StructureScanner } from "./structures/search.js";
import { ParentStructures, fetchActivityPage, walkActivities, type ActivityPage, type PageSink, type WalkResult } from "./walk.js";

export { ID_LOOKUP_CAP, type BatchLookup, type LookupKind } from "./batch.js";
export { type DrugInfo, type FamilyForm, type Section } from "./drug-info.js";
export {
  NAME_SEARCH_CEILING,
  SUBSTRUCTURE_CEILING,
  type ActivityQuery,
  type MoleculeSearch,
  type MoleculeSearchResult,
  type MoleculeSearchType,
  type PotencyView,
  type TargetMatch,
  type TargetSearch,
  type TargetSearchResult,
} from "./queries.js";
export { CITATION, LICENSE_URL, sourceOf } from "./release.js";
export { Call, callOptions, type CallOptions, type Param } from "./request.js";
export type { ActivityPage, PageSink, ParentStructures, WalkResult } from "./walk.js";
export type { StructureScanner } from "./structures/search.js";

/** What a structure search needs from the layer above: the chemistry pool, to scan the structure index. */
export interface StructureTools {
  scan?: StructureScanner;
}

/** Time a structure search keeps after its scan for reading the page's rows from the dump. */
const ROWS_RESERVE_MS = 1_500;

export interface ServiceOptions extends RequestOptions {
  /** How long the release name from /status is trusted. */
  statusTtlMs?: number;
}

export class ChemblService {
  readonly config: ChemblConfig;
  readonly pacer: Pacer;
  readonly cache: ResponseCache;
  /** The offline source when CHEMBL_SQLITE names a dump: it answers every request in place of the web API. */
  readonly sqlite: SqliteSource | undefined;
  private readonly requests: ChemblRequests;
  private readonly release: ReleaseLookup;
  private readonly options: ServiceOptions;
  /** The dump has opened once (a structure search need not wait for it through the request path). */
  private dumpOpened = false;
  /** The web API beside the dump, for a structure search the dump has no index for (network allowed). */
  private web: { requests: ChemblRequests; release: ReleaseLookup } | undefined;

  constructor(config: ChemblConfig, options: ServiceOptions = {}) {
    this.config = config;
    this.options = options;
    if (config.sqlitePath) {
      // The dump answers even under CHEMATIC_OFFLINE; a local query is not retried (it would fail the same way).
      this.sqlite = new SqliteSource(config.sqlitePath);
      this.requests = new ChemblRequests(
        { ...config, offline: false },
        { ...options, fetcher: this.sqlite.fetcher(config.apiBaseUrl), retry: { ...options.retry, maxAttempts: 1 } },
      );
    } else {
      this.requests = new ChemblRequests(config, options);
    }
    this.release = new ReleaseLookup(this.requests, options.statusTtlMs, this.sqlite ? basename(this.sqlite.path) : undefined);
    this.pacer = this.requests.pacer;
    this.cache = this.requests.cache;
  }

  /** The dump's facts (doctor): path, release, size, sidecar, structure index; the typed error when it cannot be opened. */
  dumpInfo(): Promise<DumpInfo> | undefined {
    return this.sqlite?.open().then((info) => ({ ...info, structure_index: locateStructureIndex(info.path, info.release) }));
  }

  /** Stops the dump's worker thread (tests; the process exit does it otherwise). */
  async close(): Promise<void> {
    await this.sqlite?.close();
  }

  /** OFFLINE (CHEMATIC_OFFLINE) refuses every ChEMBL call before anything else, argument checks included. */
  assertOnline(): void {
    this.requests.assertOnline();
  }

  /** Starts one call: OFFLINE refuses here, before any request. */
  startCall(options: CallOptions = {}): Call {
    return this.requests.startCall(options);
  }

  /** The release and attribution; never fails the call (a failed status read names no release). */
  source(): Promise<Source> {
    return this.release.source();
  }

  // -------------------------------------------------------------------------------------------------
  // Molecules

  /** One molecule by ChEMBL ID (the search-row shape); NOT_FOUND when ChEMBL has none. */
  async getMolecule(id: string, options: CallOptions = {}): Promise<{ molecule: MoleculeRow; source: Source }> {
    const call = this.requests.startCall(options);
    return this.release.withSource(
      (async () => {
        const body = await this.requests.fetchJson(
          `molecule/${encodeURIComponent(id)}`,
          [["only", MOLECULE_FIELDS.join(",")]],
          { what: `molecule ${id}`, notFoundMeansMissing: true },
          call,
          HAS_MOLECULE_ID,
        );
        return { molecule: normalizeMolecule(body) };
      })(),
    );
  }

  /** The URL parameters of one molecule search (exported for the URL tests). */
  moleculeSearchRequest(q: MoleculeSearch): { path: string; params: Param[]; ceiling: number | null } {
    return moleculeSearchRequest(q);
  }

  /**
   * One molecule search. With CHEMBL_SQLITE, similarity and substructure run over the dump's structure
   * index in the chemistry pool (`tools.scan`); without a usable index they go to the web API when the
   * network is allowed (the answer says so), and otherwise answer how to build the index.
   */
  async searchMolecules(q: MoleculeSearch, options: CallOptions = {}, tools: StructureTools = {}): Promise<MoleculeSearchResult> {
    const call = this.requests.startCall(options);
    if (this.sqlite && (q.type === "similarity" || q.type === "substructure")) return this.searchStructuresOffline(q, call, tools.scan);
    return this.searchOn(this.requests, this.release, q, call);
  }

  private searchOn(requests: ChemblRequests, release: ReleaseLookup, q: MoleculeSearch, call: Call): Promise<MoleculeSearchResult> {
    const structure = q.type !== "name";
    const purpose: RequestPurpose = { what: structure ? `the ${q.type} structure search` : "the molecule search", structure };
    const { path, params, ceiling } = moleculeSearchRequest(q);
    return release.withSource(
      (async () => {
        // ChEMBL filters max_phase within its first 30,000 substructure hits only: when the unfiltered
        // structure reaches that ceiling, the filtered total is a lower bound too.
        const unfilteredCount =
          q.type === "substructure" && q.maxPhaseMin !== undefined
            ? requests.listPage(
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
        const [page, unfiltered] = await Promise.all([requests.listPage(path, "molecules", params, purpose, call), unfilteredCount]);
        const capped = ceiling !== null && ((page.total ?? 0) >= ceiling || (unfiltered?.total ?? 0) >= ceiling);
        return {
          molecules: page.rows.map((r) => normalizeMolecule(r)),
          total_count: page.total,
          totalCountCapped: capped,
          ...(page.didYouMean ? { didYouMean: page.didYouMean } : {}),
        };
      })(),
    );
  }

  /** Similarity or substructure against the dump: its structure index, or the web API, or a typed answer saying how to build the index. */
  private async searchStructuresOffline(q: MoleculeSearch, call: Call, scan: StructureScanner | undefined): Promise<MoleculeSearchResult> {
    const type = q.type as "similarity" | "substructure";
    // Until the dump has opened once, through the request path first: a dump still opening (building its
    // lookup sidecar) or unusable answers its typed error within the call's deadline.
    if (!this.dumpOpened) await this.requests.fetchJson("status", [], { what: "the dump's release" }, call, { cache: false, maxAttempts: 1 });
    const info = await this.sqlite!.open();
    this.dumpOpened = true;
    const index = locateStructureIndex(info.path, info.release);
    if (index.state !== "present" || !index.header || !index.path) {
      const why =
        index.state === "stale" ? `its structure index ${index.path} is stale (${index.reason ?? "it does not match the dump"})` : "it has no structure index";
      const build = "Build the index with `chematic-mcp chembl index` (CHEMBL_SQLITE set; minutes for a full release)";
      if (!this.config.offline) {
        this.web ??= (() => {
          const requests = new ChemblRequests({ ...this.config, sqlitePath: undefined }, this.options);
          return { requests, release: new ReleaseLookup(requests, this.options.statusTtlMs) };
        })();
        let answer: MoleculeSearchResult;
        try {
          answer = await this.searchOn(this.web.requests, this.web.release, q, call);
        } catch (e) {
          // A structure the web API refused is the caller's to fix; anything else: both sources failed, say both.
          if (!(e instanceof ToolError) || e.code === "INVALID_STRUCTURE" || call.signal.aborted) throw e;
          throw new ToolError(
            "UPSTREAM_UNAVAILABLE",
            `The ChEMBL SQLite dump answers no ${type} search (${why}), and the ChEMBL web API did not answer it either: ${e.message}`,
            { source: "sqlite", reason: index.state === "stale" ? "stale_structure_index" : "no_structure_index", search_type: type, web_error: e.code },
            `${build}; or retry later for the web API.`,
          );
        }
        return { ...answer, notices: [`The ChEMBL SQLite dump answers no ${type} search: ${why}. This search was answered by the ChEMBL web API. ${build}.`] };
      }
      throw new ToolError(
        "UPSTREAM_UNAVAILABLE",
        `The ChEMBL SQLite dump answers no ${type} search: ${why}`,
        {
          source: "sqlite",
          reason: index.state === "stale" ? "stale_structure_index" : "no_structure_index",
          search_type: type,
          ...(index.path ? { path: index.path } : {}),
        },
        `${build}, or use search_type exact or name against the dump; without CHEMATIC_OFFLINE the search would go to the web API.`,
      );
    }
    if (!scan) {
      throw new ToolError("UPSTREAM_UNAVAILABLE", `The offline ${type} search needs the chemistry worker pool, which this call did not get`, {
        source: "sqlite",
        reason: "no_chemistry_pool",
        search_type: type,
      });
    }
    return this.release.withSource(
      (async () => {
        const ranked = await structureSearch({
          index: index.path!,
          header: index.header!,
          type,
          smiles: q.smiles!,
          threshold: q.threshold,
          ceiling: SUBSTRUCTURE_CEILING,
          scan,
          deadline: call.at - ROWS_RESERVE_MS,
          signal: call.signal,
        });
        // max_phase filters the whole ranking (similarity) or, as ChEMBL does, the first 30,000 substructure hits.
        const keep: number[] = [];
        ranked.rec.forEach((_, i) => {
          const phase = ranked.max_phase[i];
          if (q.maxPhaseMin === undefined || (phase !== null && phase !== undefined && phase >= q.maxPhaseMin)) keep.push(i);
        });
        const page = keep.slice(q.offset, q.offset + q.limit);
        const ids = page.map((i) => ranked.chembl_id[i]!);
        const rows = await this.moleculesInOrder(ids, call);
        // similarity as the web API gives it: percent (here to 2 decimals, as the tanimoto tool's similarity_percent).
        const molecules = rows.flatMap((row, k) => {
          if (!row) return [];
          const sim = ranked.sim?.[page[k]!];
          return [normalizeMolecule({ ...row, ...(sim !== undefined ? { similarity: round(sim * 100, 2) } : {}) })];
        });
        const notices: string[] = [];
        if (!ranked.complete) {
          notices.push(
            `The substructure scan stopped at this call's deadline after ${ranked.scanned.toLocaleString("en-US")} of ${ranked.needed.toLocaleString("en-US")} structures: ` +
              "these hits are the first in the index's order, and the total is not known.",
          );
        }
        return {
          molecules,
          total_count: ranked.complete ? keep.length : null,
          totalCountCapped: ranked.capped,
          ...(notices.length > 0 ? { notices } : {}),
        };
      })(),
    );
  }

  /** Molecule rows for ChEMBL IDs through the request path (the dump's worker), in the order given (undefined: no row). */
  private async moleculesInOrder(ids: string[], call: Call): Promise<Array<Json | undefined>> {
    if (ids.length === 0) return [];
    const page = await this.requests.listPage(
      "molecule",
      "molecules",
      [
        ["molecule_chembl_id__in", ids.join(",")],
        ["only", MOLECULE_FIELDS.join(",")],
        ["limit", String(ids.length)],
        ["offset", "0"],
      ],
      { what: "the structure search's molecules" },
      call,
    );
    const byId = new Map(page.rows.map((r) => [String(r.molecule_chembl_id), r]));
    return ids.map((id) => byId.get(id));
  }

  // -------------------------------------------------------------------------------------------------
  // Targets

  async getTarget(id: string, options: CallOptions = {}): Promise<{ target: TargetRow; source: Source }> {
    const call = this.requests.startCall(options);
    return this.release.withSource(
      (async () => {
        const body = await this.requests.fetchJson(
          `target/${encodeURIComponent(id)}`,
          [["only", TARGET_FIELDS.join(",")]],
          { what: `target ${id}`, notFoundMeansMissing: true },
          call,
          {
            accept: (v) => typeof v.target_chembl_id === "string",
          },
        );
        return { target: normalizeTarget(body) };
      })(),
    );
  }

  targetSearchParams(q: TargetSearch, match: TargetMatch): Param[] {
    return targetSearchParams(q, match);
  }

  async searchTargets(q: TargetSearch, options: CallOptions = {}): Promise<TargetSearchResult> {
    const call = this.requests.startCall(options);
    const purpose: RequestPurpose = { what: "the target search" };
    return this.release.withSource(
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
        let page = await this.requests.listPage("target", "targets", targetSearchParams(q, match), purpose, call);
        // A one-word query that no target name contains is most often a gene symbol (EGFR, ACE, hERG's KCNH2).
        if (match === "pref_name" && page.rows.length === 0 && q.offset === 0 && !q.geneSymbol && /^[A-Za-z0-9-]{1,20}$/.test(q.query ?? "")) {
          match = "gene_symbol";
          page = await this.requests.listPage("target", "targets", targetSearchParams(q, match), purpose, call);
        }
        return { targets: page.rows.map((r) => normalizeTarget(r)), total_count: page.total, matched_by: match };
      })(),
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Bioactivities

  /** The family parent of a molecule (itself when ChEMBL names no other); NOT_FOUND when the molecule does not exist. */
  async parentOf(id: string, call: Call): Promise<string> {
    const body = await this.requests.fetchJson(
      `molecule/${encodeURIComponent(id)}`,
      [["only", "molecule_chembl_id,molecule_hierarchy"]],
      { what: `molecule ${id}`, notFoundMeansMissing: true },
      call,
      HAS_MOLECULE_ID,
    );
    const hierarchy = isJson(body.molecule_hierarchy) ? body.molecule_hierarchy : {};
    return toText(hierarchy.parent_chembl_id) ?? id;
  }

  /** The filters and total order of one bioactivity view (see queries.ts; the spill walks the same view). */
  activityParams(q: ActivityQuery): Param[] {
    return activityParams(q);
  }

  /** Resolves include_alternate_forms into the parent filter, inside the same call. */
  async resolveActivityQuery(q: ActivityQuery & { includeAlternateForms?: boolean }, call: Call): Promise<ActivityQuery> {
    if (!q.includeAlternateForms || !q.moleculeChemblId) return { ...q, parentMoleculeChemblId: undefined };
    const parent = await this.parentOf(q.moleculeChemblId, call);
    return { ...q, parentMoleculeChemblId: parent };
  }

  /**
   * One page of a view, by offset (the tool's cursor carries the offset; page_meta.next is never followed). With
   * `read.parents` each activity carries parent_smiles (one batched lookup of the parents not on the page).
   */
  async activityPage(
    q: ActivityQuery & { includeAlternateForms?: boolean },
    offset: number,
    limit: number,
    options: CallOptions = {},
    read: { parents?: boolean } = {},
  ): Promise<ActivityPage & { query: ActivityQuery }> {
    const call = this.requests.startCall(options);
    return this.release.withSource(
      (async () => {
        const query = await this.resolveActivityQuery(q, call);
        const parents = read.parents ? new ParentStructures(this.requests, call) : undefined;
        const page = await fetchActivityPage(this.requests, query, offset, Math.min(limit, this.config.maxPageSize), call, parents);
        return { activities: page.activities, total_count: page.total, offset, query };
      })(),
    );
  }

  /**
   * Walks a whole view in its total order, up to `maxRows`, with up to CHEMBL_MAX_CONCURRENT_PAGES pages
   * in flight (the pacer bounds them service-wide). Pages land in offset order. At the deadline the walk
   * stops starting pages and returns the contiguous prefix it has, with truncated_by "time_budget". This
   * is the seam a canvas spill plugs into: onPage receives that prefix page by page while the walk goes on.
   */
  async walkActivities(
    q: ActivityQuery,
    opts: {
      maxRows: number;
      pageSize?: number;
      call?: Call;
      onProgress?: (fetched: number, goal: number) => void;
      onPage?: PageSink;
      /** Fills each page's parent_smiles before it is handed on (ParentStructures, from parentStructures). */
      parents?: ParentStructures;
    } & CallOptions,
  ): Promise<WalkResult> {
    const call = opts.call ?? this.requests.startCall(opts);
    return this.release.withSource(walkActivities(this.requests, q, opts, call));
  }

  /** The parents' structures of activities (walk.ts ParentStructures), looked up within `call`: a spill's walk fills every page with them. */
  parentStructures(call: Call): ParentStructures {
    return new ParentStructures(this.requests, call);
  }

  // -------------------------------------------------------------------------------------------------
  // Drug information (drug-info.ts) and batch lookups (batch.ts)

  async drugInfo(id: string, options: CallOptions = {}): Promise<DrugInfo> {
    const call = this.requests.startCall(options);
    return this.release.withSource(drugInfo(this.requests, id, call));
  }

  async lookupByChemblIds<T extends object>(kind: LookupKind<T>, ids: readonly string[], options: CallOptions = {}): Promise<BatchLookup<T>> {
    const call = this.requests.startCall(options);
    return this.release.withSource(lookupByChemblIds(this.requests, kind, ids, call));
  }

  getAssays(ids: readonly string[], options: CallOptions = {}): Promise<BatchLookup<Assay>> {
    return this.lookupByChemblIds(ASSAY_LOOKUP, ids, options);
  }

  getDocuments(ids: readonly string[], options: CallOptions = {}): Promise<BatchLookup<ChemblDocument>> {
    return this.lookupByChemblIds(DOCUMENT_LOOKUP, ids, options);
  }
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
