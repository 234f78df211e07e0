/**
 * Reopening a file-backed canvas that is on disk (closed when idle, evicted, or left by an earlier run of the
 * server, killed or not): its database opened with the same locked-down options as a new one (DuckDB replays its WAL
 * first), and its metadata reconciled with what DuckDB holds. DuckDB is the truth for which tables and columns
 * exist and how many rows they hold; the sidecar, written after each write turn, may lag by the one write a kill
 * interrupted, so it supplies descriptions, provenance and canvas_annotate's bookkeeping only where they still
 * match, and a table it does not know is described as recovered. Tables an interrupted write left half-made
 * (staging.ts's `_staging_*`) were never visible and are dropped.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { ToolError } from "../errors.js";
import { ROW_KEY_COLUMN } from "./annotations.js";
import { Canvas } from "./canvas.js";
import { diskFullError } from "./duckdb-errors.js";
import type { DuckDbModule } from "./duckdb.js";
import type { CanvasHost } from "./settings.js";
import type { LiveSidecar } from "./sidecar.js";
import { lockedDownOptions } from "./sql-guard.js";
import { quoteIdent, type ColumnSpec, type TableMeta } from "./tables.js";

const LEFTOVER_RE = /^_staging_[0-9a-f]{12}$/;
const RECOVERED = "Recovered after the server stopped mid-write: its description was not saved.";

export interface ReopenOptions {
  memoryLimitMb: number;
  threads: number;
  /** When the database file last changed (ms): a recovered table's staged_at. */
  fileMtime: number;
}

/** BUSY when another process holds the canvas file (two servers sharing CHEMATIC_CANVAS_DIR). */
function lockedError(id: string): ToolError {
  return new ToolError(
    "BUSY",
    `Canvas ${id} is open in another server process that shares this canvas directory (CHEMATIC_CANVAS_DIR)`,
    { canvas_id: id, reason: "canvas_locked" },
    "Use the canvas through the server that holds it, or stop that server (it closes the canvas on exit) and retry; give each server its own CHEMATIC_CANVAS_DIR to avoid this.",
  );
}

/** Opens canvas `sidecar.id`'s database `file` and reconciles its metadata (see the file's comment). */
export async function reopenCanvas(host: CanvasHost, duckdb: DuckDbModule, sidecar: LiveSidecar, file: string, options: ReopenOptions): Promise<Canvas> {
  let instance;
  try {
    instance = await duckdb.DuckDBInstance.create(file, lockedDownOptions({ memoryLimitMb: options.memoryLimitMb, threads: options.threads, inMemory: false }));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (/Could not set lock|Conflicting lock/i.test(message)) throw lockedError(sidecar.id);
    throw diskFullError(e, host.dir) ?? damagedError(sidecar.id, message, host.dir);
  }
  try {
    const connection = await instance.connect();
    let tables: TableMeta[];
    try {
      tables = await reconcile(connection, sidecar, options.fileMtime);
    } finally {
      connection.closeSync();
    }
    const canvas = new Canvas(sidecar.id, host, duckdb, instance, file, Date.parse(sidecar.created_at), sidecar.owner);
    for (const t of tables) canvas.tables.set(t.name, t);
    for (const [table, columns] of Object.entries(sidecar.annotations)) {
      const kept = keptAnnotations(sidecar, canvas.tables.get(table), table, columns);
      if (kept) canvas.annotations.restore(table, kept);
    }
    canvas.touch();
    return canvas;
  } catch (e) {
    instance.closeSync();
    throw diskFullError(e, host.dir) ?? e;
  }
}

/** CANVAS_NOT_FOUND reason lost: the database file is there but DuckDB cannot read it. */
function damagedError(id: string, message: string, hide: string | null): ToolError {
  const shown = (hide ? message.split(hide).join("<canvas dir>") : message).replace(/\s+/g, " ").slice(0, 300);
  return new ToolError(
    "CANVAS_NOT_FOUND",
    `Canvas ${id} cannot be reopened: DuckDB could not open its database file (${shown})`,
    { canvas_id: id, reason: "lost" },
    "Re-import the set (canvas_import) or re-run chembl_get_bioactivities without canvas_id to stage it on a new canvas.",
  );
}

