/**
 * Prompts in both eras: the chembl-guide skill and four workflow prompts, listed (with cache hints on the
 * 2026-07-28 list, a title from 2025-06-18) and rendered as text only, naming only tools the server lists, each
 * step's arguments valid for its tool; a missing, unknown or malformed argument is -32602; the capability is
 * advertised by discover and initialize while a prompt is listed, and not at all (the methods -32601) when
 * CHEMATIC_TOOLSETS leaves none. test/server/prompt-plans.test.ts runs the canvas plans on a server.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApp, type App } from "../../src/app.js";
import { projectRoot } from "../../src/domain/assets.js";
import { RpcError, type JsonObject, type JsonRpcRequest } from "../../src/protocol/jsonrpc.js";
import { LEGACY_VERSIONS } from "../../src/protocol/eras.js";
import { allPrompts } from "../../src/prompts/index.js";
import { skillBody } from "../../src/prompts/chembl_guide.js";
import { MAX_SERIES, seriesOf } from "../../src/prompts/compare_series.js";
import { defaultExportFile, triageFilter } from "../../src/prompts/triage_hit_list.js";
import { PromptRegistry } from "../../src/server/prompts.js";
import { ToolRegistry } from "../../src/server/registry.js";
import { allTools } from "../../src/tools/index.js";
import type { Prompt } from "../../src/contract/prompt.js";
import { planSteps } from "../helpers/prompt-steps.js";

const SKILL = readFileSync(join(projectRoot(), "skills", "chembl-guide", "SKILL.md"), "utf8");
const PROMPTS = allPrompts(SKILL);
const TOOL_NAMES = new Set(allTools({}).map((t) => t.name));
/** A canvas ID of the right form (the plans' <canvas_id>). */
const CANVAS_ID = "cv_local_0123456789abcdefghijABCDEFGH";
const SAMPLE: Record<string, Record<string, string>> = {
  chembl_guide: { question: "Which EGFR inhibitors are approved?" },
  hit_triage: { target: "EGFR", organism: "Homo sapiens", min_pchembl: "7" },
  triage_hit_list: { file: "screens/hits.sdf", goal: "oral, CNS", picks: "30", export_file: "picks.csv" },
  profile_molecule: { smiles: "CC(=O)Oc1ccccc1C(=O)O" },
  compare_series: { series_smiles: "c1ccccc1Cl\nc1ccccc1F\nc1ccccc1O", core_smiles: "c1ccccc1[*:1]", reference_smiles: "c1ccccc1Cl" },
};
/** Further renderings: compare_series on a table (its other form), with and without a core. */
const MORE_SAMPLES: Record<string, Array<Record<string, string>>> = {
  compare_series: [
    { canvas_id: CANVAS_ID, table: "library", smiles_column: "smiles", where: "cluster_id = 3", value_column: "pIC50" },
    { canvas_id: CANVAS_ID, table: "library", core_smiles: "c1ccc(cc1)C(=O)N[*:1]", reference_smiles: "CCO" },
  ],
  hit_triage: [{ target: "CHEMBL203" }],
};

const apps: App[] = [];
after(() => Promise.all(apps.map((a) => a.close())));
function appWith(toolsets?: string): App {
  const env: NodeJS.ProcessEnv = { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error" };
  delete env.CHEMATIC_TOOLSETS;
  if (toolsets) env.CHEMATIC_TOOLSETS = toolsets;
  const app = createApp(env, {}, { lazyWorkers: true });
  apps.push(app);
  return app;
}

let nextId = 1;
function req(method: string, params: JsonObject = {}): JsonRpcRequest {
  return { jsonrpc: "2.0", id: nextId++, method, params };
}
const ctx = () => ({ signal: new AbortController().signal });

function textOf(prompt: Prompt, args: Record<string, string>, has: (tool: string) => boolean = () => true): string {
  const messages = prompt.render({ args, has });
  assert.ok(messages.length > 0);
  return messages.map((m) => (m.content.type === "text" ? m.content.text : assert.fail(`${prompt.name}: ${m.content.type} block`))).join("\n");
}

function rejects(fn: () => unknown, code: number, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof RpcError && e.code === code && pattern.test(e.message), String(pattern));
}

