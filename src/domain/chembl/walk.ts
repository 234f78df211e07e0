/**
 * Bioactivity pages: one page of a view by offset, and the walk of a whole view in its total order (the
 * seam a canvas spill plugs into); ParentStructures, each activity's parent_smiles from its parent's molecule record
 * (an inline page when asked, every page of a spill's walk).
 */
import { ID_LOOKUP_CAP, lookupRows } from "./batch.js";
import { toText } from "./coerce.js";
import { UpstreamError } from "./errors.js";
import { normalizeActivity } from "./normalise.js";
import { activityParams, type ActivityQuery } from "./queries.js";
import { isJson, type Call, type ChemblRequests, type Json } from "./request.js";
import type { Activity, Source } from "./types.js";

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

/**
 * Receives a walk's pages in view order as they complete its contiguous prefix: the rows, the 0-based
 * position of the first in the view, and the view's total (null when ChEMBL gave none).
 */
export type PageSink = (activities: Activity[], start: number, total: number | null) => void;

/**
 * The structures of family parents, as ChEMBL records them (the parent molecule's canonical_smiles), looked up once
 * per parent for a page or a whole walk: an activity of the parent itself carries it already (its canonical_smiles),
 * the others' parents are read in batched `molecule?molecule_chembl_id__in=...` requests of at most ID_LOOKUP_CAP IDs
 * through the request path (paced, cached, retried; the offline dump answers them from compound_structures of the
 * parent). The pages of one walk share the lookups; their Call may outlast the walk's, so the lookup of the last
 * page fetched in time still ends before the rows are staged.
 */
export class ParentStructures {
  private readonly known = new Map<string, Promise<string | null>>();

  constructor(
    private readonly requests: ChemblRequests,
    private readonly call: Call,
  ) {}

  /** Sets parent_smiles on each activity (null when the parent is unknown or has no structure). */
  async fill(activities: Activity[]): Promise<void> {
    const wanted: string[] = [];
    for (const a of activities) {
      const parent = a.parent_molecule_chembl_id;
      if (parent === null || this.known.has(parent)) continue;
      if (parent === a.molecule_chembl_id) this.known.set(parent, Promise.resolve(a.canonical_smiles));
      else if (!wanted.includes(parent)) wanted.push(parent);
    }
    for (let i = 0; i < wanted.length; i += ID_LOOKUP_CAP) {
      const ids = wanted.slice(i, i + ID_LOOKUP_CAP);
      const batch = lookupRows(this.requests, "molecule", "molecules", "molecule_chembl_id", ids, PARENT_FIELDS, "the parents' structures", this.call).then(
        (rows) => new Map(rows.map((r) => [toText(r.molecule_chembl_id), structureOf(r)])),
      );
      for (const id of ids)
        this.known.set(
          id,
          batch.then((found) => found.get(id) ?? null),
        );
    }
    // A failed lookup is forgotten, so a later page asks again rather than reusing the failure.
    const settled = await Promise.allSettled(activities.map(async (a) => (a.parent_smiles = await this.of(a.parent_molecule_chembl_id))));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      for (const id of wanted) this.known.delete(id);
      throw failed.reason;
    }
  }

  private of(parent: string | null): Promise<string | null> {
    return parent === null ? Promise.resolve(null) : (this.known.get(parent) ?? Promise.resolve(null));
  }
}

/** What a parent lookup reads of a molecule record (molecule_structures holds canonical_smiles). */
const PARENT_FIELDS = ["molecule_chembl_id", "molecule_structures"];

function structureOf(r: Json): string | null {
  const s = r.molecule_structures;
  return isJson(s) ? toText(s.canonical_smiles) : null;
}

export async function fetchActivityPage(
  requests: ChemblRequests,
  q: ActivityQuery,
  offset: number,
  limit: number,
  call: Call,
  parents?: ParentStructures,
): Promise<{ activities: Activity[]; total: number | null }> {
  const page = await requests.listPage(
    "activity",
    "activities",
    [...activityParams(q), ["limit", String(limit)], ["offset", String(offset)]],
    { what: "bioactivities" },
    call,
  );
  const activities = page.rows.map((r) => normalizeActivity(r));
  if (parents) await parents.fill(activities);
  return { activities, total: page.total };
}

/**
 * Walks a whole view in its total order, up to `maxRows`, with up to CHEMBL_MAX_CONCURRENT_PAGES pages
 * in flight (the pacer bounds them service-wide). Pages land in offset order. At the deadline the walk
 * stops starting pages and returns the contiguous prefix it has, with truncated_by "time_budget". This
 * is the seam a canvas spill plugs into: `onPage` hands it each page of that prefix as soon as the pages
 * before it are in (so it can stage while the walk goes on), in order, never past `maxRows`.
 */
export async function walkActivities(
  requests: ChemblRequests,
  q: ActivityQuery,
  opts: { maxRows: number; pageSize?: number; onProgress?: (fetched: number, goal: number) => void; onPage?: PageSink; parents?: ParentStructures },
  call: Call,
): Promise<Omit<WalkResult, "source">> {
  const parents = opts.parents;
  // CHEMBL_MAX_PAGE_SIZE rows a request at most (1000, ChEMBL's own ceiling, by default).
  const ceiling = requests.config.maxPageSize;
  const pageSize = Math.max(1, Math.min(opts.pageSize ?? ceiling, ceiling, opts.maxRows));
  const first = await fetchActivityPage(requests, q, 0, pageSize, call, parents);
  const total = first.total;
  const goal = Math.min(opts.maxRows, total ?? opts.maxRows);
  const pages: Activity[][] = [first.activities];
  let fetched = first.activities.length;
  // The contiguous prefix handed to onPage so far: its rows, and the next page (by index in offsets) it waits for.
  let emittedRows = 0;
  let nextToEmit = 0;
  const emit = (activities: Activity[]) => {
    const part = emittedRows + activities.length > opts.maxRows ? activities.slice(0, Math.max(0, opts.maxRows - emittedRows)) : activities;
    if (part.length > 0) opts.onPage?.(part, emittedRows, total);
    emittedRows += part.length;
  };
  emit(first.activities);
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
        const page = await fetchActivityPage(requests, q, offset, Math.min(pageSize, goal - offset), call, parents);
        results.set(i, page.activities);
        if (opts.onPage) while (results.has(nextToEmit)) emit(results.get(nextToEmit++)!);
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
  await Promise.all(Array.from({ length: Math.min(requests.config.maxConcurrentPages, offsets.length) }, worker));
  for (let i = 0; i < offsets.length && results.has(i); i++) pages.push(results.get(i)!);
  const activities = pages.flat().slice(0, opts.maxRows);
  let truncated: WalkResult["truncated_by"] = null;
  if (stoppedByTime && (total === null || activities.length < Math.min(total, opts.maxRows))) truncated = "time_budget";
  else if (total !== null && total > opts.maxRows && activities.length >= opts.maxRows) truncated = "row_cap";
  return { activities, total_count: total, truncated_by: truncated };
}
