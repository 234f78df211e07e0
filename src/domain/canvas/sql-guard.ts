/**
 * The three locks on chembl_dataframe_query, all here. The first is a lexical check that runs before
 * DuckDB sees the text. It accepts exactly one read-only SELECT or WITH statement and refuses, with QUERY_REFUSED and a
 * machine-readable details.reason:
 *  - more than one statement (a `;` followed by anything but whitespace or comments);
 *  - a statement that does not start with SELECT or WITH (after opening parentheses);
 *  - statement keywords anywhere outside string literals and quoted identifiers (ATTACH, COPY, INSTALL,
 *    LOAD, PRAGMA, SET, CREATE, INSERT, ...), except as a name: an alias after AS or a column after a dot
 *    (SELECT 1 AS load);
 *  - calls of functions that read files or the server's state (read_*, *_scan, glob, query, sniff_csv,
 *    duckdb_*, pragma_*, current_setting, getenv, ...), and any function called by a quoted name;
 *  - a string literal where a table belongs (FROM 'path', JOIN 'path': DuckDB's replacement scans turn it
 *    into a file read);
 *  - lexical forms this checker will not second-guess DuckDB on: nested block comments, prefixed string
 *    literals (E'..', X'..'), dollar quoting, backticks, non-ASCII characters outside literals, control
 *    characters, unterminated literals or comments.
 * The tokenizer reads strings ('' escapes), quoted identifiers ("" escapes), line and block comments the
 * way DuckDB does; where DuckDB's reading could differ from ours, we refuse rather than guess.
 *
 * The second lock is DuckDB's own parser (one statement, of type SELECT, touching only the canvas's
 * tables, building no value past what one step may hold): prepareGuarded runs every check on DuckDB's reading
 * of the query and is the only way a query reaches DuckDB (queries.ts). The third is the instance's configuration
 * (lockedDownOptions: external access off, configuration locked, extensions neither installed nor loaded).
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from "@duckdb/node-api";
import { ToolError } from "../errors.js";
import type { DuckDbModule } from "./duckdb.js";
import { findValueGrowth, valueGrowthRefusal } from "./value-growth.js";

export type RefusalReason =
  | "empty"
  | "too_long"
  | "multiple_statements"
  | "not_select"
  | "forbidden_keyword"
  | "forbidden_function"
  | "file_path_as_table"
  | "unsupported_syntax"
  | "not_a_canvas_table"
  | "system_catalog"
  | "locked_down";

export const MAX_SQL_LENGTH = 20_000;

export function refuse(reason: RefusalReason, message: string, extra: Record<string, unknown> = {}): ToolError {
  return new ToolError("QUERY_REFUSED", message, { reason, ...extra });
}

type TokenKind = "word" | "quoted" | "string" | "number" | "punct";

export interface Token {
  kind: TokenKind;
  /** Words upper-cased; quoted identifiers and strings unescaped; punctuation as written. */
  value: string;
  /** Offset in the SQL text. */
  at: number;
}

/** Statement keywords refused anywhere as bare words: no read-only SELECT needs them. */
const FORBIDDEN_KEYWORDS: ReadonlySet<string> = new Set([
  "ATTACH",
  "DETACH",
  "COPY",
  "EXPORT",
  "IMPORT",
  "INSTALL",
  "LOAD",
  "FORCE",
  "PRAGMA",
  "SET",
  "RESET",
  "CALL",
  "CREATE",
  "DROP",
  "ALTER",
  "INSERT",
  "UPDATE",
  "DELETE",
  "MERGE",
  "TRUNCATE",
  "VACUUM",
  "CHECKPOINT",
  "ANALYZE",
  "USE",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "ABORT",
  "TRANSACTION",
  "PREPARE",
  "EXECUTE",
  "DEALLOCATE",
  "INTO",
  "GRANT",
  "REVOKE",
  "SECRET",
  "PIVOT",
  "UNPIVOT",
]);

/** Names of DuckDB's system views and catalogs (settings, database paths): refused as words or quoted identifiers. */
const SYSTEM_NAMES = /^(duckdb_|pragma_|pg_|sqlite_)/i;

