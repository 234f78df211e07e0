/**
 * The workflow prompts' plans run as written: each prompt rendered by the server (prompts/get, with the tools it
 * lists), then every step called in order with the arguments the text shows, a placeholder replaced by the value
 * the earlier answer gave, as a model would: triage_hit_list on a CSV in CHEMATIC_IMPORT_DIR, compare_series on that
 * table and on a pasted list, profile_molecule (ChEMBL steps left out: offline). Every call must succeed, so the SQL
 * the prompts write runs on the canvas; triage_hit_list's plan ends in the SDF export of the picks.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, type App } from "../../src/app.js";
import type { JsonObject } from "../../src/protocol/jsonrpc.js";
import { planSteps, type PlanStep } from "../helpers/prompt-steps.js";

let dir: string;
let app: App;

/** A benzanilide series: 36 members, a salt form and a repeat of the first (merged by dedupe), and one that does not parse. */
function seriesCsv(): string {
  const left = ["C", "CC", "Cl", "F", "OC", "C(F)(F)F"];
  const right = ["", "C", "N", "O", "Br", "C#N"];
  const rows = ["smiles,name,pIC50"];
  left.forEach((a, i) =>
    right.forEach((b, j) => rows.push(`O=C(Nc1ccc(${a})cc1)c1ccc(${b === "" ? "[H]" : b})cc1,cpd${i}${j},${(5 + ((i * 7 + j * 3) % 30) / 10).toFixed(1)}`)),
  );
  rows.push("O=C(Nc1ccc(C)cc1)c1ccc(N)cc1.Cl,cpd02_hcl,5.6", "O=C(Nc1ccc(C)cc1)c1ccc([H])cc1,cpd00_again,5.0", "C1CC(,broken,4.0");
  return `${rows.join("\n")}\n`;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), "chematic-plans-"));
  mkdirSync(join(dir, "import"));
  mkdirSync(join(dir, "export"));
  writeFileSync(join(dir, "import", "series.csv"), seriesCsv());
  app = createApp(
    {
      ...process.env,
      CHEMATIC_WORKERS: "2",
      CHEMATIC_LOG_LEVEL: "error",
      CHEMATIC_OFFLINE: "true",
      CHEMATIC_IMPORT_DIR: join(dir, "import"),
      CHEMATIC_EXPORT_DIR: join(dir, "export"),
    },
    {},
  );
});
after(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rendered(name: string, args: Record<string, string>): string {
  const got = app.server.prompts.get({ name, arguments: args });
  const block = got.messages[0]!.content;
  assert.ok(block.type === "text");
  return block.text;
}

async function call(tool: string, args: Record<string, unknown>): Promise<JsonObject> {
  const outcome = await app.server.runTool(tool, args, { signal: new AbortController().signal });
  assert.ok(outcome.ok, `${tool} ${JSON.stringify(args).slice(0, 400)}: ${outcome.ok ? "" : `${outcome.error.code} ${outcome.error.message}`}`);
  return outcome.value;
}

/**
 * Runs a plan as a model would: each placeholder replaced by what an earlier answer gave (<canvas_id>, the MCS SMARTS,
 * the pack's parent SMILES), canvas_annotate repeated while complete is false, the ChEMBL lookups skipped (offline).
 * Answers by step, in order.
 */
async function runPlan(text: string): Promise<Array<{ step: PlanStep; answer: JsonObject }>> {
  const known = new Map<string, unknown>();
  const fill = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    if (typeof value !== "string" || !/^<[^>]+>$/.test(value)) return value;
    assert.ok(known.has(value), `no earlier answer gives ${value}`);
    return known.get(value);
  };
  const answers: Array<{ step: PlanStep; answer: JsonObject }> = [];
  for (const step of planSteps(text)) {
    if (step.tool.startsWith("chembl_") && step.tool !== "chembl_dataframe_query") continue;
    const args = fill(step.args) as Record<string, unknown>;
    let answer = await call(step.tool, args);
    while (step.tool === "canvas_annotate" && answer.complete === false) answer = await call(step.tool, args);
    if (typeof answer.canvas_id === "string") known.set("<canvas_id>", answer.canvas_id);
    if (typeof answer.mcs_smarts === "string") known.set("<the MCS SMARTS>", answer.mcs_smarts);
    const identifiers = answer.identifiers as { smiles?: string } | undefined;
    if (identifiers?.smiles) known.set("<the pack's identifiers.smiles>", identifiers.smiles);
    answers.push({ step, answer });
  }
  return answers;
}

function rowsOf(answer: JsonObject): Array<Record<string, unknown>> {
  return answer.rows as Array<Record<string, unknown>>;
}

