/**
 * `chematic-mcp doctor`: checks what a working install needs and says what to fix for each failure.
 *
 *   Node.js        the running version (require(esm), which OpenChemLib needs: 20.19+ or 22.12+)
 *   configuration  every environment variable the server parses strictly (the values a start would refuse)
 *   data assets    every file under assets/ reads; JSON parses; a sidecar's sha256 and size match its binary
 *   skills         the skill files under skills/ (served as skill:// resources) load as the server loads them
 *   RDKit          the MinimalLib WebAssembly module starts and parses a molecule
 *   OpenChemLib    loads (its resources too) and parses a molecule
 *   chemistry      every chemistry tool that takes just a SMILES answers for ethanol, its output checked
 *                  against its outputSchema (exercises the assets as the tools load them)
 *   DuckDB         the native binding loads and runs a query in memory
 *   PNG rendering  the resvg native binding rasterises an SVG (depict's PNG output)
 *   proxy          HTTPS_PROXY / HTTP_PROXY / NO_PROXY are usable, and which route each upstream takes
 *   ChEMBL         GET {CHEMBL_API_BASE_URL}/status.json answers with a release (short timeout)
 *   PubChem        a name lookup (aspirin) at PUBCHEM_API_BASE_URL answers with a SMILES (short timeout)
 *   ChEMBL dump    with CHEMBL_SQLITE set: the dump opens read-only (path, release from its version table, size,
 *                  the lookup sidecar, and the structure index: present with its size and count, stale, or missing)
 * CHEMATIC_OFFLINE skips the two upstream checks (reported as skipped, not failed).
 *
 * The report goes to stdout (doctor is not a protocol session): text, or one JSON object with --json.
 * Exit status 0 when nothing failed, 1 otherwise.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { gunzipSync } from "node:zlib";
import { projectRoot } from "./domain/assets.js";
import type { StructureIndexStatus } from "./domain/chembl/structures/format.js";
import { PACKAGE } from "./version.js";

type CheckStatus = "ok" | "fail" | "skip";

interface CheckResult {
  name: string;
  status: CheckStatus;
  /** What was found (a version, a URL, a count). */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
  ms: number;
}

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  /** Timeout of each upstream request (ChEMBL, PubChem), default 5000 ms. */
  timeoutMs?: number;
}

export interface DoctorReport {
  version: string;
  node: string;
  platform: string;
  ok: boolean;
  checks: CheckResult[];
}

export const DEFAULT_DOCTOR_TIMEOUT_MS = 5000;
const ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O";
/** The chemistry self-test's molecule: small, so that the 3D builder answers in about a second. */
const ETHANOL = "CCO";
const REINSTALL =
  "Reinstall the package: with npx, delete npx's cache (~/.npm/_npx; on Windows %LocalAppData%\\npm-cache\\_npx) and start again; " +
  "with npm, `npm install chematic-mcp` again. Do not pass --omit=optional or --no-optional: npm must install the binaries built for this platform.";

class CheckFailure extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

function fail(message: string, fix: string): never {
  throw new CheckFailure(message, fix);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message.split("\n")[0]!.slice(0, 300) : String(e).slice(0, 300);
}

async function check(name: string, fixOnError: string, body: () => Promise<{ detail: string; status?: CheckStatus }>): Promise<CheckResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const { detail, status = "ok" } = await body();
    return { name, status, detail, ms: ms() };
  } catch (e) {
    if (e instanceof CheckFailure) return { name, status: "fail", detail: e.message, fix: e.fix, ms: ms() };
    return { name, status: "fail", detail: errorText(e), fix: fixOnError, ms: ms() };
  }
}

/** Node.js 20.19+ and 22.12+ (and 23+) load an ES-module-only package with require(): OpenChemLib needs it. */
export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 23;
}