/** Table and scalar functions that read files, other databases, settings or the environment. */
const FORBIDDEN_FUNCTIONS: readonly RegExp[] = [
  /^read_/,
  /_scan$/,
  /^glob$/,
  /^query$/,
  /^query_table$/,
  /^sniff_csv$/,
  /^parquet_/,
  /^duckdb_/,
  /^pragma_/,
  /^current_setting$/,
  /^getenv$/,
  /^which_secret$/,
  /^json_execute_serialized_sql$/,
  /^(iceberg|delta|postgres|mysql|sqlite|excel|st_read|http)_?/,
  /^(force_)?checkpoint$/,
  /^(enable|disable)_/,
  /^(install|load)_/,
];

function isForbiddenFunction(name: string): boolean {
  const lower = name.toLowerCase();
  return FORBIDDEN_FUNCTIONS.some((re) => re.test(lower));
}

const WORD_START = /[A-Za-z_]/;
const WORD_CHAR = /[A-Za-z0-9_]/;

/**
 * Splits SQL into tokens; throws QUERY_REFUSED for anything this checker will not read. With `parameters`, a
 * positional placeholder ($1, $2, ...) is read as a value: only SQL the server composes around a caller's checked
 * SQL (the molecule table's filters) passes it, with values the server binds; a caller's own SQL never does.
 */
export function tokenize(sql: string, parameters = false): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const code = sql.charCodeAt(i);
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    if (code < 0x20 || code === 0x7f) throw refuse("unsupported_syntax", `control character at offset ${i}`, { at: i });
    if (code > 0x7e) throw refuse("unsupported_syntax", `non-ASCII character at offset ${i} outside a string literal or quoted identifier`, { at: i });
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) throw refuse("unsupported_syntax", `unterminated block comment at offset ${i}`, { at: i });
      if (sql.slice(i + 2, end).includes("/*")) throw refuse("unsupported_syntax", `nested block comment at offset ${i}`, { at: i });
      i = end + 2;
      continue;
    }
    if (c === "'") {
      const prev = tokens[tokens.length - 1];
      if (i > 0 && WORD_CHAR.test(sql[i - 1]!) && prev && (prev.kind === "word" || prev.kind === "number")) {
        throw refuse("unsupported_syntax", `prefixed string literal (E'', X'', B'' ...) at offset ${i - 1}`, { at: i - 1 });
      }
      const { value, end } = readQuoted(sql, i, "'");
      tokens.push({ kind: "string", value, at: i });
      i = end;
      continue;
    }
    if (c === '"') {
      const { value, end } = readQuoted(sql, i, '"');
      tokens.push({ kind: "quoted", value, at: i });
      i = end;
      continue;
    }
    if (parameters && c === "$" && /^\$[1-9][0-9]{0,3}(?![0-9A-Za-z_$])/.test(sql.slice(i, i + 6))) {
      const end = i + /^\$[0-9]+/.exec(sql.slice(i))![0].length;
      tokens.push({ kind: "number", value: sql.slice(i, end), at: i });
      i = end;
      continue;
    }
    if (c === "$" || c === "`")
      throw refuse("unsupported_syntax", `"${c}" at offset ${i} (dollar quoting, parameters and backticks are not accepted)`, { at: i });
    if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < n && WORD_CHAR.test(sql[j]!)) j++;
      tokens.push({ kind: "word", value: sql.slice(i, j).toUpperCase(), at: i });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < n && /[0-9A-Za-z_.]/.test(sql[j]!)) {
        // An exponent sign belongs to the number (1e-5).
        if ((sql[j] === "e" || sql[j] === "E") && (sql[j + 1] === "+" || sql[j + 1] === "-")) j++;
        j++;
      }
      tokens.push({ kind: "number", value: sql.slice(i, j), at: i });
      i = j;
      continue;
    }
    // Operators and punctuation, one character at a time (multi-character operators need no meaning here).
    tokens.push({ kind: "punct", value: c, at: i });
    i++;
  }
  return tokens;
}

function readQuoted(sql: string, start: number, quote: "'" | '"'): { value: string; end: number } {
  let value = "";
  let i = start + 1;
  for (;;) {
    const j = sql.indexOf(quote, i);
    if (j < 0) throw refuse("unsupported_syntax", `unterminated ${quote === "'" ? "string literal" : "quoted identifier"} at offset ${start}`, { at: start });
    value += sql.slice(i, j);
    if (sql[j + 1] === quote) {
      value += quote;
      i = j + 2;
      continue;
    }
    return { value, end: j + 1 };
  }
}

