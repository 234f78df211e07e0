/**
 * Issue 15 item 5: the hit-triage recipe end to end through the real server over stdio, against the fake
 * ChEMBL: target -> spill -> canvas_annotate (qed, pains, murcko_scaffold on parent_smiles) -> SQL (best scaffolds by median
 * pchembl_value among alert-free rows with QED >= 0.5) -> a grid picture of them, in 4 calls. The numbers are
 * checked against values computed independently: native RDKit's QED, PAINS FilterCatalog and
 * MurckoScaffold.GetScaffoldForMol on the same SMILES, grouped here in JavaScript.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ServerProcess } from "../helpers/server-process.js";
import { FakeChembl } from "../fixtures/chembl/fake-server.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../helpers/oracle.js";

// Native RDKit (2022.09 on Debian): one JSON line per SMILES with its QED (3 dp), PAINS count and scaffold.
const ORACLE = String.raw`
import sys, json
from rdkit import Chem, RDLogger
from rdkit.Chem import QED
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams
RDLogger.DisableLog("rdApp.*")
p = FilterCatalogParams(); p.AddCatalog(FilterCatalogParams.FilterCatalogs.PAINS)
fc = FilterCatalog(p)
for line in sys.stdin:
    s = line.strip()
    if not s: continue
    m = Chem.MolFromSmiles(s)
    if m is None:
        print(json.dumps(None)); continue
    names = set(e.GetDescription() for e in fc.GetMatches(m))
    print(json.dumps({"smiles": s, "qed": round(QED.qed(m), 3), "pains": len(names), "scaffold": Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(m))}))
`;

let fake: FakeChembl;
before(async () => {
  fake = await new FakeChembl("new").start();
});
after(() => fake.stop());

type Result = { structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text?: string; mimeType?: string }>; isError?: boolean };

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

test("hit triage in 4 calls: spill, annotate, SQL over scaffolds, a grid picture; the numbers equal native RDKit's", { timeout: 240_000 }, async (t) => {
  const s = new ServerProcess({
    CHEMBL_API_BASE_URL: fake.baseUrl,
    CHEMBL_REQUEST_TIMEOUT_MS: "3000",
    CHEMBL_DEADLINE_MS: "8000",
    CHEMATIC_WORKERS: "1",
    CHEMATIC_LOG_LEVEL: "warn",
  });
  try {
    const ok = (m: { result?: unknown; error?: unknown }, what: string): Record<string, unknown> => {
      const r = m.result as Result | undefined;
      assert.ok(r && !r.isError && r.structuredContent, `${what}: ${JSON.stringify(m).slice(0, 400)}`);
      return r.structuredContent;
    };
    // The recipe's calls and the text an agent reads back (the closing note prints them), images by size.
    let calls = 0;
    const call = async (name: string, args: Record<string, unknown>) => {
      // A generous wait (the calls take about a second on an idle machine): a loaded CI machine is slower.
      const m = await s.modernCall(++calls, name, args, {}, 90_000);
      const content = (m.result as Result | undefined)?.content ?? [];
      const shown = content.map((c) =>
        c.type === "text" ? c.text : `[${c.type} ${c.mimeType ?? ""}, ${(c as { data?: string }).data?.length ?? 0} base64 chars]`,
      );
      t.diagnostic(`call ${calls}: ${name} ${JSON.stringify(args)}\n${shown.join("\n")}`);
      return m;
    };
    // 1. The target's ranked activities, staged on a canvas.
    const spill = ok(await call("chembl_get_bioactivities", { target_chembl_id: "CHEMBL235" }), "spill");
    const canvasId = spill.canvas_id as string;
    assert.match(canvasId, /^cv_/);
    // 2. Chemistry as columns.
    const annotated = ok(
      await call("canvas_annotate", {
        canvas_id: canvasId,
        table: "bioactivities",
        smiles_column: "parent_smiles",
        columns: ["qed", "pains", "murcko_scaffold"],
      }),
      "annotate",
    );
    assert.equal(annotated.complete, true);
    // 3. The best scaffolds among alert-free, drug-like rows.
    const sql =
      "SELECT murcko_scaffold, median(pchembl_value) AS median_pchembl, count(*) AS n FROM bioactivities " +
      "WHERE pains_count = 0 AND qed >= 0.5 AND murcko_scaffold <> '' GROUP BY murcko_scaffold ORDER BY median_pchembl DESC, murcko_scaffold LIMIT 5";
    const best = ok(await call("chembl_dataframe_query", { canvas_id: canvasId, sql }), "query");
    const rows = best.rows as Array<{ murcko_scaffold: string; median_pchembl: number; n: number }>;
    assert.ok(rows.length > 0, "some scaffolds qualify");
    // 4. A picture of them, without their SMILES crossing the agent's context.
    const picture = await call("depict", {
      canvas_id: canvasId,
      sql: `SELECT murcko_scaffold AS smiles, 'median pChEMBL ' || round(median(pchembl_value), 2) AS legend FROM bioactivities WHERE pains_count = 0 AND qed >= 0.5 AND murcko_scaffold <> '' GROUP BY murcko_scaffold ORDER BY median(pchembl_value) DESC, murcko_scaffold LIMIT 5`,
    });
    const image = ((picture.result as Result).content ?? []).find((c) => c.type === "image");
    assert.equal(image?.mimeType, "image/png", JSON.stringify(picture).slice(0, 300));
    assert.equal(calls, 4, "the recipe takes 4 calls (at most 6)");

    // Independently: every staged row's parent SMILES and pchembl_value, through native RDKit, grouped here.
    const reason = await nativeRDKitMissing();
    if (reason !== undefined) return skipOracle(t, reason);
    const all = ok(
      await s.modernCall(100, "chembl_dataframe_query", {
        canvas_id: canvasId,
        sql: "SELECT parent_smiles, pchembl_value FROM bioactivities",
        max_rows: 1000,
      }),
      "all rows",
    ).rows as Array<{ parent_smiles: string | null; pchembl_value: number | null }>;
    const withSmiles = all.filter((r) => r.parent_smiles !== null && r.pchembl_value !== null);
    const native = (await oracleOutput({ program: ORACLE }, { input: withSmiles.map((r) => r.parent_smiles).join("\n") + "\n" }))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { qed: number; pains: number; scaffold: string } | null);
    const groups = new Map<string, number[]>();
    withSmiles.forEach((r, i) => {
      const n = native[i];
      if (!n || n.pains !== 0 || n.qed < 0.5 || n.scaffold === "") return;
      groups.set(n.scaffold, [...(groups.get(n.scaffold) ?? []), r.pchembl_value!]);
    });
    const expected = [...groups.entries()]
      .map(([scaffold, values]) => ({ murcko_scaffold: scaffold, median_pchembl: median(values), n: values.length }))
      .sort((a, b) => b.median_pchembl - a.median_pchembl || (a.murcko_scaffold < b.murcko_scaffold ? -1 : a.murcko_scaffold > b.murcko_scaffold ? 1 : 0))
      .slice(0, 5);
    assert.deepEqual(
      rows.map((r) => ({ ...r, median_pchembl: Number(r.median_pchembl.toFixed(6)), n: Number(r.n) })),
      expected.map((r) => ({ ...r, median_pchembl: Number(r.median_pchembl.toFixed(6)) })),
    );
  } finally {
    await s.close();
  }
});
