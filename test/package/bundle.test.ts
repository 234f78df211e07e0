/**
 * The .mcpb bundle (Claude Desktop's one-click install), end to end: `npm run bundle`'s script builds the linux-x64
 * bundle with the official packer (@anthropic-ai/mcpb, which validates the manifest), the packer unpacks it into an
 * empty folder, and the server is started from there exactly as the manifest's mcp_config says, with the host's
 * substitutions (${__dirname}, each ${user_config.X} as its default): it discovers, lists and calls tools, including
 * a PNG (resvg's native binary from the bundle), a canvas table (DuckDB's), a file from the import folder (made on the
 * first start under ${DOCUMENTS}, as the defaults say) and a prompt. The manifests of every target are checked too
 * (platform, runtime, options wired to the server's variables, the folders, tools).
 *
 * Needs npm and the packer (a dev dependency); npm installs the production dependencies from its cache
 * (--prefer-offline; CI's npm ci fills it). Skipped, saying so, without them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DESKTOP_FOLDERS, TARGETS, bundleName, manifestFor, mcpConfig, packer } from "../../scripts/bundle.js";
import { ROOT, readPackageJson } from "../../scripts/metadata.js";
import { ENVIRONMENT } from "../../src/environment.js";
import { allTools } from "../../src/tools/index.js";
import { appOnly } from "../../src/contract/tool.js";
import { MODERN_META } from "../helpers/server-process.js";

const pkg = readPackageJson();
const SCRIPT = fileURLToPath(new URL("../../scripts/bundle.js", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "chematic-mcpb-"));
after(() => rmSync(work, { recursive: true, force: true }));

function packerInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve("@anthropic-ai/mcpb");
    return true;
  } catch {
    return false;
  }
}

type Manifest = ReturnType<typeof manifestFor> & {
  manifest_version: string;
  version: string;
  server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  user_config: Record<string, { type: string; default: string | boolean; description: string; required: boolean }>;
  compatibility: { platforms: string[]; runtimes: { node: string } };
  tools: Array<{ name: string; description: string }>;
  long_description: string;
};

test("every target's manifest: its platform, the package's Node.js range, the seven options wired to the server's variables, the folders", () => {
  // The app-only tools (MCP Apps) are the apps' own, never listed as the server's tools (tools/list without the extension).
  const shipped = allTools({})
    .filter((t) => t.name !== "chembl_dataframe_drop" && !appOnly(t))
    .map((t) => t.name);
  assert.deepEqual(
    TARGETS.map((t) => t.id),
    ["darwin-arm64", "darwin-x64", "win32-x64", "linux-x64"],
  );
  for (const target of TARGETS) {
    const m = manifestFor(target, pkg) as Manifest;
    assert.equal(m.manifest_version, "0.3");
    assert.equal(m.version, pkg.version);
    assert.deepEqual(m.compatibility.platforms, [target.os]);
    assert.equal(m.compatibility.runtimes.node, pkg.engines.node, "the runtime the package's engines field names (>=20.19, require(esm) on 22)");
    assert.deepEqual(Object.keys(m.user_config).sort(), [
      "CHEMATIC_EXPORT_DIR",
      "CHEMATIC_IMPORT_DIR",
      "CHEMATIC_LOG_LEVEL",
      "CHEMATIC_OFFLINE",
      "CHEMBL_API_BASE_URL",
      "CHEMBL_SQLITE",
      "HTTPS_PROXY",
    ]);
    // Each option is one of the server's variables and reaches it as "X": "${user_config.X}" (the host substitutes nothing else).
    assert.deepEqual(m.server.mcp_config, mcpConfig());
    for (const [name, option] of Object.entries(m.user_config)) {
      assert.ok(
        ENVIRONMENT.some((v) => v.name === name && v.scope === "server"),
        `${name} is a server variable`,
      );
      assert.equal(m.server.mcp_config.env[name], `\${user_config.${name}}`);
      assert.equal(option.required, false);
      assert.notEqual(option.default, undefined, `${name}: an optional option needs a default, or the host passes the placeholder`);
    }
    assert.equal(m.user_config.CHEMATIC_OFFLINE!.type, "boolean");
    assert.equal(m.user_config.CHEMBL_SQLITE!.type, "file");
    // The folders a desktop user hands files over in: directory pickers defaulting under the documents folder (MCPB
    // substitutes ${DOCUMENTS} in a default), made by the server on its first start.
    assert.deepEqual(
      [m.user_config.CHEMATIC_IMPORT_DIR, m.user_config.CHEMATIC_EXPORT_DIR].map((o) => [o!.type, o!.default]),
      [
        ["directory", "${DOCUMENTS}/chematic/import"],
        ["directory", "${DOCUMENTS}/chematic/export"],
      ],
    );
    assert.equal(m.server.mcp_config.env.CHEMATIC_CREATE_DIRS, "true", "the only variable set to a fixed value");
    assert.deepEqual(
      Object.keys(m.server.mcp_config.env).filter((k) => !(k in m.user_config)),
      ["CHEMATIC_CREATE_DIRS"],
    );
    assert.match(m.long_description, /Documents\/chematic\/import .* Documents\/chematic\/export/);
    assert.equal(m.server.entry_point, "build/src/cli.js");
    assert.deepEqual(
      m.tools.map((t) => t.name),
      shipped,
    );
    assert.match(m.long_description, new RegExp(target.id));
    assert.match(m.long_description, /Every feature is included/);
    // A target whose native packages npm could not install says what the bundle lacks.
    const without = manifestFor(target, pkg, [target.natives[1]!.pkg]) as Manifest;
    assert.match(without.long_description, /Not in this bundle .*depict's PNG/);
  }
  // The README's desktop section names the folders where a desktop user drops a file and finds the export.
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  for (const folder of Object.values(DESKTOP_FOLDERS)) assert.ok(readme.includes(folder.replace("${DOCUMENTS}", "Documents")), `the README names ${folder}`);
});

test("npm run bundle's linux-x64 bundle, unpacked by the packer, serves a session started as the manifest says", { timeout: 300_000 }, async (t) => {
  const npm = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["--version"], { encoding: "utf8", shell: process.platform === "win32" });
  if (npm.status !== 0) {
    t.skip("npm is not available: the bundle's dependencies are installed with npm ci");
    return;
  }
  if (!packerInstalled()) {
    t.skip("@anthropic-ai/mcpb (a dev dependency) is not installed: run npm ci");
    return;
  }
  const target = TARGETS.find((x) => x.id === "linux-x64")!;
  const out = join(work, "out");
  const started = Date.now();
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
  const built = spawnSync(process.execPath, [SCRIPT, "--target", target.id, "--out", out, "--prefer-offline"], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(built.status, 0, `npm run bundle failed:\n${built.stderr.slice(-4000)}`);
  assert.match(built.stdout, /Manifest schema validation passes!/, "the packer validated the manifest");
  const bundle = join(out, bundleName(pkg, target));
  const bytes = statSync(bundle).size;
  t.diagnostic(`${bundleName(pkg, target)}: ${(bytes / 1024 / 1024).toFixed(1)} MB, built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // Unpacked by the packer into an empty folder outside the repository (no node_modules above it).
  const dir = join(work, "installed");
  const mcpb = await packer();
  assert.ok(await mcpb.unpackExtension({ mcpbPath: bundle, outputDir: dir, silent: true }));
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
  assert.deepEqual(manifest.compatibility.platforms, ["linux"]);
  for (const native of target.natives) assert.ok(existsSync(join(dir, "node_modules", native.pkg, "package.json")), `the bundle carries ${native.pkg}`);
  assert.ok(!existsSync(join(dir, "node_modules", "better-sqlite3")), "no unbuilt native driver");
  assert.ok(!existsSync(join(dir, "node_modules", "@anthropic-ai")), "no dev dependency");

  // The host's substitutions: ${__dirname} is the bundle's folder, ${user_config.X} the option's value (its default here,
  // in which ${DOCUMENTS} is the user's documents folder: one that exists, without chematic/ in it yet).
  const documents = join(work, "Documents");
  mkdirSync(documents);
  const fill = (s: string) =>
    s
      .replace(/\$\{__dirname\}/g, dir)
      .replace(/\$\{user_config\.([A-Za-z0-9_]+)\}/g, (_m, key: string) => String(manifest.user_config[key]!.default))
      .replace(/\$\{DOCUMENTS\}/g, documents);
  const config = manifest.server.mcp_config;
  assert.equal(config.command, "node");
  const serverEnv: NodeJS.ProcessEnv = { PATH: env.PATH, HOME: process.env.HOME ?? dir, CHEMATIC_WORKERS: "1" };
  for (const [k, v] of Object.entries(config.env)) serverEnv[k] = fill(v);
  assert.deepEqual([serverEnv.CHEMATIC_OFFLINE, serverEnv.CHEMATIC_LOG_LEVEL, serverEnv.HTTPS_PROXY, serverEnv.CHEMBL_SQLITE], ["false", "info", "", ""]);
  const child = spawn(process.execPath, config.args.map(fill), { cwd: dir, env: serverEnv, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // Answers are read loosely, as the other end-to-end tests read them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Answer = { id?: unknown; result?: Record<string, any>; error?: { code: number; message: string } };
  const waiting = new Map<number, (m: Answer) => void>();
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const m = JSON.parse(buffer.slice(0, nl)) as Answer;
      buffer = buffer.slice(nl + 1);
      if (typeof m.id === "number") waiting.get(m.id)?.(m);
    }
  });
  let nextId = 1;
  const rpc = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 90 s; stderr: ${stderr.slice(-2000)}`)), 90_000);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: MODERN_META, ...params } })}\n`);
    });
  try {
    const discover = await rpc("server/discover");
    assert.deepEqual(discover.result?._meta?.["io.modelcontextprotocol/serverInfo"], { name: pkg.name, version: pkg.version });
    assert.deepEqual(discover.result?.capabilities, { tools: {}, resources: {}, prompts: {} });
    const names = ((await rpc("tools/list")).result?.tools as Array<{ name: string }>).map((x) => x.name);
    assert.deepEqual(
      names,
      manifest.tools.map((x) => x.name),
      "the tools the manifest declares",
    );
    const props = await rpc("tools/call", { name: "calc_properties", arguments: { smiles: "CC(=O)Oc1ccccc1C(=O)O" } });
    assert.equal(props.result?.structuredContent?.formula, "C9H8O4", JSON.stringify(props));
    const png = await rpc("tools/call", { name: "depict", arguments: { smiles: "CCO", width: 120, height: 100 } });
    const image = (png.result?.content as Array<{ type: string; data?: string }>).find((c) => c.type === "image");
    assert.equal(Buffer.from(image!.data!, "base64").subarray(1, 4).toString("latin1"), "PNG", "resvg's binary from the bundle");
    const imported = await rpc("tools/call", { name: "canvas_import", arguments: { smiles_list: ["CCO", "c1ccccc1", "C1CC"] } });
    const canvas = imported.result?.structuredContent as { canvas_id: string; table: string };
    assert.ok(canvas?.canvas_id, JSON.stringify(imported).slice(0, 500));
    const query = await rpc("tools/call", {
      name: "chembl_dataframe_query",
      arguments: { canvas_id: canvas.canvas_id, sql: `SELECT count(*) AS n, count(smiles) AS parsed FROM ${canvas.table}` },
    });
    const row = (query.result?.structuredContent as { rows: Array<{ n: unknown; parsed: unknown }> }).rows[0]!;
    assert.deepEqual([Number(row.n), Number(row.parsed)], [3, 2], "DuckDB's binding from the bundle");
    // The folders were made on the first start; a file dropped in the import folder is imported by name.
    assert.ok(existsSync(join(documents, "chematic", "import")) && existsSync(join(documents, "chematic", "export")), "the default folders made");
    writeFileSync(join(documents, "chematic", "import", "hits.smi"), "CCO ethanol\nc1ccccc1O phenol\n");
    const fromFile = await rpc("tools/call", { name: "canvas_import", arguments: { path: "hits.smi" } });
    assert.equal((fromFile.result?.structuredContent as { counts: { parsed: number } }).counts.parsed, 2, JSON.stringify(fromFile).slice(0, 500));
    const prompt = await rpc("prompts/get", { name: "chembl_guide" });
    assert.match((prompt.result?.messages as Array<{ content: { text: string } }>)[0]!.content.text, /# ChEMBL guide/, "the skill shipped in the bundle");
  } finally {
    child.stdin.end();
    assert.equal(await exited, 0, `exit at stdin EOF; stderr: ${stderr.slice(-2000)}`);
  }
  assert.match(stderr, new RegExp(`chematic-mcp ${pkg.version.replace(/\./g, "\\.")} serving MCP over stdio`));
  t.diagnostic(`bundle built, unpacked and served in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