export interface CheckedSql {
  /** The SQL as DuckDB will run it: the text without a trailing semicolon. */
  sql: string;
  tokens: Token[];
}

/**
 * The lexical check. Returns the statement to run (one trailing `;` and what follows it, whitespace and
 * comments only, removed) or throws QUERY_REFUSED. `names` are the canvas's own table and column names (lower
 * case): a statement keyword that is one of them (a table canvas_import made as `secret` or `load`) is read as the
 * name it is, and DuckDB's parser, the second lock, still has to read the whole text as one SELECT over the
 * canvas's tables. Outside a statement's first word such a keyword can only be a name in a SELECT.
 */
export function checkReadOnlySql(input: string, names: ReadonlySet<string> = new Set(), parameters = false): CheckedSql {
  if (input.length > MAX_SQL_LENGTH) throw refuse("too_long", `the SQL is longer than ${MAX_SQL_LENGTH} characters`);
  const tokens = tokenize(input, parameters);
  if (tokens.length === 0) throw refuse("empty", "the SQL holds no statement");

  // One statement: a semicolon may only end the text.
  const semi = tokens.findIndex((t) => t.kind === "punct" && t.value === ";");
  if (semi >= 0 && semi < tokens.length - 1)
    throw refuse("multiple_statements", "send exactly one statement (a ';' is followed by more SQL)", { at: tokens[semi]!.at });
  const body = semi >= 0 ? tokens.slice(0, semi) : tokens;
  if (body.length === 0) throw refuse("empty", "the SQL holds no statement");

  const first = body.find((t) => !(t.kind === "punct" && t.value === "("));
  if (!first || first.kind !== "word" || (first.value !== "SELECT" && first.value !== "WITH")) {
    throw refuse(
      "not_select",
      `the statement must start with SELECT or WITH${first ? `, not ${first.kind === "word" ? first.value : JSON.stringify(first.value)}` : ""}`,
    );
  }

  for (let k = 0; k < body.length; k++) {
    const t = body[k]!;
    const next = body[k + 1];
    const callsNext = next?.kind === "punct" && next.value === "(";
    if ((t.kind === "word" || t.kind === "quoted") && SYSTEM_NAMES.test(t.value) && !callsNext) {
      throw refuse(
        "system_catalog",
        `${t.value.toLowerCase()} is a system view: only the staged tables are readable (chembl_dataframe_describe lists their columns)`,
        { name: t.value.toLowerCase(), at: t.at },
      );
    }
    // A keyword in a name's place is a name: an alias (AS load) or a qualified column (t.load). DuckDB's
    // parser, the second lock, still has to read the whole statement as one SELECT.
    const prior = body[k - 1];
    const named = prior !== undefined && ((prior.kind === "word" && prior.value === "AS") || (prior.kind === "punct" && prior.value === "."));
    if (t.kind === "word" && FORBIDDEN_KEYWORDS.has(t.value) && !named && !names.has(t.value.toLowerCase())) {
      throw refuse("forbidden_keyword", `${t.value} is not allowed: only a read-only SELECT over the staged tables runs here`, { keyword: t.value, at: t.at });
    }
    if (callsNext && t.kind === "word" && isForbiddenFunction(t.value)) {
      throw refuse("forbidden_function", `${t.value.toLowerCase()}() is not allowed: it reads files or server state, and only the staged tables are readable`, {
        function: t.value.toLowerCase(),
        at: t.at,
      });
    }
    if (callsNext && t.kind === "quoted") {
      throw refuse("forbidden_function", `a function called by a quoted name ("${t.value}") is not allowed; call functions by their plain names`, { at: t.at });
    }
    if (t.kind === "string") {
      const prev = body[k - 1];
      if (prev && prev.kind === "word" && (prev.value === "FROM" || prev.value === "JOIN")) {
        throw refuse("file_path_as_table", `a string literal after ${prev.value} would be read as a file; name a staged table instead`, { at: t.at });
      }
    }
  }

  const end = semi >= 0 ? tokens[semi]!.at : input.length;
  return { sql: input.slice(0, end), tokens: body };
}

// ---------------------------------------------------------------------------------------------------
// The second lock: DuckDB's own reading of the query