/** The tables as DuckDB holds them, described from the sidecar where it still matches. */
async function reconcile(connection: DuckDBConnection, sidecar: LiveSidecar, fileMtime: number): Promise<TableMeta[]> {
  const read = await connection.runAndReadAll(
    "SELECT table_name, column_name, data_type FROM information_schema.columns " +
      "WHERE table_catalog = current_database() AND table_schema = 'main' ORDER BY table_name, ordinal_position",
  );
  const columnsOf = new Map<string, Array<{ name: string; type: string }>>();
  for (const row of read.getRowObjectsJson() as Array<{ table_name: string; column_name: string; data_type: string }>) {
    const list = columnsOf.get(row.table_name) ?? [];
    list.push({ name: row.column_name, type: row.data_type });
    columnsOf.set(row.table_name, list);
  }
  const known = new Map(sidecar.tables.map((t) => [t.name, t]));
  const out: TableMeta[] = [];
  for (const [name, columns] of columnsOf) {
    if (LEFTOVER_RE.test(name)) {
      await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(name)}`);
      continue;
    }
    const counted = await connection.runAndReadAll(`SELECT count(*) FROM ${quoteIdent(name)}`);
    const rowCount = Number(counted.getRows()[0]![0]);
    const meta = known.get(name);
    const specs: ColumnSpec[] = columns.map((c) => {
      const saved = meta?.columns.find((s) => s.name === c.name && s.type === c.type);
      return saved ? { ...saved } : { name: c.name, type: c.type as ColumnSpec["type"], description: RECOVERED };
    });
    const bytes =
      meta && meta.row_count === rowCount && specs.every((c) => meta.columns.some((s) => s.name === c.name))
        ? meta.bytes
        : await estimateTableBytes(connection, name, specs);
    out.push({
      name,
      columns: specs,
      row_count: rowCount,
      staged_at: meta?.staged_at ?? new Date(fileMtime).toISOString(),
      provenance: meta ? meta.provenance : { kind: "recovered" },
      bytes,
    });
  }
  return out;
}

/**
 * The byte estimate of tables.ts estimateBytes, computed by DuckDB over the rows (a table whose saved estimate no
 * longer fits its rows): a string its length plus 4, a number 8, a boolean or NULL 1.
 */
async function estimateTableBytes(connection: DuckDBConnection, name: string, columns: readonly ColumnSpec[]): Promise<number> {
  if (columns.length === 0) return 0;
  const cell = (c: ColumnSpec): string => {
    const q = quoteIdent(c.name);
    if (c.type === "VARCHAR") return `coalesce(strlen(${q}) + 4, 1)`;
    if (c.type === "VARCHAR[]") return `coalesce(strlen(CAST(${q} AS VARCHAR)) + 4, 1)`;
    if (c.type === "BOOLEAN") return "1";
    return `CASE WHEN ${q} IS NULL THEN 1 ELSE 8 END`;
  };
  const read = await connection.runAndReadAll(`SELECT coalesce(sum(${columns.map(cell).join(" + ")}), 0) FROM ${quoteIdent(name)}`);
  return Number(read.getRows()[0]![0]);
}

/**
 * The computed columns of `table` the sidecar's bookkeeping still describes: the table as saved (no fewer rows, every
 * computed column and the row key still there with its saved type). A table re-staged since the sidecar was written
 * fails these and is annotated afresh.
 */
function keptAnnotations(sidecar: LiveSidecar, meta: TableMeta | undefined, table: string, columns: LiveSidecar["annotations"][string]) {
  const saved = sidecar.tables.find((t) => t.name === table);
  if (!meta || !saved || meta.row_count < saved.row_count || !meta.columns.some((c) => c.name === ROW_KEY_COLUMN)) return undefined;
  const kept: LiveSidecar["annotations"][string] = {};
  for (const [name, c] of Object.entries(columns)) {
    const now = meta.columns.find((m) => m.name === name);
    const before = saved.columns.find((m) => m.name === name);
    if (now && before && now.type === before.type) kept[name] = c;
  }
  return kept;
}
