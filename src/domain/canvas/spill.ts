/**
 * The spill of a bioactivity view onto a canvas: walk the whole view (up to the canvas's row cap) and
 * either hand it back for an inline answer, when it fits one page and no canvas was named, or stage it as
 * the view's table (bioactivities or bioactivities_null_potency) on the named canvas or on a new one.
 *
 * Pages are staged as they arrive: the table is started at the first page that must be staged and each
 * page of the walk's contiguous prefix is appended (DuckDB's data-chunk appender, at most appendChunkRows
 * rows a chunk) while the walk fetches the next ones. The rows go into a temporary table swapped in when
 * the walk ends (Canvas.openStage), so a failed or cancelled walk leaves no partial table and the earlier
 * table of that view as it was.
 */
import { SPILL_DEADLINE_CAP_MS } from "../../config.js";
import type { ActivityQuery, ChemblService, WalkResult } from "../chembl/service.js";
import type { Activity } from "../chembl/types.js";
import { ACTIVITY_TABLE_COLUMNS, VIEW_TABLES, activityRows } from "./activity-table.js";
import type { Canvas } from "./canvas.js";
import type { CanvasManager } from "./manager.js";
import type { StageWriter } from "./staging.js";
import type { TableMeta } from "./tables.js";

/** A spill's walk ends this long before the call's deadline, leaving the time to stage its rows in DuckDB. */
const STAGE_RESERVE_MS = 8_000;
/** The parents' structures of the last page may be looked up in the staging time, up to this long before the deadline (the commit's). */
const PARENTS_RESERVE_MS = 3_000;

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
  /** Who a new canvas belongs to (the caller's subject when the server authenticates; null without). */
  owner?: string | null;
  /** The applied filters recorded in the staged table's provenance, given the resolved query. */
  appliedFilters: (resolved: ActivityQuery) => unknown;
  onProgress?: (fetched: number, goal: number) => void;
  /**
   * Whether DuckDB is available (CanvasManager.available), when its loading was started beside the walk
   * (a fresh server loads the binding while the first pages arrive); awaited before the first row is
   * staged. False ends the spill with `unavailable` (no target may be named then).
   */
  available?: Promise<boolean>;
  /** Called after each staged part with the rows staged so far (tests). */
  onStaged?: (rows: number) => void;
}

/**
 * How long a spill's walk may read pages: CHEMBL_SPILL_DEADLINE_MS, held to SPILL_DEADLINE_CAP_MS (54 s)
 * unless the call carries a progress token, whose progress keeps the client's timeout alive.
 */