test("the shipped prompts: snake_case names, a title and description, molecule arguments named *smiles*, the others a ChEMBL ID or a name", () => {
  assert.deepEqual(
    PROMPTS.map((p) => p.name),
    ["chembl_guide", "hit_triage", "triage_hit_list", "profile_molecule", "compare_series"],
  );
  for (const p of PROMPTS) {
    assert.match(p.name, /^[a-z][a-z0-9_]*$/);
    assert.ok(p.title.length > 0 && p.description.length > 40, p.name);
    assert.ok(!p.testOnly);
    for (const a of p.arguments) assert.ok(a.description.length > 10 && a.maxLength > 0, `${p.name}.${a.name}`);
  }
  const byName = new Map(PROMPTS.map((p) => [p.name, p]));
  assert.deepEqual(
    byName.get("profile_molecule")!.arguments.map((a) => [a.name, a.required]),
    [["smiles", true]],
  );
  assert.deepEqual(
    byName.get("compare_series")!.arguments.map((a) => [a.name, a.required]),
    [
      ["canvas_id", false],
      ["table", false],
      ["smiles_column", false],
      ["where", false],
      ["value_column", false],
      ["series_smiles", false],
      ["core_smiles", false],
      ["reference_smiles", false],
    ],
  );
  assert.deepEqual(
    byName.get("triage_hit_list")!.arguments.map((a) => [a.name, a.required]),
    [
      ["file", true],
      ["goal", false],
      ["picks", false],
      ["export_file", false],
    ],
  );
  const triage = byName.get("hit_triage")!.arguments;
  assert.equal(triage[0]!.name, "target");
  assert.match(triage[0]!.description, /ChEMBL target ID.*name/);
  assert.ok(!triage.some((a) => a.name.includes("smiles")), "hit_triage takes no molecule");
  assert.match(byName.get("hit_triage")!.description, /your own hits, use triage_hit_list/);
});

test("every tool a prompt chains exists, each appears in its text, and its text names no tool it does not declare", () => {
  for (const p of PROMPTS) {
    for (const tool of p.chains) assert.ok(TOOL_NAMES.has(tool), `${p.name} chains ${tool}, which is no shipped tool`);
    for (const tool of p.requires) assert.ok(p.chains.includes(tool), `${p.name} requires ${tool}`);
    // With every argument, with the required ones only (compare_series finds its core with find_mcs when none is
    // given) and in the other forms.
    const required = Object.fromEntries(Object.entries(SAMPLE[p.name]!).filter(([k]) => p.arguments.find((a) => a.name === k)!.required));
    const text = [SAMPLE[p.name]!, ...(Object.keys(required).length > 0 ? [required] : []), ...(MORE_SAMPLES[p.name] ?? [])]
      .map((args) => textOf(p, args))
      .join("\n");
    for (const tool of p.chains) assert.ok(text.includes(`\`${tool}\``), `${p.name}'s text names ${tool}`);
    // canonical_smiles in backticks is the staged table's column (the tool of that name is not meant).
    const named = new Set(
      [...text.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]!).filter((n) => TOOL_NAMES.has(n) && !(p.name === "chembl_guide" && n === "canonical_smiles")),
    );
    // profile_molecule points at name_to_smiles for a name; chembl_guide is the skill's text, whose tools are all its chains.
    for (const tool of named) assert.ok(p.chains.includes(tool) || tool === "name_to_smiles", `${p.name} names ${tool} without chaining it`);
    if (p.name === "chembl_guide") assert.deepEqual([...named].sort(), [...p.chains].sort(), "the guide's chains are the tools the skill names");
  }
});

