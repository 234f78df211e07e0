/**
 * A file-backed canvas's sidecar (`<id>.json` beside `<id>.duckdb`): what a restarted server needs that DuckDB does
 * not hold. While the canvas lives: its owner (only its owner may reopen it), when it was made and last used (the
 * retention, CHEMATIC_CANVAS_KEEP_DAYS, counts from there), every table's metadata (column descriptions,
 * provenance, byte estimate) and canvas_annotate's bookkeeping. Once it is gone: a tombstone saying why (dropped,
 * or expired by the retention), so its ID keeps answering that after a restart. The file is read back with care:
 * anything that is not this shape is ignored, never trusted.
 */
import type { AnnotationSnapshot } from "./annotations.js";
import type { ColumnSpec, TableMeta } from "./tables.js";

/** Bumped when the shape changes incompatibly: a server reads only its own format. */
export const SIDECAR_FORMAT = 1;

export interface LiveSidecar {
  format: typeof SIDECAR_FORMAT;
  id: string;
  owner: string | null;
  state: "live";
  created_at: string;
  last_used_at: string;
  tables: TableMeta[];
  annotations: AnnotationSnapshot;
}

/** Why a canvas's files are gone, kept after its data is deleted. */
export type Tombstone = "dropped" | "expired";

interface GoneSidecar {
  format: typeof SIDECAR_FORMAT;
  id: string;
  owner: string | null;
  state: Tombstone;
  gone_at: string;
}

export type Sidecar = LiveSidecar | GoneSidecar;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isTime = (v: unknown): v is string => typeof v === "string" && !Number.isNaN(Date.parse(v));
const TYPES = new Set<string>(["BIGINT", "INTEGER", "DOUBLE", "VARCHAR", "BOOLEAN", "VARCHAR[]"]);

function isColumn(v: unknown): v is ColumnSpec {
  return isObject(v) && typeof v.name === "string" && typeof v.type === "string" && TYPES.has(v.type) && typeof v.description === "string";
}

function isTable(v: unknown): v is TableMeta {
  return (
    isObject(v) &&
    typeof v.name === "string" &&
    Array.isArray(v.columns) &&
    v.columns.every(isColumn) &&
    Number.isSafeInteger(v.row_count) &&
    typeof v.staged_at === "string" &&
    isObject(v.provenance) &&
    typeof v.bytes === "number" &&
    Number.isFinite(v.bytes)
  );
}

function isAnnotations(v: unknown): v is AnnotationSnapshot {
  if (!isObject(v)) return false;
  return Object.values(v).every(
    (columns) =>
      isObject(columns) &&
      Object.values(columns).every(
        (c) =>
          isObject(c) &&
          typeof c.definition === "string" &&
          Array.isArray(c.done) &&
          c.done.every(
            (r) => Array.isArray(r) && r.length === 2 && Number.isSafeInteger(r[0]) && Number.isSafeInteger(r[1]) && 0 <= r[0] && r[0] < r[1] && r[1] <= 1e9,
          ),
      ),
  );
}

/** The sidecar of canvas `id` in `text`, or undefined when it is not one (another format, another ID, damaged). */
export function parseSidecar(text: string, id: string): Sidecar | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v) || v.format !== SIDECAR_FORMAT || v.id !== id || !(v.owner === null || typeof v.owner === "string")) return undefined;
  if (v.state === "dropped" || v.state === "expired") return isTime(v.gone_at) ? (v as unknown as GoneSidecar) : undefined;
  if (v.state !== "live" || !isTime(v.created_at) || !isTime(v.last_used_at)) return undefined;
  if (!Array.isArray(v.tables) || !v.tables.every(isTable) || !isAnnotations(v.annotations)) return undefined;
  return v as unknown as LiveSidecar;
}
