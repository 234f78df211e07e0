/**
 * Issue 14, items 6 and 7, for the ChEMBL tools: default answers sized for an agent. Measured as whole
 * JSON-RPC messages (bench/answer-sizes.ts) against the fake ChEMBL with a 20,000-row target staged on a
 * canvas; the fields the chembl-guide skill reads stay in the default answers; both surfaces carry the
 * same rows, with nulls left out and the attribution once.
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { measureAnswerSizes, type AnswerSize } from "../../bench/answer-sizes.js";
import { ACTIVITY_FIELDS, DEFAULT_ACTIVITY_FIELDS } from "../../src/tools/chembl_get_bioactivities.js";
import { ACTIVITY_TABLE_COLUMNS } from "../../src/domain/canvas/activity-table.js";
import { DEFAULT_MOLECULE_FIELDS, MOLECULE_ROW_PROPERTIES } from "../../src/tools/chembl-common.js";
import { chemblTools, testService } from "../fixtures/chembl/harness.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import type { JsonSchema } from "../../src/contract/tool.js";

type Row = Record<string, unknown>;

/** The whole-message sizes of each default answer before this change (bench/answer-sizes.ts on the parent commit). */
const BEFORE: Record<string, number> = {
  "molecule search, one row (name)": 2711,
  "molecule search, similarity": 3982,
  "target search": 4519,
  "bioactivities, 20,000-row target (spilled)": 59110,
  "bioactivities, molecule (inline)": 6282,
  "drug info": 5826,
  assay: 2992,
  "documents (two)": 2497,
};

let sizes: AnswerSize[];
const byLabel = (label: string) => sizes.find((s) => s.label === label)!;
before(async () => {
  sizes = await measureAnswerSizes(20_000);
});

describe("item 7: ChEMBL default answers are sized for an agent", () => {
  test("the default chembl_get_bioactivities answer for a 20,000-row target is at most 36 KB, 25 rows inline, canvas_id at the top level", () => {
    const s = byLabel("bioactivities, 20,000-row target (spilled)");
    assert.ok(s.bytes <= 36 * 1024, `${s.bytes} B`);
    assert.equal((s.value.activities as Row[]).length, 25);
    assert.equal(s.value.staged_row_count, 20_000);
    assert.match(String(s.value.canvas_id), /^cv_/);
    assert.equal(s.value.table_name, "bioactivities");
  });

  test("a one-row molecule search is at most 1.4 KB", () => {
    const s = byLabel("molecule search, one row (name)");
    assert.equal((s.value.molecules as Row[]).length, 1);
    assert.ok(s.bytes <= 1.4 * 1024, `${s.bytes} B`);
  });

  test("every ChEMBL tool's default answer is smaller than before", () => {
    for (const s of sizes) assert.ok(s.bytes < BEFORE[s.label]!, `${s.label}: ${s.bytes} B, was ${BEFORE[s.label]} B`);
  });

  test("every field the chembl-guide skill reads is in the default answers", async () => {
    const skill = readFileSync(fileURLToPath(new URL("../../../skills/chembl-guide/SKILL.md", import.meta.url)), "utf8");
    const named = new Set([...skill.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1]!));
    // Every property name of every ChEMBL tool's output schema: a skill token among them is a field it reads.
    const fake = await new FakeChembl().start();
    const tools = Object.values(chemblTools(testService(fake)));
    await fake.stop();
    const schemaKeys = new Set<string>();
    const walk = (s: JsonSchema | undefined): void => {
      if (!s || typeof s !== "object") return;
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, JsonSchema>)) {
        schemaKeys.add(k);
        walk(v);
      }
      walk(s.items as JsonSchema | undefined);
    };
    for (const t of tools) walk(t.outputSchema);
    // What the default answers carry: every key that appears, and the default columns (a null one is left out of a row);
    // and the columns of a staged bioactivity table, which the skill reads through SQL (parent_smiles, looked up per
    // page, is staged but not an inline default).
    const carried = new Set<string>([...DEFAULT_ACTIVITY_FIELDS, ...DEFAULT_MOLECULE_FIELDS, ...ACTIVITY_TABLE_COLUMNS.map((c) => c.name)]);
    const collect = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          carried.add(k);
          collect(x);
        }
    };
    sizes.forEach((s) => collect(s.value));
    const read = [...named].filter((k) => schemaKeys.has(k));
    assert.ok(read.length >= 15, `the skill names ${read.length} answer fields: ${read.join(", ")}`);
    const missing = read.filter((k) => !carried.has(k));
    assert.deepEqual(missing, [], `fields the skill reads but the default answers drop: ${missing.join(", ")}`);
  });

  test("fields adds columns to the defaults; all gives every column", async () => {
    const fake = await new FakeChembl().start();
    try {
      const tools = chemblTools(testService(fake));
      const { ok } = await import("../fixtures/chembl/harness.js");
      const extra = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", fields: ["assay_description", "target_pref_name"] });
      const row = (extra.value.activities as Row[])[0]!;
      assert.ok("assay_description" in row && "target_pref_name" in row && "molecule_chembl_id" in row);
      const all = await ok(tools.bioactivities, { target_chembl_id: "CHEMBL203", fields: ["all"] });
      const keys = new Set((all.value.activities as Row[]).flatMap((r) => Object.keys(r)));
      for (const k of ["assay_description", "bao_label", "document_journal", "target_organism", "type", "value", "units"]) assert.ok(keys.has(k), k);
      assert.ok([...keys].every((k) => (ACTIVITY_FIELDS as string[]).includes(k)));
      const mol = await ok(tools.searchMolecules, { query: "aspirin", fields: ["all"] });
      const m = (mol.value.molecules as Row[])[0]!;
      for (const k of ["alogp", "psa", "hba", "hbd", "qed_weighted", "full_molformula"]) assert.ok(k in m && k in MOLECULE_ROW_PROPERTIES, k);
    } finally {
      await fake.stop();
    }
  });
});