/** DuckDB's parser must read exactly one statement. */
function checkStatementCount(count: number): void {
  if (count !== 1) throw refuse("multiple_statements", `DuckDB reads ${count} statements; send exactly one`);
}

/** Table functions a query may call: they generate rows and read nothing. */
const ALLOWED_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(["range", "generate_series", "unnest"]);

/**
 * The second lock, on DuckDB's own parse tree (json_serialize_sql): exactly one statement; every table it
 * reads is a staged table of this canvas (unqualified, main., or this canvas's catalog) or a CTE the query
 * defines, never a system view (duckdb_databases, pg_settings, ...) or a path; every table function is a
 * row generator (range, generate_series, unnest); no function the lexical check forbids, whatever its quoting.
 */
function checkSyntaxTree(tree: unknown, own: ReadonlySet<string>, catalog: string, tables: readonly string[]): void {
  const t = tree as { error?: boolean; error_message?: string; statements?: unknown[] };
  if (t.error) throw new Error(`Parser Error: ${t.error_message ?? "syntax error"}`);
  if (!Array.isArray(t.statements) || t.statements.length !== 1)
    throw refuse("multiple_statements", `DuckDB reads ${t.statements?.length ?? 0} statements; send exactly one`);
  const ctes = new Set<string>();
  const baseTables: Array<{ catalog: string; schema: string; name: string }> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    if (!node || typeof node !== "object") return;
    const n = node as Record<string, unknown>;
    const map = (n.cte_map as { map?: Array<{ key?: unknown }> } | undefined)?.map;
    if (Array.isArray(map)) for (const e of map) if (typeof e.key === "string") ctes.add(e.key.toLowerCase());
    if (typeof n.cte_name === "string") ctes.add(n.cte_name.toLowerCase());
    if (n.type === "BASE_TABLE") {
      baseTables.push({
        catalog: String(n.catalog_name ?? "").toLowerCase(),
        schema: String(n.schema_name ?? "").toLowerCase(),
        name: String(n.table_name ?? "").toLowerCase(),
      });
    } else if (n.type === "TABLE_FUNCTION") {
      const fn = String((n.function as { function_name?: unknown } | undefined)?.function_name ?? "").toLowerCase();
      if (!ALLOWED_TABLE_FUNCTIONS.has(fn))
        throw refuse(
          "forbidden_function",
          `${fn}() is not allowed as a table: only the staged tables and row generators (range, generate_series, unnest) can be read`,
          { function: fn },
        );
    }
    if (n.class === "FUNCTION" && typeof n.function_name === "string" && n.is_operator !== true && isForbiddenFunction(n.function_name)) {
      throw refuse("forbidden_function", `${n.function_name.toLowerCase()}() is not allowed: it reads files or server state`, {
        function: n.function_name.toLowerCase(),
      });
    }
    for (const v of Object.values(n)) if (v && typeof v === "object") visit(v);
  };
  visit(t.statements[0]);
  for (const b of baseTables) {
    const isOwn = own.has(b.name) && (b.schema === "" || b.schema === "main") && (b.catalog === "" || b.catalog === catalog);
    const isCte = b.catalog === "" && b.schema === "" && ctes.has(b.name);
    if (!isOwn && !isCte) {
      const shown = [b.catalog, b.schema, b.name].filter((x) => x !== "").join(".");
      throw refuse("not_a_canvas_table", `${shown} is not a table of this canvas; the staged tables are: ${tables.join(", ") || "none"}`, {
        table: shown,
        tables: [...tables],
      });
    }
  }
}

/**
 * The qualified name at the start of a table reference as DuckDB's getTableNames writes it
 * (`main.t AS x`, `"a b" AS "c"`, `memory.main.t TABLESAMPLE ...`): its dot-separated parts, unquoted.
 */