async function checkNode(): Promise<{ detail: string }> {
  const v = process.version;
  if (!nodeSupported(v)) {
    fail(
      `Node.js ${v} is too old: chematic-mcp needs 20.19+ or 22.12+ (OpenChemLib, used for 3D coordinates, needs require(esm))`,
      "Install Node.js 22 LTS or newer (https://nodejs.org), or 20.19+; check with `node --version` that the client starts that node (an MCP client may use a different PATH than your shell).",
    );
  }
  return { detail: `${v} (${process.platform}-${process.arch}; needs 20.19+ or 22.12+)` };
}

async function checkConfiguration(env: NodeJS.ProcessEnv): Promise<{ detail: string }> {
  const { loadConfig, ConfigError } = await import("./config.js");
  const { parseLogFormat, parseLogLevel } = await import("./logger.js");
  const { selectedToolsets, testToolsEnabled } = await import("./tools/index.js");
  try {
    const config = loadConfig(env);
    const toolsets = selectedToolsets(env);
    const level = parseLogLevel(env.CHEMATIC_LOG_LEVEL);
    const format = parseLogFormat(env.CHEMATIC_LOG_FORMAT);
    const testTools = testToolsEnabled(env);
    return {
      detail: `workers=${config.workers} max_queue=${config.maxQueue} log=${level}/${format} offline=${config.chembl.offline} toolsets=${toolsets.join(",")}${testTools ? " CHEMATIC_TEST_TOOLS=on (never in production)" : ""}`,
    };
  } catch (e) {
    if (e instanceof ConfigError) {
      const variable = /^([A-Z][A-Z0-9_]+)/.exec(e.message)?.[1] ?? "the variable named";
      fail(
        e.message,
        `Correct or unset ${variable} in the environment the server starts with (the "env" block of the client config); the server refuses to start with it (exit 2).`,
      );
    }
    throw e;
  }
}

/** Every file under assets/: JSON parses; a sidecar naming a binary (`asset`) with sha256/bytes matches it. */
async function checkAssets(): Promise<{ detail: string }> {
  let root: string;
  try {
    root = projectRoot();
  } catch (e) {
    fail(`no assets/ folder next to the code: ${errorText(e)}`, `The package is incomplete. ${REINSTALL}`);
  }
  const dir = join(root, "assets");
  const names = readdirSync(dir).filter((n) => statSync(join(dir, n)).isFile());
  if (names.length === 0) fail(`${dir} is empty`, `The package is incomplete. ${REINSTALL}`);
  let bytes = 0;
  for (const name of names) {
    const path = join(dir, name);
    const data = readFileSync(path);
    bytes += data.length;
    const bad = (why: string) => fail(`assets/${name}: ${why}`, `The data file is damaged or truncated. ${REINSTALL}`);
    if (name.endsWith(".json")) {
      let value: unknown;
      try {
        value = JSON.parse(data.toString("utf8"));
      } catch (e) {
        bad(`not valid JSON (${errorText(e)})`);
      }
      const sidecar = value as { asset?: unknown; sha256?: unknown; bytes?: unknown };
      if (typeof sidecar.asset === "string") {
        const target = join(dir, sidecar.asset);
        if (!existsSync(target)) fail(`assets/${sidecar.asset} (described by assets/${name}) is missing`, `The package is incomplete. ${REINSTALL}`);
        const binary = readFileSync(target);
        if (typeof sidecar.bytes === "number" && binary.length !== sidecar.bytes)
          bad(`assets/${sidecar.asset} has ${binary.length} bytes, ${sidecar.bytes} expected`);
        if (typeof sidecar.sha256 === "string" && createHash("sha256").update(binary).digest("hex") !== sidecar.sha256)
          bad(`assets/${sidecar.asset} does not match its sha256`);
      }
    } else if (name.endsWith(".gz")) {
      try {
        gunzipSync(data);
      } catch (e) {
        bad(`not a readable gzip file (${errorText(e)})`);
      }
    }
  }
  return { detail: `${names.length} files, ${(bytes / 1024).toFixed(0)} KiB in ${dir}` };
}

/**
 * The MCP Apps' pages (build/apps): each present, a page, and under its stated size. Missing ones only take the
 * apps away (tools still answer as text), so they fail this check, not the server's start-up.
 */
