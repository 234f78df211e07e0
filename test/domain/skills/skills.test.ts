/**
 * The published chembl-guide skill: served as skill:// resources confined to its tree (traversal in any
 * spelling is "Resource not found"), a missing or unreadable tree stops start-up with a clear message,
 * and every SQL recipe in it runs through chembl_dataframe_query against tables staged from the fake
 * ChEMBL server, with the results the recipes promise.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../../../src/config.js";
import { createApp } from "../../../src/app.js";
import { projectRoot } from "../../../src/domain/assets.js";
import { ToolError } from "../../../src/domain/errors.js";
import { RpcError } from "../../../src/protocol/jsonrpc.js";
import { ResourceRegistry } from "../../../src/server/resources.js";
import { SKILL_NAME, loadSkillTree } from "../../../src/domain/skills/skills.js";
import { skillPathOf, skillResourceProvider } from "../../../src/resources/skills.js";
import { CanvasManager } from "../../../src/domain/canvas/manager.js";
import { createChemblGetBioactivitiesTool } from "../../../src/tools/chembl_get_bioactivities.js";
import { createChemblDataframeQueryTool } from "../../../src/tools/chembl_dataframe_query.js";
import { createCanvasAnnotateTool } from "../../../src/tools/canvas_annotate.js";
import { localRunner } from "../../helpers/annotate.js";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { ok, serviceContext, testService } from "../../fixtures/chembl/harness.js";

const skillsDir = join(projectRoot(), "skills");
const files = loadSkillTree(skillsDir);
const provider = skillResourceProvider(files);

describe("skill resources", () => {
  test("SKILL.md and its references are listed; the template is skill://{+path}", async () => {
    const uris = provider.list().map((r) => r.uri);
    assert.ok(uris.includes("skill://chembl-guide/SKILL.md"));
    assert.ok(uris.includes("skill://chembl-guide/references/sql-recipes.md"));
    assert.deepEqual(
      provider.templates().map((t) => t.uriTemplate),
      ["skill://{+path}"],
    );
    const [skill] = await provider.read("skill://chembl-guide/SKILL.md", serviceContext());
    assert.equal(skill!.mimeType, "text/markdown");
    const text = (skill as { text: string }).text;
    assert.match(text, /^---\nname: chembl-guide\ndescription: .{40,}\n---\n/);
    assert.equal(text, readFileSync(join(skillsDir, SKILL_NAME, "SKILL.md"), "utf8"));
    const [recipes] = await provider.read("skill://chembl-guide/references/sql-recipes.md", serviceContext());
    assert.match((recipes as { text: string }).text, /```sql/);
  });

  test("the template is confined to the skill's tree: traversal in any spelling is not found", async () => {
    const registry = new ResourceRegistry([provider]);
    for (const uri of [
      "skill://chembl-guide/../../package.json",
      "skill://chembl-guide/%2e%2e/%2e%2e/package.json",
      "skill://..%2F..%2Fpackage.json",
      "skill://chembl-guide%2F..%2F..%2Fpackage.json",
      "skill:///etc/passwd",
      "skill://%2Fetc%2Fpasswd",
      "skill://chembl-guide/references/../SKILL.md",
      "skill://chembl-guide/./SKILL.md",
      "skill://chembl-guide//SKILL.md",
      "skill://chembl-guide/SKILL.md?raw=1",
      "skill://chembl-guide/SKILL.md#x",
      "skill://chembl-guide/SKILL.md%00",
      "skill://chembl-guide\\SKILL.md",
      "skill://chembl-guide/%E0%A4%A",
      "skill://chembl-guide",
      "skill://",
      "skill://chembl-guide/references",
      "skill://other-skill/SKILL.md",
    ]) {
      assert.equal(skillPathOf(uri) !== null && files.has(skillPathOf(uri)!), false, uri);
      await assert.rejects(provider.read(uri, serviceContext()), (e: ToolError) => e.code === "NOT_FOUND", uri);
      await assert.rejects(registry.read(provider, uri, serviceContext()), (e: RpcError) => e instanceof RpcError && e.code === -32602 && e.message === "Resource not found", uri);
    }
    assert.equal(skillPathOf("skill://chembl-guide/references/sql%2Drecipes.md"), "chembl-guide/references/sql-recipes.md", "plain percent-encoding is fine");
  });
});

describe("start-up and the skills folder", () => {
  let base: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), "chematic-skills-"));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  test("missing, a file, missing SKILL.md, a symlink inside: a ConfigError naming the folder", () => {
    const cases: Array<[string, () => void]> = [
      ["missing", () => undefined],
      ["file", () => writeFileSync(join(base, "file", SKILL_NAME), "x")],
      ["nomd", () => writeFileSync(join(base, "nomd", SKILL_NAME, "notes.md"), "x")],
      ["link", () => {
        writeFileSync(join(base, "link", SKILL_NAME, "SKILL.md"), "x");
        symlinkSync("/etc/passwd", join(base, "link", SKILL_NAME, "passwd.md"));
      }],
    ];
    for (const [name, make] of cases) {
      const dir = join(base, name);
      if (name !== "missing") mkdirSync(name === "file" ? dir : join(dir, SKILL_NAME), { recursive: true });
      make();
      assert.throws(
        () => loadSkillTree(dir),
        (e: Error) => e instanceof ConfigError && e.message.startsWith("the skills folder is missing or unreadable: ") && e.message.includes(join(dir, SKILL_NAME)) && !e.message.includes("\n"),
        name,
      );
    }
  });

  test("createApp stops with that ConfigError before starting anything", () => {
    assert.throws(() => createApp({ ...process.env, CHEMATIC_WORKERS: "1" }, {}, { skillsDir: join(base, "nowhere"), lazyWorkers: true }), ConfigError);
  });

  test("createApp serves the skill next to the chembl:// resources", async () => {
    const app = createApp({ ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error" }, {}, { lazyWorkers: true });
    try {
      const templates = app.server.resources.templates().map((t) => t.uriTemplate);
      assert.ok(templates.includes("skill://{+path}") && templates.includes("chembl://molecule/{chembl_id}"));
      assert.ok(app.server.resources.list().some((r) => r.uri === "skill://chembl-guide/SKILL.md"));
      assert.match(app.server.instructions, /skill:\/\/chembl-guide\/SKILL\.md/);
      assert.ok(app.server.registry.get("chembl_dataframe_query") && app.server.registry.get("chembl_dataframe_describe"));
      assert.equal(app.server.registry.get("chembl_dataframe_drop"), undefined);
    } finally {
      await app.close();
    }
  });
});

describe("the SQL recipes run against staged tables", () => {
  let fake: FakeChembl;
  let manager: CanvasManager;
  before(async () => {
    fake = await new FakeChembl("new").start();
    manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  });
  after(async () => {
    await manager.close();
    await fake.stop();
  });

  /** Every ```sql block of the recipes, under the heading it follows. */
  function recipes(): Array<{ heading: string; sql: string }> {
    const text = files.get(`${SKILL_NAME}/references/sql-recipes.md`)!.text;
    const out: Array<{ heading: string; sql: string }> = [];
    let heading = "";
    for (const m of text.matchAll(/^## (.+)$|^```sql\n([\s\S]*?)^```$/gm)) {
      if (m[1]) heading = m[1];
      else out.push({ heading, sql: m[2]! });
    }
    return out;
  }

  async function stageBoth(args: Record<string, unknown>): Promise<string> {
    const bio = createChemblGetBioactivitiesTool(() => testService(fake), () => manager);
    const first = await ok(bio, { ...args, limit: 1 });
    const id = first.value.canvas_id as string;
    assert.ok(id, "the view spilled");
    await ok(bio, { ...args, potency_view: "null_potency", canvas_id: id });
    return id;
  }

  test("every recipe is accepted and runs; the ranking, whole-set and selectivity recipes give the rows they promise", async () => {
    const all = recipes();
    assert.ok(all.length >= 10, `found ${all.length} recipes`);
    const query = createChemblDataframeQueryTool(() => manager);
    const target = await stageBoth({ target_chembl_id: "CHEMBL203" });
    const compound = await stageBoth({ molecule_chembl_id: "CHEMBL113081" });
    // Recipe 10 and the skill's own triage query read canvas_annotate's columns, as the skill tells the agent to add them.
    const chem = await localRunner();
    await ok(
      createCanvasAnnotateTool(() => manager),
      { canvas_id: target, table: "bioactivities", columns: ["qed", "pains", "brenk", "murcko_scaffold"] },
      serviceContext(40_000, { chem }),
    );
    const results = new Map<string, Array<Array<Record<string, unknown>>>>();
    const get10 = () => [...results.entries()].find(([h]) => h.startsWith("10."))![1][1]!;
    for (const { heading, sql } of all) {
      const canvas = heading.startsWith("6.") ? compound : target;
      const { value } = await ok(query, { canvas_id: canvas, sql, max_rows: 200 });
      results.set(heading, [...(results.get(heading) ?? []), value.rows as Array<Record<string, unknown>>]);
    }
    // 10: each alert counted by name; the skill's triage query (SKILL.md, step 3 of the hit triage) runs as written.
    const alerts = get10();
    assert.ok(alerts.length > 0 && alerts.every((r) => typeof r.alert === "string" && (r.rows_flagged as number) >= 1), JSON.stringify(alerts));
    const inline = [...files.get(`${SKILL_NAME}/SKILL.md`)!.text.matchAll(/`(SELECT [^`]+)`/g)].map((m) => m[1]!.replace(/\s+/g, " ")).filter((q) => !q.includes("..."));
    assert.ok(inline.length >= 1, "SKILL.md holds a runnable query");
    for (const sql of inline) await ok(query, { canvas_id: target, sql, max_rows: 200 });
    const get = (prefix: string, i = 0) => [...results.entries()].find(([h]) => h.startsWith(prefix))![1][i]!;
    // 2: IC50, exact, wild type, no validity flag, no duplicate: only CHEMBL324340's two measurements remain.
    assert.deepEqual(get("2."), [{ parent_molecule_chembl_id: "CHEMBL324340", measurements: 2, forms: 1, documents: 2, median_pchembl: 5.6, best_pchembl: 5.6 }]);
    // 4: the mutant rows stay apart from the wild-type ones.
    assert.ok(get("4.").some((r) => r.variant === "T790M") && get("4.").some((r) => r.variant === "wild type"));
    // 5: CHEMBL113081 on EGFR: two ranked (mutant) rows, a censored > row and a Not Determined row.
    assert.deepEqual(
      get("5.").find((r) => r.parent_molecule_chembl_id === "CHEMBL113081"),
      { parent_molecule_chembl_id: "CHEMBL113081", measurements: 4, with_pchembl: 2, inactive_or_censored: 1, best_pchembl: 8.07 },
    );
    // 6: CHEMBL113081 across targets: on wild type only the mouse EGFR has a potency; on EGFR it was only bounded (>).
    assert.deepEqual(get("6.", 0).map((r) => [r.target_chembl_id, r.standard_type, r.median_pchembl]), [["CHEMBL3608", "IC50", 7]]);
    assert.deepEqual(get("6.", 1).map((r) => [r.target_chembl_id, r.standard_relation, r.standard_value]), [["CHEMBL203", ">", 100000]]);
    // 8: the provenance lists are distinct IDs.
    const assays = get("8.", 0).map((r) => r.assay_chembl_id);
    assert.equal(new Set(assays).size, assays.length);
  });
});