test("the arguments reach the text JSON-quoted, exactly as a call takes them", () => {
  const byName = new Map(PROMPTS.map((p) => [p.name, p]));
  const smiles = 'C[C@H](N)C(=O)O.Cl "salt"';
  const text = textOf(byName.get("profile_molecule")!, { smiles });
  assert.ok(text.includes(`{"smiles":${JSON.stringify(smiles)},"parent":true}`), text.slice(0, 600));
  const series = textOf(byName.get("compare_series")!, { series_smiles: "CCO, CCN ;CCCl" });
  assert.ok(series.includes('"smiles_list":["CCO","CCN","CCCl"]'));
  const triage = textOf(byName.get("hit_triage")!, { target: "chembl203" });
  assert.ok(triage.includes('{"target_chembl_id":"CHEMBL203"}'), "a ChEMBL ID is confirmed, not searched for");
  assert.ok(triage.includes('"pchembl_value_min":6'), "the default potency cut");
  const guide = textOf(byName.get("chembl_guide")!, {});
  assert.ok(guide.startsWith(skillBody(SKILL).slice(0, 200)), "the guide is the skill's text");
  assert.ok(!guide.includes("description: How to answer"), "without the skill's front matter");
  assert.deepEqual(seriesOf("C1CC1 |$a;b$|\nCCO\n\n"), ["C1CC1 |$a;b$|", "CCO"], "one CXSMILES a line keeps its spaces");
});

/** A placeholder (<canvas_id>, <molecule_chembl_id>...) as a value of the form the tool takes. */
function filled(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => filled(v, key));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filled(v, k)]));
  if (typeof value !== "string" || !/^<[^>]+>$/.test(value)) return value;
  if (key === "canvas_id") return CANVAS_ID;
  if (/chembl_id/.test(value)) return "CHEMBL25";
  return value;
}

test("every step's arguments are valid for its tool (placeholders given values of their form)", () => {
  const registry = new ToolRegistry(allTools({}));
  let checked = 0;
  for (const p of PROMPTS) {
    if (p.name === "chembl_guide") continue;
    for (const args of [SAMPLE[p.name]!, ...(MORE_SAMPLES[p.name] ?? [])]) {
      const steps = planSteps(textOf(p, args));
      assert.ok(steps.length >= 5, `${p.name}: its plan`);
      for (const step of steps) {
        const validate = registry.get(step.tool)!.validateInput;
        const input = filled(step.args) as Record<string, unknown>;
        assert.ok(
          validate(input),
          `${p.name} ${JSON.stringify(args).slice(0, 80)}: ${step.tool} ${JSON.stringify(input).slice(0, 300)}: ${JSON.stringify(validate.errors)}`,
        );
        checked++;
      }
    }
  }
  assert.ok(checked >= 40, `${checked} steps checked`);
});

test("triage_hit_list: import cleaned, one annotate call, the goal's filter everywhere, at most 10 calls, the picks drawn and exported", () => {
  const triage = PROMPTS.find((p) => p.name === "triage_hit_list")!;
  const text = textOf(triage, { file: "screens/hits.sdf.gz", goal: "CNS" });
  const steps = planSteps(text);
  assert.deepEqual(
    steps.map((s) => s.tool),
    ["canvas_import", "canvas_annotate", "chembl_dataframe_query", "cluster_molecules", "pick_diverse", "chembl_dataframe_query", "depict", "canvas_export"],
  );
  assert.ok(steps.length <= 10);
  assert.deepEqual(steps[0]!.args, { path: "screens/hits.sdf.gz", table: "hits", standardize: true, dedupe: true });
  const filter = triageFilter("CNS");
  assert.match(filter, /pains_count = 0 AND lipinski_violations <= 1 AND mw <= 450 AND tpsa <= 90/);
  assert.equal(steps[3]!.args.where, filter);
  assert.equal(steps[4]!.args.where, filter);
  assert.equal(steps[4]!.args.n, 50, "the default pick");
  assert.ok((steps[2]!.args.sql as string).includes(`FILTER (WHERE ${filter}) AS kept`));
  assert.equal(steps[6]!.args.format, "png");
  assert.match(steps[6]!.args.sql as string, /WHERE pick_rank IS NOT NULL ORDER BY pick_rank LIMIT 48$/);
  assert.equal(steps[7]!.args.file, "hits_triage.sdf");
  assert.equal(steps[7]!.args.smiles_column, "smiles");
  assert.match(text, /read counts, not rows/);
  assert.doesNotMatch(text, /says more than that/, "CNS is a goal the filter knows");
  assert.match(textOf(triage, { file: "hits.sdf", goal: "oral, MW under 400" }), /says more than that/);
  assert.equal(triageFilter(undefined), "smiles IS NOT NULL AND pains_count = 0 AND lipinski_violations <= 1");
  assert.equal(defaultExportFile("a/b/screen 7.csv"), "screen 7_triage.sdf");
  assert.equal(defaultExportFile("hits.SDF.gz"), "hits_triage.sdf");
  const csv = planSteps(textOf(triage, { file: "hits.csv", picks: "12", export_file: "picks.parquet" }));
  assert.equal(csv[4]!.args.n, 12);
  assert.deepEqual(Object.keys(csv[7]!.args).sort(), ["canvas_id", "file", "sql"], "smiles_column only for SDF");
  // Before canvas_export ships, no server lists it: the plan ends with the picture.
  const listed = planSteps(textOf(triage, { file: "hits.sdf" }, (t) => TOOL_NAMES.has(t)));
  assert.equal(listed.at(-1)!.tool, "canvas_export");
});