async function checkApps(env: NodeJS.ProcessEnv): Promise<{ detail: string; status?: CheckStatus }> {
  const { builtApps, appUri } = await import("./resources/apps.js");
  const apps = builtApps();
  const missing = apps.filter((a) => a.bytes === null);
  if (missing.length > 0) fail(`not built: ${missing.map((a) => a.path).join(", ")}`, `Run \`npm run build\` in a checkout. ${REINSTALL}`);
  for (const app of apps) {
    const head = readFileSync(app.path, "utf8").slice(0, 200).toLowerCase();
    if (!head.startsWith("<!doctype html")) fail(`${app.path} is not an HTML page`, `The package is damaged. ${REINSTALL}`);
    if (app.bytes! > app.maxBytes) fail(`${appUri(app.name)} is ${app.bytes} bytes, over its ${app.maxBytes}`, `The package is damaged. ${REINSTALL}`);
  }
  const mode = env.CHEMATIC_APPS?.trim().toLowerCase() || "auto";
  const who = mode === "off" ? "switched off (CHEMATIC_APPS=off)" : mode === "on" ? "shown to every client" : "shown to clients that declare the extension";
  const sizes = apps.map((a) => `${appUri(a.name)} ${(a.bytes! / 1024).toFixed(0)} KiB (max ${(a.maxBytes / 1024).toFixed(0)})`).join(", ");
  return { detail: `${sizes}; ${who}` };
}

/** The skills the server serves; a missing or unreadable folder stops the server's start-up. */
async function checkSkills(): Promise<{ detail: string; status?: CheckStatus }> {
  const root = projectRoot();
  const dir = join(root, "skills");
  let skills: typeof import("./domain/skills/skills.js");
  try {
    skills = await import("./domain/skills/skills.js");
  } catch {
    return { status: "skip", detail: "this build serves no skills" };
  }
  let tree: Map<string, unknown>;
  try {
    tree = skills.loadSkillTree(dir);
  } catch (e) {
    fail(errorText(e), `The package is incomplete: the server will not start without its skills. ${REINSTALL}`);
  }
  return { detail: `${tree.size} files in ${dir}` };
}

async function checkRdkit(): Promise<{ detail: string }> {
  const { loadRDKit } = await import("./domain/chem/rdkit.js");
  const rdkit = await loadRDKit();
  const mol = rdkit.get_mol(ASPIRIN);
  try {
    if (!mol || !mol.is_valid()) fail("RDKit started but could not parse aspirin", `The RDKit WebAssembly module is damaged. ${REINSTALL}`);
    const heavy = (JSON.parse(mol.get_descriptors()) as { NumHeavyAtoms?: number }).NumHeavyAtoms;
    if (heavy !== 13) fail(`RDKit parsed aspirin with ${heavy} heavy atoms (13 expected)`, `The RDKit WebAssembly module is damaged. ${REINSTALL}`);
  } finally {
    mol?.delete();
  }
  const { engineStackInfo } = await import("./domain/chem/engine-stack.js");
  const stack = engineStackInfo();
  const stackText = stack.installed ? `${stack.bytes / 2 ** 20} MiB C++ stack, guarded` : `linked 64 KiB C++ stack, unguarded: ${stack.reason}`;
  return { detail: `RDKit MinimalLib ${rdkit.version()} (WebAssembly, ${stackText})` };
}

async function checkOpenChemLib(): Promise<{ detail: string }> {
  const { loadOpenChemLib } = await import("./domain/chem/conformers.js");
  const OCL = loadOpenChemLib();
  const formula = OCL.Molecule.fromSmiles("CCO").getMolecularFormula().formula;
  if (formula !== "C2H6O") fail(`OpenChemLib parsed ethanol as ${formula}`, `OpenChemLib is damaged. ${REINSTALL}`);
  return { detail: `OpenChemLib ${(OCL as unknown as { version?: string }).version ?? "(version unknown)"}` };
}

