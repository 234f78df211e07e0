/**
 * Every environment variable chematic-mcp reads, in one list: `chematic-mcp --help` prints it, server.json's
 * environmentVariables are generated from it (scripts/metadata.ts) and the .mcpb manifest's options name it
 * (scripts/bundle.ts), and the tests hold the README's configuration tables and the code's reads to it. A new
 * variable goes here first; test/package/registry.test.ts and test/docs/readme.test.ts say what else drifted.
 * A leaf module: it imports nothing.
 */

export interface EnvVar {
  name: string;
  /** The default as a person reads it: a value, "unset", or what unset means. */
  default: string;
  /** One line: what it sets (--help, server.json). */
  summary: string;
  /** How a client form should take it (server.json's input format). */
  format: "string" | "number" | "boolean" | "filepath";
  /** The values it takes, when they are few. */
  choices?: readonly string[];
  /** It may hold credentials (a proxy URL with user:password). */
  secret?: boolean;
  /**
   * Where it applies: "server" (the serving process: listed in server.json), "cli" (one command only),
   * "system" (a general variable the server honours, not ours to advertise), "test" (test fixtures only).
   */
  scope: "server" | "cli" | "system" | "test";
  /** A server variable that applies to one transport only (e.g. "http" for HTTP authentication): server.json lists it under that package alone. */
  transport?: "stdio" | "http";
}

