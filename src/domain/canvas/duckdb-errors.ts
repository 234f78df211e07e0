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
