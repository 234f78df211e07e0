/**
 * A `where` filter on one table (canvas_annotate's and the set tools' optional argument): checked to be one
 * condition over the table's columns, run once as a count through the query path (every lock, timeout and
 * memory watch a query has), then read, with the SMILES, as the row keys it keeps.
 */
import { ToolError } from "../errors.js";
import type { Canvas } from "./canvas.js";
import { tokenize } from "./sql-guard.js";
import { quoteIdent } from "./tables.js";

/** Longest `where` text accepted. */
export const MAX_WHERE_LENGTH = 4_000;

/** Words that start another clause or statement: at the top level of a condition they mean it is not one. */
const CLAUSE_WORDS: ReadonlySet<string> = new Set([
  "SELECT",
  "FROM",
  "WHERE",
  "UNION",
  "INTERSECT",
  "EXCEPT",
  "ORDER",
  "LIMIT",
  "OFFSET",
  "GROUP",
  "HAVING",
  "WINDOW",
  "QUALIFY",
  "RETURNING",
  "FETCH",
  "USING",
]);

const WHERE_HINT =
  "Give only the condition of a WHERE clause over this table's columns, e.g. mw < 500 AND pains_count = 0 (no SELECT, no ';'); chembl_dataframe_describe lists the columns.";

function notAFilter(message: string, details: Record<string, unknown> = {}): ToolError {
  return new ToolError("INVALID_ARGUMENTS", `where is not a filter: ${message}`, { path: "/where", reason: "not_a_filter", ...details }, WHERE_HINT);
}

/**
 * The condition, trimmed, when it reads as one expression: every parenthesis it closes it opened, no `;`, no
 * clause word (FROM, UNION, ORDER BY, LIMIT...) outside parentheses. The statement it is put into still goes
 * through the query locks (sql-guard.ts), which decide what it may read; this only makes sure it cannot change
 * the statement's shape.
 */
function checkWhere(where: string): string {
  const text = where.trim();
  if (text === "") throw notAFilter("it is empty");
  if (text.length > MAX_WHERE_LENGTH) throw notAFilter(`it is longer than ${MAX_WHERE_LENGTH} characters`);
  let tokens;
  try {
    tokens = tokenize(text);
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    throw notAFilter(e.message, { refused: e.details.reason });
  }
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === "punct" && token.value === "(") depth++;
    else if (token.kind === "punct" && token.value === ")") {
      if (--depth < 0) throw notAFilter("it closes a parenthesis it did not open", { at: token.at });
    } else if (token.kind === "punct" && token.value === ";") throw notAFilter("it holds a ';'", { at: token.at });
    else if (depth === 0 && token.kind === "word" && CLAUSE_WORDS.has(token.value)) throw notAFilter(`${token.value} starts another clause`, { at: token.at });
  }
  if (depth !== 0) throw notAFilter("a parenthesis is left open");
  return text;
}

/** The SQL clause for a checked condition ('' for none). */
export function whereSql(where: string | undefined): string {
  return where === undefined ? "" : ` WHERE (${where})`;
}

/**
 * Runs the condition once on `table` through the query path (so a canvas query's every lock, timeout and memory
 * watch applies) and answers how many rows it keeps. A DuckDB error (an unknown column, a condition that is not
 * boolean) is INVALID_ARGUMENTS on /where with DuckDB's words; a refusal of the locks stays QUERY_REFUSED.
 */
export async function countWhere(canvas: Canvas, table: string, where: string, signal?: AbortSignal): Promise<number> {
  const text = checkWhere(where);
  try {
    const result = await canvas.query(`SELECT count(*) AS n FROM ${quoteIdent(table)}${whereSql(text)}`, { maxRows: 1, maxBytes: 1024, signal });
    return Number(result.rows[0]?.n ?? 0);
  } catch (e) {
    if (e instanceof ToolError && e.code === "INVALID_ARGUMENTS" && e.details.path === "/sql") {
      const duck = typeof e.details.duckdb_error === "string" ? e.details.duckdb_error : e.message;
      throw new ToolError("INVALID_ARGUMENTS", `where could not be read as a filter on ${table}: ${duck}`, { path: "/where", duckdb_error: duck }, WHERE_HINT);
    }
    if (e instanceof ToolError && e.code === "QUERY_REFUSED")
      throw new ToolError(e.code, `where was refused: ${e.message}`, { ...e.details, path: "/where" }, e.hint);
    throw e;
  }
}
