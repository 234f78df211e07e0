/**
 * Salts and mixtures in the per-molecule property and ADMET tools (issue 13, item 11): a result computed on
 * several disconnected fragments carries a MULTIPLE_FRAGMENTS warning listing them, in structuredContent and
 * in the rendered text; `parent: true` computes on the standardised parent (the standardize tool's default
 * parent) and names it; a single-fragment molecule has no warnings key at all. Every answer is checked
 * against its tool's outputSchema.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, rewrittenSmiles } from "../../src/domain/chem/rdkit.js";
import { createAjv } from "../../src/server/registry.js";
import { admetProfileTool } from "../../src/tools/admet_profile.js";
import { boiledEggTool } from "../../src/tools/boiled_egg.js";
import { calcPropertiesTool } from "../../src/tools/calc_properties.js";
import { lipinskiCheckTool } from "../../src/tools/lipinski_check.js";
import { moleculeContextPackTool } from "../../src/tools/molecule_context_pack.js";
import { saScoreTool } from "../../src/tools/sa_score.js";
import { standardizeTool } from "../../src/tools/standardize.js";
import { druglikenessFiltersTool } from "../../src/tools/druglikeness_filters.js";
import { tanimotoTool } from "../../src/tools/tanimoto.js";
import { matchedPairsTool } from "../../src/tools/matched_pairs.js";
import type { ChemContext, ChemTool } from "../../src/contract/tool.js";
import { oracleFixture } from "../helpers/oracle.js";

const TAMOXIFEN = "CCC(=C(c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1";
const CITRIC_ACID = "O=C(O)CC(O)(CC(=O)O)C(=O)O";
const TAMOXIFEN_CITRATE = `${TAMOXIFEN}.OC(=O)CC(O)(CC(=O)O)C(=O)O`;

type Obj = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const TOOLS: ChemTool<any>[] = [calcPropertiesTool, lipinskiCheckTool, admetProfileTool, boiledEggTool, saScoreTool, moleculeContextPackTool];

async function setup() {
  const rdkit = await loadRDKit();
  const ctx: ChemContext = { rdkit, progress: () => {} };
  const ajv = createAjv();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const run = (tool: ChemTool<any>, args: Obj): Obj => {
    const out = tool.run(args, ctx);
    const validate = ajv.compile(tool.outputSchema);
    assert.ok(validate(out), `${tool.name} ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`);
    return out;
  };
  return { rdkit, ctx, run };
}

test("MULTIPLE_FRAGMENTS: tamoxifen citrate through each of the six tools carries the warning with both fragments", async () => {
  const { run } = await setup();
  for (const tool of TOOLS) {
    assert.ok((tool.inputSchema.properties as Obj).parent, `${tool.name} takes parent`);
    const out = run(tool, { smiles: TAMOXIFEN_CITRATE });
    const warnings = out.warnings as Array<{
      code: string;
      message: string;
      fragment_count: number;
      fragments: Array<{ smiles: string; heavy_atoms: number }>;
    }>;
    assert.equal(warnings.length, 1, tool.name);
    const [w] = warnings;
    assert.equal(w!.code, "MULTIPLE_FRAGMENTS");
    assert.equal(w!.fragment_count, 2);
    assert.deepEqual(w!.fragments, [
      { smiles: TAMOXIFEN, heavy_atoms: 28 },
      { smiles: CITRIC_ACID, heavy_atoms: 13 },
    ]);
    assert.match(w!.message, /parent: true/);
    assert.equal(out.parent_smiles, undefined, `${tool.name}: no parent_smiles without parent: true`);
  }
  // Without parent the values are the whole salt's (what the warning is about).
  assert.equal(run(calcPropertiesTool, { smiles: TAMOXIFEN_CITRATE }).mw, 563.647);
  assert.equal((run(lipinskiCheckTool, { smiles: TAMOXIFEN_CITRATE }).rules as Obj).mw_le_500, false);
});

test("MULTIPLE_FRAGMENTS: the markdown and prompt texts of molecule_context_pack carry the warning and the parent", async () => {
  const { run } = await setup();
  for (const format of ["markdown", "prompt"]) {
    const salt = run(moleculeContextPackTool, { smiles: TAMOXIFEN_CITRATE, format });
    assert.equal((salt.warnings as Obj[]).length, 1);
    const text = String(salt.context);
    assert.match(text, /Warning MULTIPLE_FRAGMENTS: 2 disconnected fragments/, format);
    assert.ok(text.includes(CITRIC_ACID) && text.includes("28 heavy atoms"), `${format}: ${text}`);
    const parent = run(moleculeContextPackTool, { smiles: TAMOXIFEN_CITRATE, format, parent: true });
    assert.equal(parent.warnings, undefined);
    assert.equal(parent.parent_smiles, TAMOXIFEN);
    assert.match(String(parent.context), /Computed on the standardised parent/);
    assert.doesNotMatch(String(parent.context), /MULTIPLE_FRAGMENTS/);
  }
  const plain = run(moleculeContextPackTool, { smiles: TAMOXIFEN, format: "markdown" });
  assert.doesNotMatch(String(plain.context), /## Input/, "a single molecule renders as before");
});

test("parent: true computes on tamoxifen, the standardize tool's parent, with no warning", async () => {
  const { run, ctx } = await setup();
  const standardized = standardizeTool.run({ smiles: TAMOXIFEN_CITRATE }, ctx).parent_smiles;
  assert.equal(standardized, TAMOXIFEN);
  for (const tool of TOOLS) {
    const out = run(tool, { smiles: TAMOXIFEN_CITRATE, parent: true });
    assert.equal(out.parent_smiles, standardized, tool.name);
    assert.equal("warnings" in out, false, `${tool.name}: the parent is one fragment`);
    assert.deepEqual(
      { ...out, parent_smiles: undefined },
      { ...run(tool, { smiles: TAMOXIFEN }), parent_smiles: undefined },
      `${tool.name} equals tamoxifen's answer`,
    );
  }
  const props = run(calcPropertiesTool, { smiles: TAMOXIFEN_CITRATE, parent: true });
  assert.equal(props.mw, 371.524);
  const lipinski = run(lipinskiCheckTool, { smiles: TAMOXIFEN_CITRATE, parent: true });
  assert.equal((lipinski.rules as Obj).mw_le_500, true, "tamoxifen is under 500 g/mol");
  assert.equal(lipinski.passes_ro5, true, "one violation (logP 6.0 > 5): passes Lipinski's criterion");
  assert.equal(lipinski.violations, 1);
  assert.equal(run(admetProfileTool, { smiles: TAMOXIFEN_CITRATE, parent: true }).mw, 371.52);
  // A parent that itself neutralises: sodium benzoate -> benzoic acid.
  const benzoate = run(calcPropertiesTool, { smiles: "[Na+].[O-]C(=O)c1ccccc1", parent: true });
  assert.equal(benzoate.parent_smiles, "O=C(O)c1ccccc1");
  assert.equal(benzoate.formula, "C7H6O2");
});

test("parent: true: the MW equals native RDKit's Descriptors.MolWt of rdMolStandardize.ChargeParent", async () => {
  // Native RDKit 2022.09's parent SMILES and MolWt: a fixture (scripts/make-oracle-fixtures.py), the input being fixed.
  const [smiles, mw] = oracleFixture("molecule-input-charge-parent", { args: [TAMOXIFEN_CITRATE] })
    .trim()
    .split(" ");
  const { run } = await setup();
  const out = run(calcPropertiesTool, { smiles: TAMOXIFEN_CITRATE, parent: true });
  assert.equal(out.parent_smiles, smiles);
  assert.equal(out.mw, Math.round(Number(mw) * 1000) / 1000);
});

test("a single-fragment molecule has no warnings key at all, and parent_smiles only with parent: true", async () => {
  const { run } = await setup();
  for (const tool of TOOLS) {
    const out = run(tool, { smiles: "CC(=O)Oc1ccccc1C(=O)O" });
    assert.equal("warnings" in out, false, tool.name);
    assert.equal("parent_smiles" in out, false, tool.name);
    const withParent = run(tool, { smiles: "CC(=O)Oc1ccccc1C(=O)O", parent: true });
    assert.equal(withParent.parent_smiles, "CC(=O)Oc1ccccc1C(=O)O", tool.name);
    assert.equal("warnings" in withParent, false, tool.name);
  }
});

test("MULTIPLE_FRAGMENTS lists copies once with their count, the largest fragment first", async () => {
  const { run } = await setup();
  const out = run(calcPropertiesTool, { smiles: "[Na+].[Na+].O=C([O-])C(=O)[O-]" });
  const [w] = out.warnings as Array<{ fragment_count: number; fragments: Obj[] }>;
  assert.equal(w!.fragment_count, 3);
  assert.deepEqual(w!.fragments, [
    { smiles: "O=C([O-])C(=O)[O-]", heavy_atoms: 6 },
    { smiles: "[Na+]", heavy_atoms: 1, count: 2 },
  ]);
});

test("MULTIPLE_FRAGMENTS reads the structure, not the dots: C1.C1 is ethane, one fragment", async () => {
  const { run } = await setup();
  const out = run(calcPropertiesTool, { smiles: "C1.C1" });
  assert.equal("warnings" in out, false);
  assert.equal(out.formula, "C2H6");
});

test("a parent that is a bare ion or has no carbon is said: METAL_COMPLEX_KEPT when the input holds a metal (it is then its own parent), INORGANIC_PARENT otherwise; on every tool with parent: true and in standardize", async () => {
  const { run, rdkit } = await setup();
  // A metal salt or complex whose parent would be the bare metal ion (issue 34 item 6): computed as itself.
  for (const salt of ["CC(=O)[O-].CC(=O)[O-].[Zn+2]", "[Na+].[Cl-]", "O.O.[Cu+2].[O-]S(=O)(=O)[O-]"]) {
    const itself = rewrittenSmiles(rdkit, salt);
    for (const tool of TOOLS) {
      const out = run(tool, { smiles: salt, parent: true });
      const codes = ((out.warnings as Obj[] | undefined) ?? []).map((w) => w.code);
      assert.ok(codes.includes("METAL_COMPLEX_KEPT") && !codes.includes("INORGANIC_PARENT"), `${tool.name} ${salt}: ${JSON.stringify(out.warnings)}`);
      assert.equal(out.parent_smiles, itself, `${tool.name} ${salt}`);
    }
    const std = run(standardizeTool, { smiles: salt });
    assert.equal(std.parent_smiles, itself);
    assert.ok(
      (std.warnings as string[]).some((w) => w.startsWith("METAL_COMPLEX_KEPT: ")),
      `${salt}: ${JSON.stringify(std.warnings)}`,
    );
  }
  // No metal: the parent stands, and INORGANIC_PARENT says it is no organic molecule.
  for (const salt of ["[NH4+].[Cl-]", "[NH4+].[NH4+].[O-]S(=O)(=O)[O-]"]) {
    for (const tool of TOOLS) {
      const out = run(tool, { smiles: salt, parent: true });
      const warning = ((out.warnings as Obj[] | undefined) ?? []).find((w) => w.code === "INORGANIC_PARENT");
      assert.ok(warning, `${tool.name} ${salt}: ${JSON.stringify(out.warnings)}`);
      assert.match(String(warning.message), new RegExp(`parent ${String(out.parent_smiles).replace(/[[\]+()]/g, "\\$&")} is a bare ion or has no carbon`));
    }
    const std = run(standardizeTool, { smiles: salt });
    assert.ok(
      (std.warnings as string[]).some((w) => w.startsWith("INORGANIC_PARENT: ")),
      `${salt}: ${JSON.stringify(std.warnings)}`,
    );
  }
  // An organic parent says nothing; a call without parent: true gets MULTIPLE_FRAGMENTS, and for a salt with no
  // carbon at all INORGANIC_PARENT of the input itself.
  for (const tool of TOOLS) {
    const organic = run(tool, { smiles: "CC(=O)Oc1ccccc1C(=O)[O-].[Na+]", parent: true });
    assert.equal(organic.warnings, undefined, tool.name);
    const whole = run(tool, { smiles: "[Na+].[Cl-]" });
    assert.deepEqual(
      ((whole.warnings as Obj[]) ?? []).map((w) => w.code),
      ["MULTIPLE_FRAGMENTS", "INORGANIC_PARENT"],
      tool.name,
    );
  }
  assert.deepEqual(run(standardizeTool, { smiles: "CC(=O)Oc1ccccc1C(=O)[O-].[Na+]" }).warnings, []);
});

test("numbers that mean little say so: RADICAL, ORGANOMETALLIC and INORGANIC_PARENT on every per-molecule tool (issue 36 item 5)", async () => {
  const { run } = await setup();
  const cases: Array<[string, string]> = [
    ["[CH3]", "RADICAL"],
    ["C[CH2]", "RADICAL"],
    ["CC1(C)CCCC(C)(C)N1[O]", "RADICAL"],
    ["C[Mg]Br", "ORGANOMETALLIC"],
    ["CC[Zn]CC", "ORGANOMETALLIC"],
    ["[Li]c1ccccc1", "ORGANOMETALLIC"],
    ["[Xe]", "INORGANIC_PARENT"],
    ["O", "INORGANIC_PARENT"],
    ["N", "INORGANIC_PARENT"],
  ];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  for (const tool of [...TOOLS, druglikenessFiltersTool as unknown as ChemTool<any>]) {
    for (const [smiles, code] of cases) {
      const out = run(tool, { smiles });
      const codes = ((out.warnings as Obj[] | undefined) ?? []).map((w) => w.code);
      assert.deepEqual(codes, [code], `${tool.name} ${smiles}: ${JSON.stringify(out.warnings)}`);
    }
    // Closed-shell organic molecules, organosilicon and organoboron, and carbon bonded to a metal only through O: nothing.
    for (const smiles of ["CCO", "C[Si](C)(C)C", "OB(O)c1ccccc1", "CC(=O)O[Na]", "[13CH4]", "C[N+](C)(C)C"]) {
      const out = run(tool, { smiles });
      assert.equal(out.warnings, undefined, `${tool.name} ${smiles}: ${JSON.stringify(out.warnings)}`);
    }
  }
});

test("tools that compare molecules compare a salt as its parent and say so: tanimoto and matched_pairs (issue 36 item 5)", async () => {
  const { run } = await setup();
  const aspirin = "CC(=O)Oc1ccccc1C(=O)O";
  const pair = run(tanimotoTool, { smiles1: aspirin, smiles2: "CC(=O)Oc1ccccc1C(=O)[O-].[Na+]" });
  assert.equal(pair.similarity, 1, "aspirin against its sodium salt is aspirin against aspirin");
  const [warning] = pair.warnings as Obj[];
  assert.equal(warning!.code, "SALT_STANDARDISED");
  assert.deepEqual(warning!.inputs, [{ argument: "smiles2", parent_smiles: aspirin }]);
  const plain = run(tanimotoTool, { smiles1: aspirin, smiles2: "CC(=O)Oc1ccccc1C(=O)OC" });
  assert.equal(plain.warnings, undefined, "single fragments are compared as given");
  const bulk = run(tanimotoTool, { smiles: aspirin, smiles_list: ["CC(=O)Oc1ccccc1C(=O)[O-].[K+]", "c1ccccc1"] });
  assert.equal((bulk.results as Obj[])[0]!.similarity, 1);
  assert.equal((bulk.warnings as Obj[])[0]!.count, 1);
  const acids = ["OC(=O)c1ccccc1Cl", "OC(=O)c1ccccc1F", "[O-]C(=O)c1ccccc1Br.[Na+]", "[O-]C(=O)c1ccccc1C.[K+]"];
  const mmp = run(matchedPairsTool, { smiles_list: acids });
  assert.equal(mmp.total_pairs, 6, "the two salts pair with the two acids and with each other");
  const mw = (mmp.warnings as Obj[])[0]!;
  assert.equal(mw.code, "SALT_STANDARDISED");
  assert.deepEqual(
    (mw.inputs as Obj[]).map((i) => i.argument),
    ["smiles_list[2]", "smiles_list[3]"],
  );
});
