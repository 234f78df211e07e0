/**
 * Why a canvas ID finds no canvas. The ID names another replica (the call was not routed to the replica holding
 * it) or an earlier run of this one (it restarted since), or the canvas expired, was evicted or dropped (remembered
 * here, boundedly). With CHEMATIC_CANVAS_DIR canvases outlive the process, so what the directory says comes first:
 * a tombstone (dropped, or deleted by the retention), a sidecar whose database is gone (lost), or nothing at all for
 * an ID of an earlier run (lost too: its files are not there). Whether a canvas of another owner exists, or existed,
 * is never told: to anyone but its owner it answers as an unknown ID (the manager reads the directory as absent).
 */
import { ToolError } from "../errors.js";
import { canvasIdOrigin, type CanvasIdOrigin } from "./ids.js";
import type { Tombstone } from "./sidecar.js";

export type GoneWhy = "expired" | "evicted" | "dropped";

/** What CHEMATIC_CANVAS_DIR says of an ID, as its asker may be told; undefined when canvases live in memory. */
export type OnDisk = { kind: "tombstone"; why: Tombstone } | { kind: "lost" } | { kind: "absent" } | undefined;

/** What the not-found wording says about the bounds (how long a canvas may idle, the quotas that evict). */
export interface LostContext {
  origin: CanvasIdOrigin;
  /** Whether replicas are named (CHEMATIC_REPLICA_ID): only then can an ID's replica or run tell another replica or a restart. */
  replicated: boolean;
  idleMs: number;
  maxCanvases: number;
  maxCanvasesPerCaller: number;
  callerMaxBytes: number;
  /** CHEMATIC_CANVAS_KEEP_DAYS: how long a file-backed canvas stays on disk unused. */
  keepDays: number;
}

export class LostCanvases {
  /** IDs that expired or were evicted lately, and whose they were, to tell their owner why (bounded). */
  private readonly gone = new Map<string, { why: GoneWhy; owner: string | null }>();

  remember(id: string, why: GoneWhy, owner: string | null): void {
    this.gone.set(id, { why, owner });
    while (this.gone.size > 1_000) this.gone.delete(this.gone.keys().next().value!);
  }

  /** CANVAS_NOT_FOUND for `id` asked by `owner`, saying why when that is known (see the file's comment). */
  notFound(id: string, owner: string | null, context: LostContext, disk: OnDisk = undefined): ToolError {
    const origin = canvasIdOrigin(id);
    const shown = origin ? id : "(malformed id)";
    const details = { canvas_id: origin ? id : null };
    const restage = "Re-run chembl_get_bioactivities without canvas_id (same filters) to stage the rows on a new canvas, then query the canvas_id it returns.";
    const here = context.origin;
    const rebuild =
      "Re-import the set (canvas_import) or re-run chembl_get_bioactivities without canvas_id to stage it on a new canvas; " +
      "chembl_dataframe_describe without canvas_id lists the canvases you have.";
    if (disk?.kind === "tombstone") {
      const what = disk.why === "dropped" ? "was dropped" : `was deleted after ${context.keepDays} days without use (CHEMATIC_CANVAS_KEEP_DAYS)`;
      return new ToolError("CANVAS_NOT_FOUND", `Canvas ${shown} ${what}`, { ...details, reason: disk.why }, rebuild);
    }
    if (disk?.kind === "lost") {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} is lost: its database file is gone from the canvas directory (CHEMATIC_CANVAS_DIR), so it cannot be reopened`,
        { ...details, reason: "lost" },
        rebuild,
      );
    }
    // An ID of an earlier run (or, unnamed, of another random name) that left nothing in the directory: its files are
    // gone, or it is a typo. An ID naming another named replica still answers other_replica: that is a routing matter.
    const elsewhere = origin !== undefined && context.replicated && origin.replica !== here.replica;
    if (disk?.kind === "absent" && origin && !elsewhere && (origin.replica !== here.replica || origin.run !== here.run)) {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} is lost: its files are not in the canvas directory (CHEMATIC_CANVAS_DIR); check the ID (it is case-sensitive), or they were deleted`,
        { ...details, reason: "lost" },
        rebuild,
      );
    }
    // One unnamed server (stdio, or HTTP without CHEMATIC_REPLICA_ID) draws a new random name each start: an ID of
    // another name is a typo or a canvas of an earlier run, never a call routed to the wrong replica.
    if (origin && !context.replicated && (origin.replica !== here.replica || origin.run !== here.run)) {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} was not made by this server process: check the ID (it is case-sensitive), or it was made before the server restarted (canvases in memory do not survive a restart; file-backed ones, CHEMATIC_CANVAS_DIR, do)`,
        { ...details, reason: "unknown" },
        `Use a canvas_id an earlier answer of this session gave, or ${restage.charAt(0).toLowerCase()}${restage.slice(1)}`,
      );
    }
    if (origin && origin.replica !== here.replica) {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} is held by replica ${origin.replica}; this call reached replica ${here.replica}`,
        { ...details, reason: "other_replica", replica: here.replica, canvas_replica: origin.replica },
        "A load balancer routes a canvas call to its replica by the Mcp-Param-Canvas-Id header, which 2026-07-28 clients send and " +
          `clients of earlier protocol versions do not: use a 2026-07-28 client (or an address that reaches replica ${origin.replica}). ${restage}`,
      );
    }
    if (origin && origin.run !== here.run) {
      return new ToolError(
        "CANVAS_NOT_FOUND",
        `Canvas ${shown} was made before replica ${origin.replica} restarted; canvases in memory do not survive a restart (file-backed ones, CHEMATIC_CANVAS_DIR, do)`,
        { ...details, reason: "restarted", replica: here.replica },
        restage,
      );
    }
    const gone = this.gone.get(id);
    const why = gone !== undefined && gone.owner === owner ? gone.why : undefined;
    const what =
      why === "expired"
        ? `expired after ${Math.round(context.idleMs / 60_000)} minutes without use`
        : why === "evicted"
          ? `was closed to make room: your oldest canvas goes when you hold ${context.maxCanvasesPerCaller} canvases or ${Math.round(context.callerMaxBytes / 1048576)} MB of data, ` +
            `and the caller holding the most gives one up when the server holds ${context.maxCanvases}`
          : why === "dropped"
            ? "was dropped"
            : "is unknown on this server (it may have expired, or the server restarted)";
    return new ToolError("CANVAS_NOT_FOUND", `Canvas ${shown} ${what}`, { ...details, reason: why ?? "unknown" }, restage);
  }
}