/**
 * Every production chemistry tool whose input is valid with just {smiles}: run on ethanol through the
 * server's own call path (a worker thread of the pool, input and output schemas checked), as a client's
 * call would be.
 */
async function checkChemistryTools(): Promise<{ detail: string }> {
  const { McpServer } = await import("./server/server.js");
  const { WorkerPool } = await import("./server/pool.js");
  const { allTools } = await import("./tools/index.js");
  const { createLogger } = await import("./logger.js");
  const logger = createLogger({ CHEMATIC_LOG_LEVEL: "error" });
  const pool = new WorkerPool({ size: 1, maxQueue: 64, log: (m) => logger.warn(m) });
  const server = new McpServer({ tools: allTools({}).filter((t) => t.kind === "chem" && !t.testOnly), pool, info: PACKAGE, logger });
  const ran: string[] = [];
  const failures: string[] = [];
  try {
    for (const tool of server.registry.tools()) {
      const args = { smiles: ETHANOL };
      if (!server.registry.get(tool.name)!.validateInput(args)) continue;
      try {
        const outcome = await server.runTool(tool.name, args, { signal: AbortSignal.timeout(60_000) });
        if (outcome.ok) ran.push(tool.name);
        else failures.push(`${tool.name}: ${outcome.error.code}: ${outcome.error.message}`);
      } catch (e) {
        // An output that breaks its schema or an engine failure: the server logged the detail.
        failures.push(`${tool.name}: ${errorText(e)}`);
      }
    }
  } finally {
    await pool.close();
  }
  if (failures.length > 0) {
    fail(failures.join("; "), `A chemistry tool cannot run: read the message above (a missing asset or native binding). ${REINSTALL}`);
  }
  if (ran.length === 0) fail("no chemistry tool ran", `The tool registry is empty. ${REINSTALL}`);
  return { detail: `${ran.length} tools answered for ethanol: ${ran.join(", ")}` };
}

