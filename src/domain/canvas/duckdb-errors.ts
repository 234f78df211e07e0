/**
 * DuckDB failures of a user query as typed errors: a refusal of the locked-down configuration is
 * QUERY_REFUSED (locked_down), running out of the canvas's memory is QUERY_REFUSED (memory_limit), any
 * other failure is INVALID_ARGUMENTS quoting DuckDB's message, shortened and without canvas paths.
 */
import { ToolError } from "../errors.js";
import { refuse } from "./sql-guard.js";

/** DuckDB's error text, shortened, without any file path of the canvas directory. */
function duckMessage(e: unknown, hide: string | null): string {
  let text = e instanceof Error ? e.message : String(e);
  if (hide) text = text.split(hide).join("<canvas dir>");
  text = text.replace(/\s+/g, " ").trim();
  return text.length > 600 ? `${text.slice(0, 600)}...` : text;
}

/** Maps a DuckDB failure of a user query to a typed error. */
export function queryError(e: unknown, hide: string | null, memoryLimitMb: number): ToolError {
  if (e instanceof ToolError) return e;
  const message = duckMessage(e, hide);
  if (/^Permission Error/i.test(message)) return refuse("locked_down", `DuckDB's locked-down configuration refused it: ${message}`, { duckdb_error: message });
  if (/^Out of Memory Error/i.test(message)) {
    return new ToolError(
      "QUERY_REFUSED",
      `The query needs more memory than this canvas allows (${memoryLimitMb} MB)`,
      { reason: "memory_limit", duckdb_error: message },
      "Aggregate (GROUP BY), filter (WHERE) or add a LIMIT so the query holds less at once, then retry.",
    );
  }
  return new ToolError(
    "INVALID_ARGUMENTS",
    `DuckDB could not run the query: ${message}`,
    { path: "/sql", duckdb_error: message },
    "Fix the SQL as the DuckDB error says; chembl_dataframe_describe lists the staged tables and their columns.",
  );
}

/**
 * A write that failed because the disk under CHEMATIC_CANVAS_DIR is full (or the user's quota spent): DuckDB says
 * "IO Error: ... No space left on device" (ENOSPC) or "Disk quota exceeded" (EDQUOT). CANVAS_FULL with reason
 * disk_full, the canvas left as it was (the write is rolled back); undefined for any other failure.
 */
export function diskFullError(e: unknown, hide: string | null): ToolError | undefined {
  if (e instanceof ToolError) return undefined;
  const message = duckMessage(e, hide);
  const code = (e as { code?: string } | null)?.code;
  if (!(code === "ENOSPC" || code === "EDQUOT" || /No space left on device|Disk quota exceeded|ENOSPC|EDQUOT|disk is full/i.test(message))) return undefined;
  return new ToolError(
    "CANVAS_FULL",
    "The disk holding the canvas files is full, so the write was not made (the canvas is as it was)",
    { reason: "disk_full", duckdb_error: message },
    "Drop tables or canvases you no longer need (chembl_dataframe_drop) and retry, or ask the operator to free space under CHEMATIC_CANVAS_DIR.",
  );
}