test("triage_hit_list runs as written on a CSV of the import folder: counts, clusters, picks, a PNG grid and the export", { timeout: 120_000 }, async () => {
  const text = rendered("triage_hit_list", { file: "series.csv", goal: "oral", picks: "10" });
  const answers = await runPlan(text);
  const tools = answers.map((a) => a.step.tool);
  assert.deepEqual(tools.slice(0, 7), [
    "canvas_import",
    "canvas_annotate",
    "chembl_dataframe_query",
    "cluster_molecules",
    "pick_diverse",
    "chembl_dataframe_query",
    "depict",
  ]);
  const imported = answers[0]!.answer.counts as Record<string, number>;
  assert.deepEqual([imported.rows, imported.failed, imported.duplicates], [39, 1, 2], "the salt and the repeat merged, the broken record kept as failed");
  const funnel = rowsOf(answers[2]!.answer)[0]!;
  assert.equal(Number(funnel.rows), 37);
  assert.equal(Number(funnel.parsed), 36);
  assert.ok(Number(funnel.kept) > 10 && Number(funnel.kept) <= 36, JSON.stringify(funnel));
  assert.ok(Number(answers[3]!.answer.cluster_count) >= 1);
  assert.equal(answers[4]!.answer.picked, 10);
  assert.equal(Number(rowsOf(answers[5]!.answer)[0]!.picks), 10);
  assert.ok(answers[6]!.answer.png !== undefined || answers[6]!.answer.format === "png", JSON.stringify(answers[6]!.answer).slice(0, 300));
  // The export: the picks, every column but the bookkeeping, as an SDF in the export folder.
  assert.equal(tools[7], "canvas_export");
  const exported = answers[7]!.answer;
  assert.equal(exported.file, "series_triage.sdf");
  assert.equal(exported.rows, 10);
  const columns = exported.columns as string[];
  for (const column of ["smiles", "name", "pIC50", "qed", "cluster_id", "pick_rank", "brenk_alerts"])
    assert.ok(columns.includes(column), `the export carries ${column}`);
  assert.ok(!columns.includes("_row") && !columns.includes("pains_names"));
  const sdf = readFileSync(join(dir, "export", "series_triage.sdf"), "utf8");
  assert.equal(sdf.split("$$$$\n").length - 1, 10, "ten records");
  assert.equal((sdf.match(/^> {2}<pick_rank>$/gm) ?? []).length, 10, "each with its pick rank");
});

test("compare_series runs as written on a canvas table (where, value_column) and on a pasted list", { timeout: 120_000 }, async () => {
  const imported = await call("canvas_import", { path: "series.csv", table: "library" });
  const canvasId = imported.canvas_id as string;
  const onTable = await runPlan(
    rendered("compare_series", {
      canvas_id: canvasId,
      table: "library",
      where: "name <> 'broken'",
      value_column: "pIC50",
      reference_smiles: "O=C(Nc1ccccc1)c1ccccc1",
    }),
  );
  assert.deepEqual(
    onTable.map((a) => a.step.tool),
    ["canvas_annotate", "find_mcs", "rgroup_decompose", "matched_pairs", "chembl_dataframe_query", "chembl_dataframe_query", "depict"],
  );
  const members = rowsOf(onTable[4]!.answer);
  assert.equal(members.length, 38, "every parsed row that where keeps (the salt and the repeat are rows of this table)");
  assert.ok("r1" in members[0]! && "sim_to_ref" in members[0] && "value" in members[0] && "rules_failed" in members[0], Object.keys(members[0]!).join(", "));
  assert.ok(Number(members[0].value) >= Number(members.at(-1)!.value), "ranked by the value");
  const pairs = rowsOf(onTable[5]!.answer);
  assert.ok(pairs.length > 0 && "mean_delta" in pairs[0]!);

  const pasted = await runPlan(rendered("compare_series", { series_smiles: "c1ccccc1Cl\nc1ccccc1F\nc1ccccc1O\nc1ccccc1N.Cl", core_smiles: "c1ccccc1[*:1]" }));
  assert.deepEqual(
    pasted.map((a) => a.step.tool),
    ["canvas_import", "canvas_annotate", "rgroup_decompose", "matched_pairs", "chembl_dataframe_query", "chembl_dataframe_query", "depict"],
  );
  assert.equal(rowsOf(pasted[4]!.answer).length, 4);
});

test("profile_molecule runs as written: the context pack, the rule sets and a PNG, in three calls offline", { timeout: 60_000 }, async () => {
  const answers = await runPlan(rendered("profile_molecule", { smiles: "CC(=O)Oc1ccccc1C(=O)O.[Na+].[Cl-]" }));
  assert.deepEqual(
    answers.map((a) => a.step.tool),
    ["molecule_context_pack", "druglikeness_filters", "depict"],
  );
  assert.equal((answers[0]!.answer.identifiers as { smiles: string }).smiles, "CC(=O)Oc1ccccc1C(=O)O", "profiled as the parent");
});