async function checkDuckDb(): Promise<{ detail: string }> {
  let duckdb: typeof import("@duckdb/node-api");
  try {
    duckdb = await import("@duckdb/node-api");
  } catch (e) {
    fail(
      `the DuckDB binding does not load: ${errorText(e)}`,
      `Without it the ChEMBL canvas is off (large bioactivity views come back page by page) and everything else works. DuckDB ships a native binary per platform ` +
        `(@duckdb/node-bindings-${process.platform}-${process.arch}); supported: Linux x64/arm64 (glibc, musl), macOS x64/arm64, Windows x64/arm64. ${REINSTALL}`,
    );
  }
  const instance = await duckdb.DuckDBInstance.create(":memory:");
  try {
    const connection = await instance.connect();
    try {
      const rows = (await connection.runAndReadAll("SELECT 6 * 7 AS answer")).getRowObjects();
      if (Number(rows[0]?.answer) !== 42) fail(`DuckDB answered ${JSON.stringify(rows)}`, `The DuckDB binding is damaged. ${REINSTALL}`);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
  return { detail: `DuckDB ${duckdb.version()} (in memory)` };
}

async function checkPng(): Promise<{ detail: string }> {
  const { rasterise } = await import("./domain/chem/depict.js");
  let png: Uint8Array;
  try {
    png = rasterise('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#fff"/></svg>');
  } catch (e) {
    fail(
      `the resvg binding does not load: ${errorText(e)}`,
      `depict's PNG output needs the native @resvg/resvg-js binary for ${process.platform}-${process.arch} (SVG output still works). ${REINSTALL}`,
    );
  }
  if (Buffer.from(png.subarray(0, 4)).toString("latin1") !== "\x89PNG") fail("resvg did not produce a PNG", `The resvg binding is damaged. ${REINSTALL}`);
  return { detail: "resvg renders PNG" };
}

interface Upstreams {
  offline: boolean;
  chembl: string;
  pubchem: string;
}

async function upstreams(env: NodeJS.ProcessEnv): Promise<Upstreams> {
  const { CHEMBL_DEFAULT_BASE_URL, loadChemblConfig } = await import("./config.js");
  const { offlineState } = await import("./domain/net/offline.js");
  const { PUBCHEM_DEFAULT_BASE_URL } = await import("./domain/net/pubchem.js");
  let chembl: string;
  try {
    chembl = loadChemblConfig(env).apiBaseUrl;
  } catch {
    chembl = env.CHEMBL_API_BASE_URL?.trim() || CHEMBL_DEFAULT_BASE_URL; // the configuration check reports it
  }
  return { offline: offlineState(env).offline, chembl, pubchem: env.PUBCHEM_API_BASE_URL?.trim() || PUBCHEM_DEFAULT_BASE_URL };
}

function redact(url: URL): string {
  return `${url.protocol}//${url.username || url.password ? "***@" : ""}${url.host}`;
}

async function checkProxy(env: NodeJS.ProcessEnv, up: Upstreams): Promise<{ detail: string }> {
  const { ProxyConfigError, proxyFor } = await import("./domain/net/proxy.js");
  // The variables are checked for a non-loopback target whatever the upstreams are (loopback never uses a proxy).
  const probes: Array<[string, string]> = [
    ["https", "https://proxy-check.invalid/"],
    ["http", "http://proxy-check.invalid/"],
  ];
  const parts: string[] = [];
  try {
    for (const [scheme, probe] of probes) {
      const choice = proxyFor(new URL(probe), env);
      parts.push(`${scheme}: ${choice ? `${choice.variable}=${redact(choice.url)}` : "no proxy"}`);
    }
    for (const [label, base] of [
      ["ChEMBL", up.chembl],
      ["PubChem", up.pubchem],
    ] as const) {
      let url: URL;
      try {
        url = new URL(base);
      } catch {
        continue; // an invalid base URL is reported by its own check
      }
      const choice = proxyFor(url, env);
      parts.push(`${label} ${choice ? `via ${choice.variable}` : "direct"}`);
    }
  } catch (e) {
    if (e instanceof ProxyConfigError) {
      fail(
        e.message,
        "Set HTTPS_PROXY (and HTTP_PROXY) to http://[user:password@]host:port, the address of an HTTP proxy that supports CONNECT; " +
          "unset them if you need no proxy. socks:// and https:// proxy URLs are not supported.",
      );
    }
    throw e;
  }
  const noProxy = env.NO_PROXY?.trim() || env.no_proxy?.trim();
  return { detail: `${parts.join("; ")}${noProxy ? `; NO_PROXY set` : ""}` };
}

const NETWORK_FIX =
  "Check the machine's network and firewall; behind a corporate proxy set HTTPS_PROXY=http://host:port (and NO_PROXY for local hosts); " +
  "a TLS-inspecting proxy needs its CA in NODE_EXTRA_CA_CERTS. To run without networked tools set CHEMATIC_OFFLINE=1.";

async function upstreamFailure(service: string, variable: string, url: string, e: unknown, timeoutMs: number): Promise<never> {
  const { HttpFailure } = await import("./domain/net/http-client.js");
  if (e instanceof HttpFailure) {
    switch (e.kind) {
      case "timeout":
        fail(
          `${service} at ${url} did not answer within ${timeoutMs} ms`,
          `${NETWORK_FIX} A slow link may just need a longer wait: doctor --timeout-ms 15000.`,
        );
        break;
      case "status":
        fail(
          `${service} at ${url} answered HTTP ${e.status}`,
          e.status === 404 || e.status === 400
            ? `${variable} does not point at the ${service} API root; unset it to use the public service.`
            : `${service} is having trouble (maintenance or overload); retry later. If you use a mirror, check ${variable}.`,
        );
        break;
      case "invalid_json":
      case "too_large":
        fail(
          `${service} at ${url} did not answer with the expected JSON`,
          `Check that ${variable} points at the ${service} API root, and that no captive portal or proxy rewrites the answer.`,
        );
        break;
      default:
        fail(`${service} at ${url} cannot be reached: ${e.code ?? errorText(e)}`, NETWORK_FIX);
    }
  }
  throw e;
}

async function checkChembl(env: NodeJS.ProcessEnv, up: Upstreams, timeoutMs: number): Promise<{ detail: string; status?: CheckStatus }> {
  if (up.offline) return { status: "skip", detail: "CHEMATIC_OFFLINE is on: the ChEMBL tools answer OFFLINE" };
  const { getJson } = await import("./domain/net/http-client.js");
  const url = `${up.chembl}/status.json`;
  let data: { chembl_db_version?: unknown; chembl_release_date?: unknown };
  try {
    data = (await getJson<typeof data>(url, { timeoutMs, env, maxBytes: 1024 * 1024 })).data;
  } catch (e) {
    return upstreamFailure("ChEMBL", "CHEMBL_API_BASE_URL", up.chembl, e, timeoutMs);
  }
  if (typeof data?.chembl_db_version !== "string") {
    fail(
      `${url} answered without a ChEMBL release`,
      "Check that CHEMBL_API_BASE_URL points at the ChEMBL data API root (default https://www.ebi.ac.uk/chembl/api/data).",
    );
  }
  return { detail: `${up.chembl} answers: ${data.chembl_db_version}${typeof data.chembl_release_date === "string" ? ` (${data.chembl_release_date})` : ""}` };
}

function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${bytes} bytes`;
}

/** What doctor says about a structure index: present (size, count), stale (why) or missing (how to build it). */
function structureIndexText(index: StructureIndexStatus): string {
  const mb = index.size_bytes !== undefined ? sizeText(index.size_bytes) : "";
  if (index.state === "present") {
    return `structure index: ${index.path} (${(index.count ?? 0).toLocaleString("en-US")} structures${index.skipped ? `, ${index.skipped.toLocaleString("en-US")} left out` : ""}, ${mb}, built ${index.built_at ?? "?"})`;
  }
  if (index.state === "stale")
    return `structure index: stale, not used (${index.path}: ${index.reason ?? "it does not match the dump"}); rebuild it with chematic-mcp chembl index`;
  return "structure index: none (build it with chematic-mcp chembl index; until then similarity and substructure searches go to the web API, or under CHEMATIC_OFFLINE answer how to build it)";
}

/** CHEMBL_SQLITE: the dump opens in its worker thread as the server would open it. */
async function checkChemblDump(path: string, env: NodeJS.ProcessEnv): Promise<{ detail: string }> {
  const { SqliteSource, sidecarCacheDir } = await import("./domain/chembl/sqlite/source.js");
  const { locateStructureIndex } = await import("./domain/chembl/structures/place.js");
  const { ToolError } = await import("./domain/errors.js");
  const source = new SqliteSource(path, env);
  try {
    const info = await source.open();
    return {
      detail:
        `${info.path}: ${info.release ?? "no release in its version table"}${info.release_date ? ` (${info.release_date})` : ""}, ${sizeText(info.size_bytes)}; ` +
        `lookup index: ${info.sidecar ?? "none (lookups the dump has no index for scan it)"}; ` +
        structureIndexText(locateStructureIndex(info.path, info.release, sidecarCacheDir(env))),
    };
  } catch (e) {
    if (e instanceof ToolError) fail(e.message, e.hint);
    throw e;
  } finally {
    await source.close();
  }
}

async function checkPubChem(env: NodeJS.ProcessEnv, up: Upstreams, timeoutMs: number): Promise<{ detail: string; status?: CheckStatus }> {
  if (up.offline) return { status: "skip", detail: "CHEMATIC_OFFLINE is on: name_to_smiles answers OFFLINE" };
  const { lookupName } = await import("./domain/net/pubchem.js");
  const { ToolError } = await import("./domain/errors.js");
  try {
    const match = await lookupName("aspirin", { env, timeoutMs });
    return { detail: `${up.pubchem} answers: aspirin is ${match.smiles}${match.cid ? ` (CID ${match.cid})` : ""}` };
  } catch (e) {
    if (e instanceof ToolError) {
      const reason = String(e.details.reason ?? "");
      const setting = e.details.setting === "PUBCHEM_API_BASE_URL";
      fail(
        `PubChem at ${up.pubchem}: ${e.message}${e.details.network_error ? ` (${String(e.details.network_error)})` : ""}`,
        setting
          ? "Set PUBCHEM_API_BASE_URL to an http(s) URL without query or fragment, or unset it to use https://pubchem.ncbi.nlm.nih.gov."
          : reason === "not_found"
            ? "PubChem answered but did not know aspirin: PUBCHEM_API_BASE_URL does not point at a PUG REST root; unset it to use the public service."
            : reason === "timeout"
              ? `${NETWORK_FIX} A slow link may just need a longer wait: doctor --timeout-ms 15000.`
              : e.details.upstream_status
                ? "PubChem is having trouble (maintenance or overload); retry later."
                : NETWORK_FIX,
      );
    }
    throw e;
  }
}

export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS;
  const checks: CheckResult[] = [];
  checks.push(await check("Node.js", "Install Node.js 22 LTS or newer.", checkNode));
  checks.push(await check("configuration", "Correct the variable named in the message.", () => checkConfiguration(env)));
  checks.push(await check("data assets", `The package is incomplete. ${REINSTALL}`, checkAssets));
  checks.push(await check("skills", `The package is incomplete. ${REINSTALL}`, checkSkills));
  checks.push(await check("MCP Apps", `The package is incomplete. ${REINSTALL}`, () => checkApps(env)));
  checks.push(await check("RDKit", `RDKit's WebAssembly module does not start. ${REINSTALL}`, checkRdkit));
  checks.push(await check("OpenChemLib", `OpenChemLib does not load (it needs Node.js 20.19+ or 22.12+). ${REINSTALL}`, checkOpenChemLib));
  checks.push(await check("chemistry tools", `A chemistry tool cannot run. ${REINSTALL}`, checkChemistryTools));
  checks.push(await check("DuckDB", `The DuckDB binding does not work. ${REINSTALL}`, checkDuckDb));
  checks.push(await check("PNG rendering", `The resvg binding does not work (depict's SVG output still does). ${REINSTALL}`, checkPng));
  const up = await upstreams(env);
  checks.push(await check("proxy", "Check HTTPS_PROXY, HTTP_PROXY and NO_PROXY.", () => checkProxy(env, up)));
  const [chembl, pubchem] = await Promise.all([
    check("ChEMBL", NETWORK_FIX, () => checkChembl(env, up, timeoutMs)),
    check("PubChem", NETWORK_FIX, () => checkPubChem(env, up, timeoutMs)),
  ]);
  checks.push(chembl, pubchem);
  const dump = env.CHEMBL_SQLITE?.trim();
  if (dump) {
    checks.push(
      await check("ChEMBL dump", "Point CHEMBL_SQLITE at an official chembl_NN.db file, or unset it.", () => checkChemblDump(resolvePath(dump), env)),
    );
  }
  return {
    version: PACKAGE.version,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    ok: checks.every((c) => c.status !== "fail"),
    checks,
  };
}

export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines = [`chematic-mcp doctor ${report.version} (Node.js ${report.node}, ${report.platform})`, ""];
  for (const c of report.checks) {
    const tag = c.status === "ok" ? "[ ok ]" : c.status === "skip" ? "[skip]" : "[FAIL]";
    lines.push(`${tag} ${c.name.padEnd(width)}  ${c.detail}`);
    if (c.fix) lines.push(`       ${" ".repeat(width)}  fix: ${c.fix}`);
  }
  const failed = report.checks.filter((c) => c.status === "fail").length;
  const skipped = report.checks.filter((c) => c.status === "skip").length;
  lines.push("", failed === 0 ? `All checks passed${skipped ? ` (${skipped} skipped)` : ""}.` : `${failed} of ${report.checks.length} checks failed.`);
  return `${lines.join("\n")}\n`;
}
