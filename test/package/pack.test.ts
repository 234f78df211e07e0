/**
 * The published package, end to end: `npm pack` builds it (prepack), the tarball holds only what runs, it
 * installs into an empty folder with production dependencies only, and it serves a real session started the
 * way a client config starts it: node_modules/.bin/chematic-mcp and `npx chematic-mcp` over stdio, and the same
 * bin over Streamable HTTP. Each session discovers, lists and makes one call from every tool family present:
 * RDKit chemistry (with its data assets), 3D (OpenChemLib), depiction (the resvg native binding), ChEMBL and
 * PubChem (against local fakes on 127.0.0.1: the real HTTP client, normalisers and attribution run, no
 * internet), and the DuckDB canvas. Prints the package size and the dependency count.
 *
 * Needs npm and the npm registry (or a warm npm cache: --prefer-offline); skipped with a message without npm.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { startOrigin, type FakeServer } from "../helpers/fake-http.js";
import { modernPost } from "../helpers/http.js";
import { MODERN_META } from "../helpers/server-process.js";

const root = projectRoot();
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** npm for the child processes: without the variables of an enclosing `npm test` run (lifecycle, package fields). */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(lifecycle|package|command|config_(dry_run|global|prefix|omit|include|production|only|save))/i.test(k) || k === "INIT_CWD") continue;
    env[k] = v;
  }
  // The node running the tests is the node the package runs on.
  env.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`;
  return { ...env, ...extra };
}

/** The server's environment: no inherited CHEMATIC_/CHEMBL_/PUBCHEM_ settings, no proxies (the fakes are loopback anyway). */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = npmEnv();
  for (const k of Object.keys(env)) if (/^(CHEMATIC_|CHEMBL_|PUBCHEM_)|^(https?|no)_proxy$/i.test(k)) delete env[k];
  return { ...env, CHEMATIC_WORKERS: "1", ...extra };
}

function npmAvailable(): string | undefined {
  const r = spawnSync(NPM, ["--version"], { encoding: "utf8", env: npmEnv(), shell: process.platform === "win32" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): { stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const r = spawnSync(command, args, {
    cwd,
    env: npmEnv(),
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    shell: process.platform === "win32",
  });
  assert.equal(r.status, 0, `${command} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stderr.slice(-4000)}`);
  return { stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** A child process run without blocking the event loop (the fakes answer from this process). */
function runAsync(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

// ---------------------------------------------------------------------------------------------------
// Local upstreams

let chembl: FakeChembl;
let pubchem: FakeServer;
let work: string | undefined;

before(async () => {
  chembl = await new FakeChembl("new").start();
  pubchem = await startOrigin((req, res) => {
    if (req.url === "/rest/pug/compound/name/aspirin/property/SMILES,IsomericSMILES/JSON") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ PropertyTable: { Properties: [{ CID: 2244, SMILES: "CC(=O)OC1=CC=CC=C1C(=O)O" }] } }));
    } else {
      res.writeHead(404, { "content-type": "application/json" }).end('{"Fault":{"Code":"PUGREST.NotFound"}}');
    }
  });
});

after(async () => {
  await chembl.stop();
  await pubchem.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------
// One session, whatever carries it

type Rpc = (method: string, params: Record<string, unknown>) => Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>;

interface ToolResult {
  structuredContent: Record<string, unknown>;
  content: Array<{ type: string; mimeType?: string; data?: string }>;
  isError?: boolean;
}

/** server/discover, tools/list, then one call from each tool family present. Returns the families exercised. */
async function session(rpc: Rpc, label: string): Promise<string[]> {
  const discover = await rpc("server/discover", {});
  assert.ok(discover.result, `${label}: server/discover ${JSON.stringify(discover.error)}`);
  const info = (discover.result._meta as Record<string, { name: string; version: string }>)["io.modelcontextprotocol/serverInfo"];
  assert.deepEqual(info, { name: pkg.name, version: pkg.version }, `${label}: the installed package names itself`);

  const list = await rpc("tools/list", {});
  const names = new Set(((list.result?.tools ?? []) as Array<{ name: string }>).map((t) => t.name));
  assert.ok(names.size >= 10, `${label}: tools/list lists the tools (${[...names].join(", ")})`);
  assert.ok(![...names].some((n) => n.startsWith("test_")), `${label}: no test fixture tools`);

  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const r = await rpc("tools/call", { name, arguments: args });
    assert.ok(r.result, `${label}: ${name} answered ${JSON.stringify(r.error)}`);
    const result = r.result as unknown as ToolResult;
    assert.notEqual(result.isError, true, `${label}: ${name} failed: ${JSON.stringify(result.structuredContent)}`);
    return result;
  };
  const families: string[] = [];

  // RDKit chemistry and its data assets (QED parameters, SA score fragments, PAINS).
  const props = (await call("calc_properties", { smiles: "CC(=O)Oc1ccccc1C(=O)O" })).structuredContent;
  assert.deepEqual([props.formula, props.qed], ["C9H8O4", 0.55]);
  if (names.has("sa_score")) assert.equal(typeof (await call("sa_score", { smiles: "CC(=O)Oc1ccccc1C(=O)O" })).structuredContent.sa_score, "number");
  if (names.has("pains_check")) assert.equal((await call("pains_check", { smiles: "CC(=O)Oc1ccccc1C(=O)O" })).structuredContent.passes, true);
  families.push("chemistry");

  if (names.has("generate_3d")) {
    const r = (await call("generate_3d", { smiles: "CCO" })).structuredContent;
    assert.equal(r.atom_count, 9);
    families.push("3d (OpenChemLib)");
  }
  if (names.has("depict")) {
    const r = await call("depict", { smiles: "CCO", format: "png", width: 120, height: 100 });
    const image = r.content.find((c) => c.type === "image");
    assert.equal(image?.mimeType, "image/png");
    assert.equal(Buffer.from(image.data!, "base64").subarray(0, 4).toString("latin1"), "\x89PNG");
    families.push("depiction (resvg)");
  }
  if (names.has("chembl_search_molecules")) {
    const r = (await call("chembl_search_molecules", { query: "Aspirin" })).structuredContent;
    assert.equal((r.molecules as Array<{ molecule_chembl_id: string }>)[0]!.molecule_chembl_id, "CHEMBL25");
    const source = r.source as { release: string; attribution: string };
    assert.equal(source.release, "ChEMBL_36");
    assert.match(source.attribution, /CC BY-SA 3\.0/);
    families.push("ChEMBL");
  }
  if (names.has("name_to_smiles")) {
    const r = (await call("name_to_smiles", { name: "aspirin" })).structuredContent;
    assert.equal(r.smiles, "CC(=O)OC1=CC=CC=C1C(=O)O");
    families.push("PubChem");
  }
  const capabilities = discover.result.capabilities as Record<string, unknown>;
  if (capabilities.resources) {
    // The skills ship as files (skills/) and are served as skill:// resources.
    const resources = ((await rpc("resources/list", {})).result?.resources ?? []) as Array<{ uri: string }>;
    const skill = resources.find((r) => r.uri.startsWith("skill://"));
    if (skill) {
      const read = await rpc("resources/read", { uri: skill.uri });
      const text = ((read.result?.contents ?? []) as Array<{ text?: string }>)[0]?.text ?? "";
      assert.ok(text.length > 100, `${label}: ${skill.uri} reads: ${JSON.stringify(read.error)}`);
      families.push("skills");
    }
  }
  if (capabilities.prompts) {
    // The chembl_guide prompt renders the shipped skill's text (read from the installed skills/).
    const prompts = ((await rpc("prompts/list", {})).result?.prompts ?? []) as Array<{ name: string }>;
    assert.ok(
      prompts.some((p) => p.name === "chembl_guide"),
      `${label}: prompts/list ${JSON.stringify(prompts)}`,
    );
    const got = await rpc("prompts/get", { name: "chembl_guide" });
    const text = ((got.result?.messages ?? []) as Array<{ content: { text?: string } }>)[0]?.content.text ?? "";
    assert.match(text, /# ChEMBL guide/, `${label}: prompts/get ${JSON.stringify(got.error)}`);
    families.push("prompts");
  }
  if (names.has("chembl_dataframe_query") && names.has("chembl_get_bioactivities")) {
    // A view larger than one page is staged on a DuckDB canvas; query it back.
    const staged = (await call("chembl_get_bioactivities", { target_chembl_id: "CHEMBL203", limit: 1 })).structuredContent;
    assert.equal(typeof staged.canvas_id, "string", `${label}: the view was staged: ${JSON.stringify(staged).slice(0, 400)}`);
    const q = (await call("chembl_dataframe_query", { canvas_id: staged.canvas_id, sql: `SELECT count(*) AS n FROM ${String(staged.table_name)}` }))
      .structuredContent;
    assert.equal(Number((q.rows as Array<{ n: unknown }>)[0]!.n), staged.staged_row_count);
    families.push("canvas (DuckDB)");
  }
  return families;
}

/** A newline-delimited JSON-RPC client over a child's stdio; every stdout line must be JSON-RPC. */
class StdioClient {
  private buffer = "";
  private next = 1;
  private readonly waiting = new Map<number, (m: Record<string, unknown>) => void>();
  readonly stdoutLines: string[] = [];
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.stdoutLines.push(line);
        try {
          const m = JSON.parse(line) as Record<string, unknown>;
          if (typeof m.id === "number") this.waiting.get(m.id)?.(m);
        } catch {
          // asserted below: every stdout line is JSON-RPC
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  }

  rpc: Rpc = (method, params) => {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 60 s; stderr: ${this.stderr.slice(-2000)}`)), 60_000);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(m);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: MODERN_META, ...params } })}\n`);
    });
  };

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

async function stdioSession(
  label: string,
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ families: string[]; stderr: string }> {
  const client = new StdioClient(spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], shell: process.platform === "win32" }));
  let families: string[];
  try {
    families = await session(client.rpc, label);
  } finally {
    const code = await client.close();
    assert.equal(code, 0, `${label}: exit at stdin EOF; stderr: ${client.stderr.slice(-2000)}`);
  }
  for (const line of client.stdoutLines)
    assert.equal((JSON.parse(line) as { jsonrpc?: string }).jsonrpc, "2.0", `${label}: stdout carries protocol only: ${line.slice(0, 200)}`);
  return { families, stderr: client.stderr };
}

async function httpSession(label: string, bin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ families: string[]; stderr: string }> {
  const child = spawn(bin, ["--transport", "streamable-http", "--port", "0"], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    shell: process.platform === "win32",
  });
  let stderr = "";
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${label}: no listening line within 60 s: ${stderr}`)), 60_000);
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      void exited.then((code) => reject(new Error(`${label}: exited (${code}) before listening: ${stderr}`)));
    });
    let id = 1;
    const rpc: Rpc = async (method, params) => {
      const reply = await modernPost(url, id++, method, params, {});
      return JSON.parse(reply.text) as Awaited<ReturnType<Rpc>>;
    };
    const families = await session(rpc, label);
    return { families, stderr };
  } finally {
    child.kill("SIGTERM");
    const code = await exited;
    assert.equal(code, 0, `${label}: SIGTERM ends the server with exit 0; stderr: ${stderr.slice(-2000)}`);
    assert.equal(stdout, "", `${label}: nothing on stdout over HTTP`);
  }
}

