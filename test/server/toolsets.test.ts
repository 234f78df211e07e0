/**
 * CHEMATIC_TOOLSETS selects which tools are listed and callable: every tool declares its set (chem, chembl,
 * canvas, medchem); the sets left out are neither listed nor callable (a call answers TOOL_DISABLED naming the
 * setting that brings the tool back), tools/list keeps the declared order, a service tool still chains a
 * chemistry tool whose set is left out, and an unknown set stops start-up (exit 2, stderr names the variable).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createApp, type App } from "../../src/app.js";
import { ConfigError } from "../../src/config.js";
import { TOOLSETS, appOnly } from "../../src/contract/tool.js";
import { allTools, selectedToolsets } from "../../src/tools/index.js";
import { CLI_PATH } from "../helpers/server-process.js";
import { MODERN_VERSION } from "../../src/protocol/eras.js";

const apps: App[] = [];
after(() => Promise.all(apps.map((a) => a.close())));

function appWith(toolsets: string | undefined, extra: NodeJS.ProcessEnv = {}): App {
  const env: NodeJS.ProcessEnv = { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error", ...extra };
  delete env.CHEMATIC_TOOLSETS;
  if (toolsets !== undefined) env.CHEMATIC_TOOLSETS = toolsets;
  const app = createApp(env, {}, { lazyWorkers: true });
  apps.push(app);
  return app;
}

test("the setting parses strictly: unset or empty is every set, names are trimmed and case-blind, order is TOOLSETS'", () => {
  assert.deepEqual(selectedToolsets({}), [...TOOLSETS]);
  assert.deepEqual(selectedToolsets({ CHEMATIC_TOOLSETS: "  " }), [...TOOLSETS]);
  assert.deepEqual(selectedToolsets({ CHEMATIC_TOOLSETS: "medchem, CHEM" }), ["chem", "medchem"]);
  assert.deepEqual(selectedToolsets({ CHEMATIC_TOOLSETS: "chembl,chembl" }), ["chembl"]);
  assert.throws(
    () => selectedToolsets({ CHEMATIC_TOOLSETS: "chem,rdkit" }),
    (e: unknown) => e instanceof ConfigError && /CHEMATIC_TOOLSETS.*"rdkit"/.test(e.message),
  );
  assert.throws(
    () => selectedToolsets({ CHEMATIC_TOOLSETS: "," }),
    (e: unknown) => e instanceof ConfigError && /CHEMATIC_TOOLSETS/.test(e.message),
  );
});

test("each set lists exactly its tools, in the declared order, the same on every tools/list", () => {
  const declared = allTools({});
  for (const set of TOOLSETS) {
    const app = appWith(set);
    // An app-only tool (MCP Apps) is listed only to clients that declare the extension (test/server/apps.test.ts).
    const expected = declared
      .filter((t) => (t.toolset === set || t.alsoIn?.includes(set)) && t.name !== "chembl_dataframe_drop" && !appOnly(t))
      .map((t) => t.name);
    assert.ok(expected.length > 0, `${set} has tools`);
    assert.deepEqual(
      app.server.registry.wire(MODERN_VERSION).map((t) => t.name),
      expected,
      `${set}`,
    );
    assert.deepEqual(
      app.server.registry.wire("2024-11-05").map((t) => t.name),
      expected,
      `${set}: every era lists the same tools`,
    );
  }
  const both = appWith("canvas,chembl");
  assert.deepEqual(
    both.server.registry.names(),
    declared
      .filter((t) => (t.toolset === "chembl" || t.toolset === "canvas" || t.alsoIn?.includes("canvas")) && t.name !== "chembl_dataframe_drop")
      .map((t) => t.name),
    "two sets keep the declared order (not grouped by set)",
  );
  assert.equal(appWith(undefined).server.registry.size, declared.filter((t) => t.name !== "chembl_dataframe_drop").length, "unset: every tool");
});

test("depict is listed with the canvas and medchem sets too, without the format converters of chem", () => {
  for (const set of ["canvas", "medchem", "canvas,medchem"]) {
    const names = appWith(set).server.registry.names();
    assert.ok(names.includes("depict"), `${set} lists depict`);
    for (const converter of ["smiles_to_moljson", "moljson_to_smiles", "representation_router"])
      assert.ok(!names.includes(converter), `${set} leaves out ${converter}`);
  }
  assert.ok(!appWith("chembl").server.registry.names().includes("depict"), "chembl alone does not list depict");
});

test("a tool of a set left out answers TOOL_DISABLED naming CHEMATIC_TOOLSETS and the value that brings it back", async () => {
  const app = appWith("chem,medchem");
  const outcome = await app.server.runTool("chembl_search_targets", { query: "EGFR" }, { signal: new AbortController().signal });
  assert.equal(outcome.ok, false);
  if (outcome.ok) return;
  assert.equal(outcome.error.code, "TOOL_DISABLED");
  assert.deepEqual(outcome.error.details, { tool: "chembl_search_targets", setting: "CHEMATIC_TOOLSETS" });
  assert.match(outcome.error.hint ?? "", /CHEMATIC_TOOLSETS=chem,chembl,medchem/);
  // chembl_dataframe_drop, off by default, names the sets first while its canvas set is left out.
  const drop = await app.server.runTool("chembl_dataframe_drop", { canvas_id: "cv_aaaaaaaaaaaaaaaaaaaaaaaa" }, { signal: new AbortController().signal });
  assert.ok(!drop.ok && drop.error.code === "TOOL_DISABLED" && /CHEMATIC_TOOLSETS=chem,canvas,medchem/.test(drop.error.hint ?? ""), JSON.stringify(drop));
});

test("a service tool still chains a chemistry tool whose set is left out (chembl_search_molecules checks a structure with parse_smiles)", async () => {
  // Online, towards a closed port: the structure is checked before any request, so nothing is reached.
  const app = appWith("chembl", { CHEMATIC_OFFLINE: "0", CHEMBL_API_BASE_URL: "http://127.0.0.1:9" });
  assert.equal(app.server.registry.get("parse_smiles"), undefined, "parse_smiles is not listed");
  // Pentavalent carbon passes the SMILES grammar check; only RDKit (parse_smiles in a worker) refuses it.
  const outcome = await app.server.runTool(
    "chembl_search_molecules",
    { smiles: "C(C)(C)(C)(C)C", search_type: "similarity" },
    { signal: new AbortController().signal },
  );
  assert.ok(!outcome.ok, JSON.stringify(outcome));
  if (outcome.ok) return;
  assert.equal(outcome.error.code, "INVALID_STRUCTURE");
  assert.equal(outcome.error.details?.check, "rdkit", "RDKit ran the check, not the grammar fallback");
});

test("an unknown set stops start-up before serving: exit 2, stderr names the variable, nothing on stdout", () => {
  const r = spawnSync(process.execPath, [CLI_PATH], {
    env: { ...process.env, CHEMATIC_TOOLSETS: "chem,biology", CHEMATIC_WORKERS: "1" },
    input: "",
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /CHEMATIC_TOOLSETS/);
  assert.match(r.stderr, /"biology"/);
  assert.equal(r.stdout, "");
});

test("doctor's configuration check reports the tool sets, and fails on an unknown one naming the variable", () => {
  const doctor = (toolsets: string) =>
    spawnSync(process.execPath, [CLI_PATH, "doctor", "--json", "--timeout-ms", "200"], {
      env: { ...process.env, CHEMATIC_TOOLSETS: toolsets, CHEMATIC_OFFLINE: "1", CHEMATIC_WORKERS: "1" },
      encoding: "utf8",
      timeout: 120_000,
    });
  const configuration = (stdout: string) =>
    (JSON.parse(stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.find((c) => c.name === "configuration")!;
  const good = configuration(doctor("medchem,chem").stdout);
  assert.equal(good.status, "ok");
  assert.match(good.detail, /toolsets=chem,medchem/);
  const bad = configuration(doctor("chem,biology").stdout);
  assert.equal(bad.status, "fail");
  assert.match(bad.detail, /CHEMATIC_TOOLSETS.*"biology"/);
});

test("resources follow the sets: chembl:// only with chembl, the skill with chembl or canvas, none with chem alone (but its apps)", async () => {
  const schemes = (app: App) =>
    [
      ...new Set([...app.server.resources.list().map((r) => r.uri), ...app.server.resources.templates().map((t) => t.uriTemplate)].map((u) => u.split(":")[0])),
    ].sort();
  const apps = (app: App) =>
    app.server.resources
      .list()
      .filter((r) => r.uri.startsWith("ui:"))
      .map((r) => r.uri)
      .sort();
  assert.deepEqual(schemes(appWith(undefined)), ["chembl", "skill", "ui"]);
  assert.deepEqual(schemes(appWith("chembl")), ["chembl", "skill"], "no tool of the chembl set opens an app");
  assert.deepEqual(schemes(appWith("canvas,chem")), ["skill", "ui"]);
  // The MCP Apps of the tools listed (depict opens the table and is in chem; plot is canvas only).
  assert.deepEqual(apps(appWith("chem,medchem")), ["ui://chematic/table", "ui://chematic/viewer3d"]);
  assert.deepEqual(apps(appWith("canvas")), ["ui://chematic/plot", "ui://chematic/table"]);
  // With only the apps' pages, a client not shown the apps is offered no resources at all.
  const chemOnly = appWith("chem,medchem");
  assert.deepEqual(chemOnly.server.resources.schemes(), ["ui"]);
  const discover = await chemOnly.server.handleModern(
    { jsonrpc: "2.0", id: 1, method: "server/discover", params: {} },
    { signal: new AbortController().signal },
  );
  assert.equal((discover.capabilities as Record<string, unknown>).resources, undefined, "no resources capability without the extension");
});