function spillWalkDeadlineMs(spillDeadlineMs: number, progressTracked: boolean): number {
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

/** DuckDB turned out unavailable (SpillRequest.available resolved false) once rows had to be staged. */
export const SPILL_UNAVAILABLE = Symbol("the canvas is unavailable");

/** Walks the view and stages it unless it fits inline; a named canvas is held (no expiry, no eviction) meanwhile. */
export function spillActivities(service: ChemblService, manager: CanvasManager, request: SpillRequest): Promise<SpillResult | typeof SPILL_UNAVAILABLE> {
  const { target } = request;
  const spill = async (): Promise<SpillResult | typeof SPILL_UNAVAILABLE> => {
    // The walk's own signal: the caller's, or a staging failure, which ends the walk at once.
    const stop = new AbortController();
    const signal = AbortSignal.any([request.signal, stop.signal]);
    // The walk stops in time to stage what it fetched within the call's budget.
    const call = service.startCall({
      signal,
      deadline: request.deadline - STAGE_RESERVE_MS,
      deadlineMs: spillWalkDeadlineMs(service.config.spillDeadlineMs, request.progressTracked),
    });
    const resolved = await service.resolveActivityQuery(request.query, call);
    const tableName = VIEW_TABLES[resolved.view];

    // Staging: the canvas, its temporary table and its insert are made ready while the first page is in flight
    // (see `speculate`), and rows are appended from the first page that must be staged (a named canvas, or
    // more rows than an inline answer holds), in view order as pages arrive.
    type Writer = { stage: StageWriter; canvas: Canvas; created: boolean };
    let opening: Promise<Writer> | undefined;
    // (Set from the staging loop.)
    let failure: { error: unknown } | undefined;
    let unavailable = false;
    const held: Array<{ activities: Activity[]; start: number }> = [];
    let heldRows = 0;
    const fail = (error: unknown) => {
      failure ??= { error };
      stop.abort(error);
    };
    const openWriter = async (): Promise<Writer> => {
      if (request.available && !(await request.available)) {
        unavailable = true;
        throw new Error("DuckDB is unavailable");
      }
      const canvas = target ?? (await manager.create(true, request.owner ?? null));
      const writer = { stage: canvas.openStage(tableName, ACTIVITY_TABLE_COLUMNS, request.signal), canvas, created: target === undefined };
      // Recorded before the table is made, so that a failure from here on still drops what was made.
      made = writer;
      await writer.stage.prepare();
      return writer;
    };
    let made: Writer | undefined;
    const writer = (): Promise<Writer> => (opening ??= openWriter());
    // DuckDB's first steps (load, instance, table, prepared insert) each wait for a turn of an event loop that
    // the arriving pages keep busy: started before the walk, they are done when the first page needs them. A
    // new canvas is made ahead only while that evicts none (it is released again if the view fits inline).
    if (target !== undefined || manager.size < manager.maxCanvases) writer().catch(() => undefined);
    // The pages waiting to be staged, and the loop staging them: the pages that wait together (DuckDB was busy
    // with the one before) go in one part of at most appendChunkRows rows.
    const queue: Array<{ activities: Activity[]; start: number }> = [];
    let pumping: Promise<void> | undefined;
    const pump = async () => {
      await Promise.resolve();
      try {
        while (queue.length > 0 && !failure) {
          const rows = activityRows(queue[0]!.activities, queue[0]!.start);
          queue.shift();
          while (queue.length > 0 && rows.length + queue[0]!.activities.length <= manager.appendChunkRows) {
            const next = queue.shift()!;
            for (const row of activityRows(next.activities, next.start)) rows.push(row);
          }
          const { stage } = await writer();
          await stage.append(rows);
          request.onStaged?.(stage.rows());
        }
      } catch (e) {
        fail(e);
      } finally {
        pumping = undefined;
      }
    };
    const append = (activities: Activity[], start: number) => {
      if (failure) return;
      queue.push({ activities, start });
      pumping ??= pump();
    };
    /** Waits until every page handed to append is staged (or staging failed). */
    const drained = async () => {
      while (pumping) await pumping;
    };
    /** Drops what staging made (once): the temporary table, and the canvas when the spill created it. */
    const drop = async () => {
      if (!opening) return;
      const pending = opening;
      opening = Promise.reject(new Error("the staging was dropped"));
      opening.catch(() => undefined);
      await pending.catch(() => undefined);
      const w = made;
      made = undefined;
      if (w) await discard(w, manager);
    };
    const startStaging = () => {
      for (const page of held.splice(0)) append(page.activities, page.start);
      heldRows = 0;
    };
    let staging = false as boolean;
    const onPage = (activities: Activity[], start: number, total: number | null) => {
      if (failure) return;
      if (!staging && (target !== undefined || (total !== null && total > request.inlineLimit) || heldRows + activities.length > request.inlineLimit)) {
        staging = true;
        held.push({ activities, start });
        startStaging();
        return;
      }
      if (staging) append(activities, start);
      else {
        held.push({ activities, start });
        heldRows += activities.length;
      }
    };

    /** Once the appends so far are done: SPILL_UNAVAILABLE, or the staging failure thrown (what was staged dropped), or nothing. */
    const settled = async (): Promise<typeof SPILL_UNAVAILABLE | undefined> => {
      await drained();
      if (unavailable || failure) await drop();
      if (unavailable) return SPILL_UNAVAILABLE;
      if (failure) throw failure.error;
      return undefined;
    };

    // Every staged row carries its parent's structure (parent_smiles), so a table is annotated and grouped by compound:
    // each page's parents not on it are looked up before the page is handed on, in a call that may use the staging time
    // (the lookup of the last page fetched in time must not be cut by the walk's deadline).
    const parents = service.parentStructures(
      service.startCall({
        signal,
        deadline: request.deadline - PARENTS_RESERVE_MS,
        deadlineMs: spillWalkDeadlineMs(service.config.spillDeadlineMs, request.progressTracked) + STAGE_RESERVE_MS,
      }),
    );
    let walk: WalkResult;
    try {
      walk = await service.walkActivities(resolved, { maxRows: manager.maxSpillRows, call, onProgress: request.onProgress, onPage, parents });
    } catch (e) {
      await drained();
      await drop();
      if (unavailable) return SPILL_UNAVAILABLE;
      // A staging failure (CANVAS_FULL, a closed canvas) stopped the walk: it is the cause to report.
      throw failure && !request.signal.aborted ? failure.error : e;
    }
    if ((await settled()) === SPILL_UNAVAILABLE) return SPILL_UNAVAILABLE;
    const rows = walk.activities;
    const fitsInline = walk.truncated_by === null && (walk.total_count !== null ? walk.total_count <= request.inlineLimit : rows.length <= request.inlineLimit);
    if (fitsInline && !target) {
      await drop();
      return { resolved, walk, staged: null };
    }
    // The rows not yet staged (a view whose size showed only at its end), then the swap.
    if (!staging) {
      staging = true;
      startStaging();
      if ((await settled()) === SPILL_UNAVAILABLE) return SPILL_UNAVAILABLE;
    }
    let ready: Writer;
    try {
      ready = await writer();
    } catch (e) {
      await drop();
      if (unavailable) return SPILL_UNAVAILABLE;
      throw e;
    }
    const provenance = {
      potency_view: resolved.view,
      applied_filters: request.appliedFilters(resolved),
      total_count: walk.total_count,
      truncated: walk.truncated_by !== null,
      truncated_by: walk.truncated_by,
      source: walk.source,
    };
    const { stage, canvas, created } = ready;
    let table: TableMeta;
    try {
      table = await stage.commit(provenance);
    } catch (e) {
      await drop();
      throw e;
    }
    if (created) canvas.pins--;
    return { resolved, walk, staged: { canvas, table } };
  };
  return target ? target.hold(spill) : spill();
}

/** Drops what a spill staged: the temporary table, and the canvas when the spill created it (so a failed spill holds no slot). */
async function discard(writer: { stage: StageWriter; canvas: Canvas; created: boolean }, manager: CanvasManager): Promise<void> {
  await writer.stage.abort();
  if (writer.created) {
    writer.canvas.pins--;
    await manager.release(writer.canvas.id, "dropped");
  }
}