export const ENVIRONMENT: readonly EnvVar[] = [
  { name: "CHEMATIC_WORKERS", default: "available cores", summary: "Size of the chemistry worker pool (1 to 256).", format: "number", scope: "server" },
  {
    name: "CHEMATIC_MAX_QUEUE",
    default: "256",
    summary: "Calls that may wait for a worker; past it a call gets BUSY at once (0 to 100000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_LOG_LEVEL",
    default: "info",
    summary: "Stderr log level: error, warn, info or debug.",
    format: "string",
    choices: ["error", "warn", "info", "debug"],
    scope: "server",
  },
  {
    name: "CHEMATIC_LOG_FORMAT",
    default: "text",
    summary: "Stderr log format: text, or json for one JSON object per line.",
    format: "string",
    choices: ["text", "json"],
    scope: "server",
  },
  {
    name: "CHEMATIC_TOOLSETS",
    default: "all",
    summary: "Comma-separated tool sets to list and accept: chem, chembl, canvas, medchem (unset: all).",
    format: "string",
    scope: "server",
  },
  {
    name: "CHEMATIC_OFFLINE",
    default: "false",
    summary: "true: every networked tool and resource answers OFFLINE before any request.",
    format: "boolean",
    scope: "server",
  },
  {
    name: "PUBCHEM_API_BASE_URL",
    default: "https://pubchem.ncbi.nlm.nih.gov",
    summary: "PubChem PUG REST root for name_to_smiles (a mirror or a test server).",
    format: "string",
    scope: "server",
  },
  {
    name: "CHEMBL_SQLITE",
    default: "unset",
    summary: "Path of an official ChEMBL SQLite dump (chembl_NN.db): the ChEMBL tools answer from it, offline (needs better-sqlite3).",
    format: "filepath",
    scope: "server",
  },
  {
    name: "XDG_CACHE_HOME",
    default: "~/.cache",
    summary: "Where the ChEMBL dump's lookup sidecar goes when the dump's folder is not writable.",
    format: "filepath",
    scope: "system",
  },
  {
    name: "CHEMBL_DOWNLOAD_BASE_URL",
    default: "https://ftp.ebi.ac.uk/pub/databases/chembl/ChEMBLdb",
    summary: "Where chematic-mcp chembl download finds the releases (a mirror or a test server).",
    format: "string",
    scope: "cli",
  },
  {
    name: "CHEMBL_API_BASE_URL",
    default: "https://www.ebi.ac.uk/chembl/api/data",
    summary: "ChEMBL data API root (a mirror or a test server).",
    format: "string",
    scope: "server",
  },
  {
    name: "CHEMBL_REQUEST_TIMEOUT_MS",
    default: "30000",
    summary: "Time limit of one upstream ChEMBL request, in ms (50 to 300000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMBL_DEADLINE_MS",
    default: "45000",
    summary: "Time limit of one ChEMBL call or resource read, retries included, in ms (100 to 54000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMBL_MAX_CONCURRENT_PAGES",
    default: "4",
    summary: "Upstream ChEMBL requests in flight at once, service-wide (1 to 6).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMBL_SPILL_DEADLINE_MS",
    default: "45000",
    summary: "How long a bioactivity spill's walk may read pages, in ms (10000 to 600000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMBL_MAX_PAGE_SIZE",
    default: "1000",
    summary: "Rows one upstream ChEMBL page asks for at most (1 to 1000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMBL_DEFAULT_LIMIT",
    default: "25",
    summary: "Rows of a ChEMBL page when a call gives no limit (1 to 100).",
    format: "number",
    scope: "server",
  },
  {
    name: "HTTPS_PROXY",
    default: "unset",
    summary: "http://[user:password@]host:port proxy for https requests (ChEMBL, PubChem).",
    format: "string",
    secret: true,
    scope: "server",
  },
  { name: "HTTP_PROXY", default: "unset", summary: "Proxy for plain-http requests.", format: "string", secret: true, scope: "server" },
  {
    name: "NO_PROXY",
    default: "unset",
    summary: "Hosts, IP addresses and CIDR blocks (optionally :port) reached without the proxy; * for all.",
    format: "string",
    scope: "server",
  },
  {
    name: "CHEMATIC_CANVAS",
    default: "duckdb",
    summary: "duckdb stages large bioactivity views for SQL; off answers them inline, page by page.",
    format: "string",
    choices: ["duckdb", "off"],
    scope: "server",
  },
  {
    name: "CHEMATIC_CANVAS_DIR",
    default: "unset (in memory)",
    summary: "File-backed canvases under this existing, writable directory (absolute path); they survive a restart.",
    format: "filepath",
    scope: "server",
  },
  {
    name: "CHEMATIC_CANVAS_KEEP_DAYS",
    default: "7",
    summary: "Days a file-backed canvas stays on disk unused before its files are deleted (1 to 3650).",
    format: "number",
    scope: "server",
  },
  { name: "CHEMBL_MAX_SPILL_ROWS", default: "50000", summary: "Row cap of one spill (1 to 1000000).", format: "number", scope: "server" },
  {
    name: "CHEMATIC_CANVAS_MAX_TABLE_ROWS",
    default: "100000",
    summary: "Rows one canvas table holds at most (1 to 10000000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_IMPORT_DIR",
    default: "unset (off)",
    summary: "The one existing, readable directory canvas_import may read files from.",
    format: "filepath",
    scope: "server",
  },
  {
    name: "CHEMATIC_EXPORT_DIR",
    default: "unset (off)",
    summary: "The one existing, writable directory canvas_export writes SDF, CSV and Parquet files into.",
    format: "filepath",
    scope: "server",
  },
  {
    name: "CHEMATIC_APPS",
    default: "auto",
    summary:
      "MCP Apps (the molecule table, the 3D viewer): auto shows them to clients that declare the io.modelcontextprotocol/ui extension, on to every client (a stateless HTTP server whose hosts render apps), off to none.",
    format: "string",
    scope: "server",
  },
  {
    name: "CHEMATIC_CREATE_DIRS",
    default: "false",
    summary: "true: a missing CHEMATIC_IMPORT_DIR or CHEMATIC_EXPORT_DIR is created (mode 0700) when at most its last two folders are missing.",
    format: "boolean",
    scope: "server",
  },
  {
    name: "CHEMATIC_IMPORT_MAX_MB",
    default: "128",
    summary: "The largest file (or .sdf.gz content) canvas_import reads, in MB (1 to 4096).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_IMPORT_MAX_COLUMNS",
    default: "1000",
    summary: "Data columns (CSV columns, distinct SDF data items) one canvas_import may bring (1 to 10000).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_CANVAS_PER_CALLER",
    default: "8",
    summary: "Canvases one caller (token label, OAuth subject, the stdio process) holds at most; past it its oldest goes (1 to 32).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_CANVAS_CALLER_MB",
    default: "1024",
    summary: "Data (MB) one caller's canvases hold at most together; past it its oldest canvas goes.",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_PROCESS_MAX_MB",
    default: "half the machine's memory, 1024 to 4096",
    summary: "Resident memory (MB) past which a running canvas query is interrupted (QUERY_REFUSED process_memory).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMATIC_CANVAS_MAX_MB",
    default: "256",
    summary: "Estimated data one canvas holds at most over its tables, in MB (1 to 65536).",
    format: "number",
    scope: "server",
  },
  {
    name: "CHEMBL_DATAFRAME_DROP_ENABLED",
    default: "false",
    summary: "true registers chembl_dataframe_drop (drop a staged table).",
    format: "boolean",
    scope: "server",
  },
  {
    name: "CHEMATIC_AUTH_TOKENS_FILE",
    default: "unset",
    summary: "With --auth bearer: the token file, one '<label> sha256:<hex SHA-256 of the token>' line each; re-read on SIGHUP.",
    format: "filepath",
    scope: "server",
    transport: "http",
  },
  {
    name: "CHEMATIC_OAUTH_ISSUER",
    default: "unset",
    summary: "With --auth oauth: the authorization server's issuer identifier (https; http only on loopback).",
    format: "string",
    scope: "server",
    transport: "http",
  },
  {
    name: "CHEMATIC_OAUTH_AUDIENCE",
    default: "unset",
    summary: "With --auth oauth: this server's canonical URL, which every access token's aud must contain.",
    format: "string",
    scope: "server",
    transport: "http",
  },
  {
    name: "CHEMATIC_OAUTH_SCOPES",
    default: "unset (none)",
    summary: "With --auth oauth: scopes every access token must carry (space- or comma-separated).",
    format: "string",
    scope: "server",
    transport: "http",
  },
  {
    name: "CHEMATIC_REPLICA_ID",
    default: "unset (a random name at each start)",
    summary: "This replica's name in the canvas IDs it mints (1 to 16 lower-case letters and digits), for routing behind a load balancer.",
    format: "string",
    scope: "server",
    transport: "http",
  },
  {
    name: "CHEMATIC_TEST_TOOLS",
    default: "false",
    summary: "true registers the test-only fixture tools (test_sleep, test_crash, test_memory); never in production.",
    format: "boolean",
    scope: "test",
  },
];

/** The --help section: every variable with its default and summary, grouped by where it applies. */
export function environmentHelp(width = 34): string {
  const line = (v: EnvVar) => `  ${v.name.padEnd(width)}${v.summary} Default: ${v.default}.`;
  const of = (scope: EnvVar["scope"]) => ENVIRONMENT.filter((v) => v.scope === scope).map(line);
  return [
    "Environment (see docs/configuration.md):",
    ...of("server"),
    ...of("system"),
    "  For one command:",
    ...of("cli"),
    "  For tests only:",
    ...of("test"),
  ].join("\n");
}