describe("item 6: both surfaces carry the same information, compactly", () => {
  test("the bioactivities markdown is a table holding every structured value; no null repeated row by row; the attribution once", () => {
    for (const label of ["bioactivities, 20,000-row target (spilled)", "bioactivities, molecule (inline)"]) {
      const s = byLabel(label);
      const acts = s.value.activities as Row[];
      const tableRows = s.text.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| activity_id"));
      assert.equal(tableRows.length, acts.length, label);
      acts.forEach((a, i) => {
        for (const v of Object.values(a)) assert.ok(tableRows[i]!.includes(String(v)), `${label} row ${i}: ${String(v)}`);
        assert.ok(!Object.values(a).includes(null), "no null field in a structured row");
      });
      assert.ok(!/\bnull\b/.test(tableRows.join("\n")), "no null cell in the table");
      assert.equal(s.text.split("CC BY-SA 3.0").length - 1, 1, "the attribution once in the text");
      assert.equal(JSON.stringify(s.value).split("CC BY-SA 3.0").length - 1, 1, "and once in structuredContent");
    }
  });

  test("the molecule search markdown is a table with the structured row's values", () => {
    const s = byLabel("molecule search, one row (name)");
    const [m] = s.value.molecules as Row[];
    const line = s.text.split("\n").find((l) => l.startsWith("| CHEMBL25"))!;
    for (const v of Object.values(m!)) assert.ok(line.includes(String(v)), String(v));
  });

  test("every ChEMBL answer names its release and attribution once per surface", () => {
    for (const s of sizes) {
      assert.equal(s.text.split("CC BY-SA 3.0").length - 1, 1, s.label);
      assert.equal(JSON.stringify(s.value).split("CC BY-SA 3.0").length - 1, 1, s.label);
      assert.ok(s.text.includes("ChEMBL\\_36"), s.label);
    }
  });
});
