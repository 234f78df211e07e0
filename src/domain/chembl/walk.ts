/**
 * Bioactivity pages: one page of a view by offset, and the walk of a whole view in its total order (the
 * seam a canvas spill plugs into).
 */
import { UpstreamError } from "./errors.js";
import { normalizeActivity } from "./normalise.js";
import { activityParams, type ActivityQuery } from "./queries.js";
import type { Call, ChemblRequests } from "./request.js";
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

export async function fetchActivityPage(
  requests: ChemblRequests,
  q: ActivityQuery,
  offset: number,
  limit: number,
  call: Call,
): Promise<{ activities: Activity[]; total: number | null }> {
  const page = await requests.listPage(
    "activity",
    "activities",
    [...activityParams(q), ["limit", String(limit)], ["offset", String(offset)]],
    { what: "bioactivities" },
    call,
  );
  return { activities: page.rows.map((r) => normalizeActivity(r)), total: page.total };
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
  opts: { maxRows: number; pageSize?: number; onProgress?: (fetched: number, goal: number) => void; onPage?: PageSink },
  call: Call,
): Promise<Omit<WalkResult, "source">> {
  // CHEMBL_MAX_PAGE_SIZE rows a request at most (1000, ChEMBL's own ceiling, by default).
  const ceiling = requests.config.maxPageSize;
  const pageSize = Math.max(1, Math.min(opts.pageSize ?? ceiling, ceiling, opts.maxRows));
  const first = await fetchActivityPage(requests, q, 0, pageSize, call);
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
        const page = await fetchActivityPage(requests, q, offset, Math.min(pageSize, goal - offset), call);
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