// ---------------------------------------------------------------------------------------------------

const npmVersion = npmAvailable();

test(
  "npm pack builds a package of only what runs; installed with production dependencies it serves stdio (bin, npx) and HTTP",
  { timeout: 300_000 },
  async (t) => {
    if (!npmVersion) {
      t.skip("npm is not available on PATH: the packed-tarball test needs it (npm pack, npm install, npx)");
      return;
    }
    work = mkdtempSync(join(tmpdir(), "chematic-pack-"));

    // 1. Pack: prepack builds build/src from src. In a copy of the sources: the prepack build rewrites build/src,
    // which the test files running beside this one (npm test runs two at a time) are importing.
    const sources = join(work, "sources");
    for (const entry of [
      "package.json",
      "package-lock.json",
      "README.md",
      "LICENSE",
      "NOTICE",
      "server.json",
      "CHANGELOG.md",
      "tsconfig.json",
      "tsconfig.build.json",
      "src",
      "scripts",
      "assets",
      "skills",
      "apps",
    ])
      if (existsSync(join(root, entry))) cpSync(join(root, entry), join(sources, entry), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(sources, "node_modules"), "dir");
    const packed = run(NPM, ["pack", "--json", "--pack-destination", work], sources, 240_000);
    const info = (
      JSON.parse(packed.stdout) as Array<{ filename: string; size: number; unpackedSize: number; entryCount: number; files: Array<{ path: string }> }>
    )[0]!;
    const files = info.files.map((f) => f.path).sort();
    assert.match(packed.stderr, /prepack/, "npm pack ran the prepack build");

    // Only what runs.
    const allowed = [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE$/,
      /^NOTICE$/,
      /^server\.json$/,
      /^CHANGELOG\.md$/,
      /^build\/src\/.+\.js$/,
      /^build\/apps\/[a-z0-9]+\.html$/,
      /^assets\/[^/]+$/,
      /^skills\/.+/,
    ];
    const stray = files.filter((f) => !allowed.some((re) => re.test(f)));
    assert.deepEqual(stray, [], "nothing but compiled code, the apps' pages, assets, skills, README, LICENSE, NOTICE, CHANGELOG, server.json and package.json");
    // server.json: the MCP registry reads it beside the package (its name is package.json's mcpName).
    for (const required of [
      "package.json",
      "README.md",
      "LICENSE",
      "NOTICE",
      "server.json",
      "CHANGELOG.md",
      ...Object.values(pkg.bin).map((b) => b.replace(/^\.\//, "")),
    ]) {
      assert.ok(files.includes(required), `the package holds ${required}`);
    }
    const repoFiles = (dir: string) => (existsSync(join(root, dir)) ? walk(join(root, dir)).map((p) => relative(root, p).split("\\").join("/")) : []);
    for (const asset of repoFiles("assets")) assert.ok(files.includes(asset), `the package holds ${asset}`);
    for (const skill of repoFiles("skills")) assert.ok(files.includes(skill), `the package holds ${skill}`);
    const compiled = repoFiles("src")
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
      .map((f) => `build/${f.replace(/\.ts$/, ".js")}`);
    assert.deepEqual(
      files.filter((f) => f.startsWith("build/") && !f.startsWith("build/apps/")),
      compiled.sort(),
      "exactly one compiled file per source module (no stale outputs, no tests)",
    );
    // The MCP Apps ship as built pages, one per app, and nothing else of the apps' sources or the test host.
    assert.deepEqual(
      files.filter((f) => f.startsWith("build/apps/") || f.startsWith("apps/")),
      ["build/apps/plot.html", "build/apps/table.html", "build/apps/viewer3d.html"],
    );

    // Every import of the shipped code is a builtin or a production dependency, and every dependency is used.
    const specifiers = new Set<string>();
    for (const f of compiled) {
      const text = readFileSync(join(sources, f), "utf8");
      // import ... from "x", import "x", import("x"), require("x"), createRequire(import.meta.url)("x")
      const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bcreateRequire\([^)]*\)\s*\(\s*)["']([^"'./\s][^"'\s]*)["']/g;
      for (const m of text.matchAll(re)) specifiers.add(m[1]!);
      // A package's file resolved by path (the plot's font files, read by resvg): "pkg/dir/file.ttf".
      for (const m of text.matchAll(/["']((?:@[a-z0-9-]+\/)?[a-z0-9-]+)\/[^"'\s]+\.(?:ttf|otf)["']/g)) specifiers.add(m[1]!);
    }
    const packages = new Set(
      [...specifiers]
        .filter((s) => !s.startsWith("node:") && !builtinModules.includes(s))
        .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!)),
    );
    assert.deepEqual([...packages].sort(), Object.keys(pkg.dependencies).sort(), "the code imports exactly the production dependencies");
    for (const dev of Object.keys(pkg.devDependencies)) assert.ok(!packages.has(dev), `the code never imports the dev dependency ${dev}`);

    // 2. Install into an empty folder, production dependencies only.
    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "chematic-pack-test", version: "1.0.0", private: true }));
    const tarball = join(work, info.filename);
    // Install scripts are not run: better-sqlite3 (the offline ChEMBL source, an optional dependency) would build
    // from source here for minutes, and the package must serve everything else without its driver. Optional
    // dependencies stay in: resvg's and DuckDB's native binaries are optional, per-platform packages.
    const installed = run(
      NPM,
      ["install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball],
      app,
      240_000,
    );
    const lock = JSON.parse(readFileSync(join(app, "node_modules", ".package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean }> };
    const installedPackages = Object.keys(lock.packages).filter((p) => p.startsWith("node_modules/") && !p.endsWith(`node_modules/${pkg.name}`));
    for (const dev of Object.keys(pkg.devDependencies)) assert.ok(!existsSync(join(app, "node_modules", dev)), `${dev} (a dev dependency) is not installed`);

    t.diagnostic(
      `package ${info.filename}: ${mb(info.size)} packed, ${mb(info.unpackedSize)} unpacked, ${info.entryCount} files (npm ${npmVersion}; pack with its build ${(packed.ms / 1000).toFixed(1)} s)`,
    );
    t.diagnostic(
      `dependencies: ${Object.keys(pkg.dependencies).length} direct (${Object.keys(pkg.dependencies).join(", ")}), ` +
        `${installedPackages.length} packages installed in total with --omit=dev (install ${(installed.ms / 1000).toFixed(1)} s)`,
    );

    // 3. Start it as client configs do, with the upstreams pointed at the local fakes.
    const env = serverEnv({ CHEMBL_API_BASE_URL: chembl.baseUrl, PUBCHEM_API_BASE_URL: pubchem.url, CHEMATIC_LOG_LEVEL: "info" });
    const bin = join(app, "node_modules", ".bin", process.platform === "win32" ? "chematic-mcp.cmd" : "chematic-mcp");
    assert.ok(existsSync(bin), "npm linked the bin");
    // One after the other: each starts RDKit, OpenChemLib, resvg and DuckDB, and a busy CI machine must not push a
    // first call past its budget. `npx --no`: never fetch a package of that name from the registry; the local
    // install must answer. Then the installed doctor checks the installed copy (assets, RDKit, DuckDB, ...).
    const sessionsStarted = Date.now();
    const viaBin = await stdioSession("stdio (node_modules/.bin)", bin, [], app, env);
    const viaNpx = await stdioSession("stdio (npx)", NPX, ["--no", "chematic-mcp"], app, env);
    const viaHttp = await httpSession("HTTP (node_modules/.bin)", bin, app, env);
    const doctor = await runAsync(bin, ["doctor", "--json", "--timeout-ms", "20000"], app, env);
    const expected = ["chemistry"];
    for (const s of [viaBin, viaNpx, viaHttp]) {
      assert.deepEqual(s.families.slice(0, 1), expected);
      assert.deepEqual(s.families, viaBin.families, "every transport exercised the same families");
    }
    assert.match(viaBin.stderr, new RegExp(`chematic-mcp ${pkg.version.replace(/\./g, "\\.")} serving MCP over stdio .*transport=stdio workers=1`));
    assert.match(
      viaHttp.stderr,
      /listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(no authentication\) version=\S+ transport=streamable-http address=http:\/\/127\.0\.0\.1:\d+\/mcp workers=1/,
    );
    t.diagnostic(
      `families exercised over stdio (bin, npx) and HTTP: ${viaBin.families.join(", ")} (sessions and doctor ${((Date.now() - sessionsStarted) / 1000).toFixed(1)} s)`,
    );

    const report = JSON.parse(doctor.stdout) as { ok: boolean; checks: Array<{ name: string; status: string; detail: string }> };
    assert.equal(doctor.code, 0, JSON.stringify(report.checks.filter((c) => c.status !== "ok")));
    assert.ok(
      report.checks.find((c) => c.name === "data assets")!.detail.includes(join("node_modules", pkg.name, "assets")),
      "doctor read the installed assets",
    );
  },
);