export function leadingName(reference: string): string[] {
  const parts: string[] = [];
  let i = 0;
  for (;;) {
    let part = "";
    if (reference[i] === '"') {
      i++;
      for (; i < reference.length; i++) {
        if (reference[i] === '"') {
          if (reference[i + 1] === '"') {
            part += '"';
            i++;
            continue;
          }
          i++;
          break;
        }
        part += reference[i];
      }
    } else {
      const m = /^[^."\s]*/.exec(reference.slice(i))![0];
      part = m;
      i += m.length;
    }
    parts.push(part);
    if (reference[i] !== ".") return parts;
    i++;
  }
}

/**
 * Every table reference DuckDB finds (getTableNames, qualified) must be a staged table of this canvas:
 * unqualified, main., or this canvas's catalog's main. (a quoted path is a table name to DuckDB, and a
 * replacement scan would read it).
 */
function checkTableReferences(references: Iterable<string>, own: ReadonlySet<string>, catalog: string, tables: readonly string[]): void {
  for (const reference of references) {
    const parts = leadingName(reference).map((p) => p.toLowerCase());
    const name = parts.at(-1) ?? "";
    const qualifiedOk =
      parts.length === 1 || (parts.length === 2 && parts[0] === "main") || (parts.length === 3 && parts[0] === catalog && parts[1] === "main");
    if (!own.has(name) || !qualifiedOk) {
      throw refuse("not_a_canvas_table", `${reference.split(" ")[0]} is not a table of this canvas; the staged tables are: ${tables.join(", ") || "none"}`, {
        table: parts.join("."),
        tables: [...tables],
      });
    }
  }
}

/** Once prepared (bound under the locked-down configuration), the statement must be a SELECT. */
function checkSelect(isSelect: boolean): void {
  if (!isSelect) throw refuse("not_select", "DuckDB does not read this as a SELECT statement");
}

/**
 * The second lock as one step: `sql` (already through checkReadOnlySql) read by DuckDB's own parser and prepared
 * only when it is exactly one statement, names no table but `tables` (a quoted path is a table name to DuckDB,
 * and a replacement scan would read it), builds no value larger than one step may hold (a single call cannot be
 * interrupted once it runs), and binds as a SELECT under the locked-down configuration. The caller destroys the
 * statement it gets.
 */
export async function prepareGuarded(
  duckdb: DuckDbModule,
  connection: DuckDBConnection,
  sql: string,
  tables: readonly string[],
  catalog: string,
): Promise<DuckDBPreparedStatement> {
  const extracted = await connection.extractStatements(sql);
  checkStatementCount(extracted.count);
  const own = new Set(tables.map((t) => t.toLowerCase()));
  const serialised = await connection.runAndReadAll("SELECT json_serialize_sql($1::VARCHAR) AS ast", [sql]);
  const tree = JSON.parse(String(serialised.getRowsJson()[0]![0])) as unknown;
  checkSyntaxTree(tree, own, catalog.toLowerCase(), tables);
  const growth = findValueGrowth(tree);
  if (growth) throw valueGrowthRefusal(growth);
  checkTableReferences(connection.getTableNames(sql, true), own, catalog.toLowerCase(), tables);
  const prepared = await extracted.prepare(0);
  try {
    checkSelect(prepared.statementType === duckdb.StatementType.SELECT);
  } catch (e) {
    prepared.destroySync();
    throw e;
  }
  return prepared;
}

// ---------------------------------------------------------------------------------------------------
// The third lock: the instance's configuration

/**
 * The instance options every canvas opens with. Order matters: DuckDB applies them in turn, so the temp
 * directory comes before external access is switched off, and the configuration is locked last.
 *  - enable_external_access=false: no file, network or extension access from SQL (read_csv, COPY, ATTACH
 *    of a file, INSTALL, LOAD, replacement scans of paths);
 *  - autoinstall/autoload of known extensions off, community extensions off;
 *  - memory_limit and threads bound what one canvas may take;
 *  - lock_configuration=true: SET and RESET cannot change any of this afterwards.
 * An in-memory canvas gets no temp directory (nothing is ever written to disk); a file-backed one keeps
 * DuckDB's default, a `.tmp` directory beside its database file inside CHEMATIC_CANVAS_DIR.
 */
export function lockedDownOptions(opts: { memoryLimitMb: number; threads: number; inMemory: boolean }): Record<string, string> {
  const options: Record<string, string> = {};
  if (opts.inMemory) options.temp_directory = "";
  Object.assign(options, {
    enable_external_access: "false",
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    allow_community_extensions: "false",
    allow_unsigned_extensions: "false",
    allow_persistent_secrets: "false",
    memory_limit: `${opts.memoryLimitMb}MB`,
    threads: String(opts.threads),
    lock_configuration: "true",
  });
  return options;
}