test("compare_series on a table: the text does not grow with the series; pasted molecules appear once, in the import", () => {
  const compare = PROMPTS.find((p) => p.name === "compare_series")!;
  const onTable = textOf(compare, { canvas_id: CANVAS_ID, table: "library" });
  const steps = planSteps(onTable);
  assert.deepEqual(
    steps.map((s) => s.tool),
    ["canvas_annotate", "find_mcs", "rgroup_decompose", "matched_pairs", "chembl_dataframe_query", "chembl_dataframe_query", "depict"],
  );
  const columns = steps[0]!.args.columns as Array<{ kind: string; as?: string; parent?: boolean }>;
  assert.ok(columns.length >= 10 && columns.every((c) => c.parent === true), "every value of the standardised parent");
  assert.equal(steps.at(-1)!.args.format, "png");
  assert.ok(!/svg/i.test(onTable));
  assert.ok(Buffer.byteLength(onTable) < 5_000, `${Buffer.byteLength(onTable)} bytes`);
  const molecules = Array.from({ length: MAX_SERIES }, (_, i) => `O=C(Nc1ccc(${"C".repeat((i % 20) + 1)})cc1)c1ccc(${"C".repeat(Math.floor(i / 20) + 1)}O)cc1`);
  const list = molecules.join("\n");
  const pasted = textOf(compare, { series_smiles: list });
  const pastedSteps = planSteps(pasted);
  assert.equal(pastedSteps[0]!.tool, "canvas_import");
  assert.deepEqual(pastedSteps[0]!.args.smiles_list, molecules);
  assert.equal(pasted.split(JSON.stringify(molecules[7]!)).length - 1, 1, "each molecule once");
  // The list once, plus the plan (the pasted series' first member is the similarity reference).
  assert.ok(Buffer.byteLength(pasted) < Buffer.byteLength(JSON.stringify(molecules)) + 6_000, `${Buffer.byteLength(pasted)} bytes`);
  assert.equal(pastedSteps.find((s) => s.tool === "find_mcs")!.args.where, "_row < 50", "find_mcs compares at most 50");
});

