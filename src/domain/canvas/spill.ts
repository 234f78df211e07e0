/**
 * The spill of a bioactivity view onto a canvas: walk the whole view (up to the canvas's row cap) and
 * either hand it back for an inline answer, when it fits one page and no canvas was named, or stage it as
 * the view's table (bioactivities or bioactivities_null_potency) on the named canvas or on a new one.
 */
import { SPILL_DEADLINE_CAP_MS } from "../../config.js";
import type { ActivityQuery, ChemblService, WalkResult } from "../chembl/service.js";
import { ACTIVITY_TABLE_COLUMNS, VIEW_TABLES, activityRows } from "./activity-table.js";
import type { Canvas, CanvasManager, TableMeta } from "./canvas.js";

/** A spill's walk ends this long before the call's deadline, leaving the time to stage its rows in DuckDB. */
export const STAGE_RESERVE_MS = 8_000;

export interface SpillRequest {
  query: ActivityQuery & { includeAlternateForms?: boolean };
  /** Rows an inline answer holds: a view of at most this many (read completely) is not staged unless a canvas is named. */
  inlineLimit: number;
  /** The canvas the caller named (it gets the table, replacing one of the same view); a new canvas otherwise. */
  target: Canvas | undefined;
  /** The call's end, epoch ms: the walk stops STAGE_RESERVE_MS before it. */
  deadline: number;
  /** Whether the call carries a progress token: only then may the walk run past SPILL_DEADLINE_CAP_MS. */
  progressTracked: boolean;
  signal: AbortSignal;
  /** The applied filters recorded in the staged table's provenance, given the resolved query. */
  appliedFilters: (resolved: ActivityQuery) => unknown;
  onProgress?: (fetched: number, goal: number) => void;
}

/**
 * How long a spill's walk may read pages: CHEMBL_SPILL_DEADLINE_MS, held to SPILL_DEADLINE_CAP_MS (54 s)
 * unless the call carries a progress token, whose progress keeps the client's timeout alive.
 */
export function spillWalkDeadlineMs(spillDeadlineMs: number, progressTracked: boolean): number {
  return progressTracked ? spillDeadlineMs : Math.min(spillDeadlineMs, SPILL_DEADLINE_CAP_MS);
}

/** The budget a spill call with a progress token needs: the walk's whole deadline, then the time to stage. */
export function spillBudgetMs(spillDeadlineMs: number): number {
  return spillDeadlineMs + STAGE_RESERVE_MS + 1_000;
}

export interface SpillResult {
  /** The query as walked (include_alternate_forms resolved into the parent filter). */
  resolved: ActivityQuery;
  walk: WalkResult;
  /** Where the rows were staged, or null when they fit an inline answer. */
  staged: { canvas: Canvas; table: TableMeta } | null;
}

/** Walks the view and stages it unless it fits inline; a named canvas is held (no expiry, no eviction) meanwhile. */
export function spillActivities(service: ChemblService, manager: CanvasManager, request: SpillRequest): Promise<SpillResult> {
  const { target } = request;
  const spill = async (): Promise<SpillResult> => {
    // The walk stops in time to stage what it fetched within the call's budget.
    const call = service.startCall({
      signal: request.signal,
      deadline: request.deadline - STAGE_RESERVE_MS,
      deadlineMs: spillWalkDeadlineMs(service.config.spillDeadlineMs, request.progressTracked),
    });
    const resolved = await service.resolveActivityQuery(request.query, call);
    const walk = await service.walkActivities(resolved, { maxRows: manager.maxSpillRows, call, onProgress: request.onProgress });
    const rows = walk.activities;
    const fitsInline = walk.truncated_by === null && (walk.total_count !== null ? walk.total_count <= request.inlineLimit : rows.length <= request.inlineLimit);
    if (fitsInline && !target) return { resolved, walk, staged: null };
    const table = VIEW_TABLES[resolved.view];
    const provenance = {
      potency_view: resolved.view,
      applied_filters: request.appliedFilters(resolved),
      total_count: walk.total_count,
      truncated: walk.truncated_by !== null,
      truncated_by: walk.truncated_by,
      source: walk.source,
    };
    const cells = activityRows(rows);
    const staged = target
      ? { canvas: target, table: await target.stage(table, ACTIVITY_TABLE_COLUMNS, cells, provenance, request.signal) }
      : await manager.stageOnNewCanvas(table, ACTIVITY_TABLE_COLUMNS, cells, provenance, request.signal);
    return { resolved, walk, staged };
  };
  return target ? target.hold(spill) : spill();
}
