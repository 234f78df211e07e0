/**
 * Who gives up a canvas when one more is made: the eviction rule (README, "Serving a team"). A caller at its quota
 * of canvases (CHEMATIC_CANVAS_PER_CALLER) or of data (CHEMATIC_CANVAS_CALLER_MB) loses its own least recently used
 * idle canvas, never another's; when the replica holds maxCanvases, the caller holding the most canvases (then the
 * most data) loses its least recently used idle one. A canvas in use (a query or a write running) is never closed:
 * with none idle where one must go, QUOTA_EXCEEDED (the caller's own) or BUSY (the replica's).
 */
import { ToolError } from "../errors.js";
import type { Canvas } from "./canvas.js";

export interface Quotas {
  maxCanvases: number;
  maxCanvasesPerCaller: number;
  callerMaxBytes: number;
}

/** Evicts (through `evict`) until one more canvas of `owner` fits, or refuses. */
export async function makeRoomFor(
  canvases: ReadonlyMap<string, Canvas>,
  owner: string | null,
  quotas: Quotas,
  evict: (id: string) => Promise<void>,
): Promise<void> {
  const lru = (a: Canvas, b: Canvas) => a.lastUsedAt - b.lastUsedAt;
  const allInUse = () => new ToolError("BUSY", `All ${quotas.maxCanvases} canvases are in use`, { max_canvases: quotas.maxCanvases });
  const own = () => [...canvases.values()].filter((c) => c.owner === owner);
  const ownBytes = () => own().reduce((n, c) => n + c.usedBytes(), 0);
  while (own().length >= quotas.maxCanvasesPerCaller || (own().length > 0 && ownBytes() >= quotas.callerMaxBytes)) {
    const oldest = own()
      .filter((c) => c.pins === 0)
      .sort(lru)[0];
    if (!oldest) {
      // A caller allowed every canvas of the replica (one stdio process with CHEMATIC_CANVAS_PER_CALLER=32) is
      // refused as the replica is: BUSY.
      if (quotas.maxCanvasesPerCaller >= quotas.maxCanvases) throw allInUse();
      const byCount = own().length >= quotas.maxCanvasesPerCaller;
      throw new ToolError(
        "QUOTA_EXCEEDED",
        byCount
          ? `You hold ${own().length} canvases, the most one caller may (CHEMATIC_CANVAS_PER_CALLER), and all are in use`
          : `Your canvases hold about ${ownBytes()} bytes of data, the most one caller may (${quotas.callerMaxBytes}, CHEMATIC_CANVAS_CALLER_MB), and all are in use`,
        {
          reason: byCount ? "canvases" : "bytes",
          canvases: own().length,
          max_canvases_per_caller: quotas.maxCanvasesPerCaller,
          max_bytes_per_caller: quotas.callerMaxBytes,
        },
        "Wait for your running queries to finish, or drop canvases you no longer need (chembl_dataframe_drop), then retry.",
      );
    }
    await evict(oldest.id);
  }
  while (canvases.size >= quotas.maxCanvases) {
    const holdings = new Map<string | null, { count: number; bytes: number; idle: Canvas[] }>();
    for (const c of canvases.values()) {
      const h = holdings.get(c.owner) ?? { count: 0, bytes: 0, idle: [] };
      h.count++;
      h.bytes += c.usedBytes();
      if (c.pins === 0) h.idle.push(c);
      holdings.set(c.owner, h);
    }
    const biggest = [...holdings.values()].filter((h) => h.idle.length > 0).sort((a, b) => b.count - a.count || b.bytes - a.bytes)[0];
    if (!biggest) throw allInUse();
    await evict(biggest.idle.sort(lru)[0]!.id);
  }
}