test("a step whose tool the server does not list is left out and the plan renumbered; a prompt missing a required tool is not listed", () => {
  const profile = PROMPTS.find((p) => p.name === "profile_molecule")!;
  const chemOnly = textOf(profile, SAMPLE.profile_molecule!, (t) => !t.startsWith("chembl_"));
  assert.ok(!/chembl_/.test(chemOnly), "no ChEMBL step");
  const numbers = [...chemOnly.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
  assert.deepEqual(
    numbers,
    numbers.map((_, i) => i + 1),
  );
  const registry = new PromptRegistry(PROMPTS, (t) => !t.startsWith("chembl_") && !t.startsWith("canvas_"));
  assert.deepEqual(registry.names(), ["profile_molecule"], "compare_series and triage_hit_list work on the canvas");
  rejects(() => registry.get({ name: "hit_triage", arguments: { target: "EGFR" } }), -32602, /unknown prompt "hit_triage"/);
});

test("prompts/get refuses what it cannot render with -32602", () => {
  const registry = new PromptRegistry(PROMPTS, () => true);
  rejects(() => registry.get({}), -32602, /needs a string `name`/);
  rejects(() => registry.get({ name: "nope" }), -32602, /unknown prompt "nope"/);
  rejects(() => registry.get({ name: "profile_molecule" }), -32602, /profile_molecule needs the argument smiles/);
  rejects(() => registry.get({ name: "profile_molecule", arguments: { smiles: "   " } }), -32602, /needs the argument smiles/);
  rejects(() => registry.get({ name: "profile_molecule", arguments: [] }), -32602, /object of strings/);
  rejects(() => registry.get({ name: "profile_molecule", arguments: { smiles: 5 } }), -32602, /smiles must be a string/);
  rejects(() => registry.get({ name: "profile_molecule", arguments: { smiles: "CCO", fields: "x" } }), -32602, /takes no argument "fields"/);
  rejects(() => registry.get({ name: "profile_molecule", arguments: { smiles: "C".repeat(4_001) } }), -32602, /longer than 4000/);
  rejects(() => registry.get({ name: "profile_molecule", arguments: { smiles: "CCO\nCCN" } }), -32602, /line break/);
  rejects(() => registry.get({ name: "compare_series", arguments: { series_smiles: "CCO" } }), -32602, /holds 1 molecule; a series is 2 to/);
  rejects(
    () => registry.get({ name: "compare_series", arguments: { series_smiles: Array.from({ length: MAX_SERIES + 1 }, () => "C").join("\n") } }),
    -32602,
    /a series is 2 to 200/,
  );
  rejects(() => registry.get({ name: "hit_triage", arguments: { target: "EGFR", min_pchembl: "high" } }), -32602, /min_pchembl must be a number/);
  const series = (args: Record<string, string>) => registry.get({ name: "compare_series", arguments: args });
  rejects(() => series({}), -32602, /give the series: canvas_id and table, or series_smiles/);
  rejects(() => series({ canvas_id: CANVAS_ID }), -32602, /canvas_id and table go together/);
  rejects(() => series({ table: "library" }), -32602, /canvas_id and table go together/);
  rejects(() => series({ canvas_id: CANVAS_ID, table: "library", series_smiles: "CCO\nCCN" }), -32602, /not both/);
  rejects(() => series({ series_smiles: "CCO\nCCN", where: "mw < 300" }), -32602, /where reads a table/);
  rejects(() => series({ canvas_id: CANVAS_ID, table: "My Table" }), -32602, /table must be a canvas table name/);
  const triage = (args: Record<string, string>) => registry.get({ name: "triage_hit_list", arguments: args });
  rejects(() => triage({}), -32602, /needs the argument file/);
  rejects(() => triage({ file: "hits.xlsx" }), -32602, /file must be a .sdf, .sdf.gz, .csv or .smi file/);
  rejects(() => triage({ file: "/etc/hits.sdf" }), -32602, /a path inside the import folder/);
  rejects(() => triage({ file: "../hits.sdf" }), -32602, /a path inside the import folder/);
  rejects(() => triage({ file: "hits.sdf", picks: "0" }), -32602, /picks must be a whole number from 1 to 2000/);
  rejects(() => triage({ file: "hits.sdf", picks: "many" }), -32602, /picks must be a whole number/);
  rejects(() => triage({ file: "hits.sdf", export_file: "out/picks.sdf" }), -32602, /export_file must be a file name/);
  rejects(() => triage({ file: "hits.sdf", export_file: "picks.xlsx" }), -32602, /export_file must be a file name/);
  // What it can render: text only, the prompt's description beside it.
  for (const p of PROMPTS) {
    const r = registry.get({ name: p.name, arguments: SAMPLE[p.name]! });
    assert.equal(r.description, p.description);
    assert.ok(r.messages.every((m) => m.role === "user" && m.content.type === "text"));
  }
});

test("2026-07-28: discover advertises prompts; prompts/list carries cache hints and titles; prompts/get answers resultType and _meta", async () => {
  const { server } = appWith();
  const discover = await server.handleModern(req("server/discover"), ctx());
  assert.deepEqual(discover.capabilities, { tools: {}, resources: {}, prompts: {} });
  const list = await server.handleModern(req("prompts/list"), ctx());
  assert.equal(list.resultType, "complete");
  assert.equal(list.cacheScope, "public");
  assert.equal(list.ttlMs, 86_400_000);
  const prompts = list.prompts as Array<{ name: string; title?: string; arguments: unknown[] }>;
  assert.deepEqual(
    prompts.map((p) => p.name),
    PROMPTS.map((p) => p.name),
  );
  assert.ok(prompts.every((p) => typeof p.title === "string"));
  const again = await server.handleModern(req("prompts/list"), ctx());
  assert.deepEqual(again.prompts, list.prompts, "deterministic");
  const got = await server.handleModern(req("prompts/get", { name: "profile_molecule", arguments: { smiles: "CCO" } }), ctx());
  assert.equal(got.resultType, "complete");
  assert.ok(got._meta);
  assert.equal(got.ttlMs, undefined, "a rendered prompt is not a cacheable list");
  await assert.rejects(
    server.handleModern(req("prompts/get", { name: "profile_molecule" }), ctx()),
    (e: unknown) => e instanceof RpcError && e.code === -32602,
  );
  await assert.rejects(server.handleModern(req("prompts/list", { cursor: "x" }), ctx()), (e: unknown) => e instanceof RpcError && e.code === -32602);
});

test("legacy: initialize advertises prompts in every version; a title from 2025-06-18; prompts/get the same text", async () => {
  const { server } = appWith();
  for (const version of LEGACY_VERSIONS) {
    const init = await server.handleLegacy(
      req("initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } }),
      version,
      ctx(),
    );
    assert.deepEqual(init.result.capabilities, { tools: {}, resources: {}, prompts: {} }, version);
    const list = (await server.handleLegacy(req("prompts/list"), version, ctx())).result;
    assert.equal(list.ttlMs, undefined, `${version}: no 2026-07-28 cache fields`);
    const titled = (list.prompts as Array<{ title?: string }>).every((p) => p.title !== undefined);
    assert.equal(titled, version !== "2024-11-05" && version !== "2025-03-26", version);
    const got = (await server.handleLegacy(req("prompts/get", { name: "hit_triage", arguments: { target: "EGFR" } }), version, ctx())).result;
    assert.equal(got.resultType, undefined);
    assert.match((got.messages as Array<{ content: { text: string } }>)[0]!.content.text, /chembl_search_targets/);
  }
});

test("tool sets leave out the prompts whose tools they leave out; with none left there is no prompts capability", async () => {
  const chem = appWith("chem,medchem").server;
  assert.deepEqual(chem.prompts.names(), ["profile_molecule"]);
  assert.deepEqual(appWith("canvas,medchem").server.prompts.names(), ["triage_hit_list", "compare_series"]);
  const text = chem.prompts.get({ name: "profile_molecule", arguments: { smiles: "CCO" } }).messages[0]!.content;
  assert.ok(text.type === "text" && !text.text.includes("chembl_"), "no step names a tool the server does not list");
  assert.deepEqual(appWith("chembl").server.prompts.names(), ["chembl_guide"]);
  const none = appWith("medchem").server;
  assert.ok(none.prompts.empty);
  const discover = await none.handleModern(req("server/discover"), ctx());
  // medchem alone: no prompt, and no resource either (chembl:// needs chembl, the skill chembl or canvas).
  assert.deepEqual(discover.capabilities, { tools: {} });
  assert.equal(none.serves("modern", "prompts/list"), false);
  await assert.rejects(none.handleModern(req("prompts/list"), ctx()), (e: unknown) => e instanceof RpcError && e.code === -32601);
});
