/** representation_router: the task table, the extra formats, the size limits and their fallbacks. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { molJsonToSmiles, validateMolJson } from "../../src/domain/chem/moljson.js";
import { COORDS_MAX_ATOMS, INCHI_MAX_ATOMS, TASKS, TASK_FORMATS } from "../../src/domain/chem/representations.js";
import { MOLJSON_OUTPUT_MAX_ATOMS } from "../../src/domain/chem/moljson.js";
import { representationRouterTool } from "../../src/tools/representation_router.js";
import { smilesToMoljsonTool } from "../../src/tools/smiles_to_moljson.js";
import { createAjv } from "../../src/server/registry.js";

const ctx = (rdkit: RDKit) => ({ rdkit, progress: () => {} });
const validOutput = createAjv().compile(representationRouterTool.outputSchema);

function route(rdkit: RDKit, args: Record<string, unknown>): Record<string, unknown> {
  const out = representationRouterTool.run(args as never, ctx(rdkit));
  assert.ok(validOutput(out), JSON.stringify(validOutput.errors));
  return out;
}

const ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O";

test("each task gets the reference's format (structural_reasoning/shortest_path MolJSON, identification InChI, editing CML, else SMILES)", async () => {
  const rdkit = await loadRDKit();
  const expected: Record<string, string> = {
    structural_reasoning: "moljson",
    shortest_path: "moljson",
    identification: "inchi",
    property_prediction: "canonical_smiles",
    generation: "canonical_smiles",
    editing: "cml",
    default: "canonical_smiles",
  };
  assert.deepEqual(Object.fromEntries(TASKS.map((t) => [t, TASK_FORMATS[t].format])), expected);
  for (const task of TASKS) {
    const out = route(rdkit, { smiles: "OC(=O)c1ccccc1OC(C)=O", task });
    assert.equal(out.task, task);
    assert.equal(out.format, expected[task]);
    assert.equal(typeof out.reason, "string");
    assert.equal(out.representations, undefined, "no extra formats unless asked");
    const rep = out.representation as string;
    if (out.format === "canonical_smiles") assert.equal(rep, ASPIRIN);
    if (out.format === "inchi") assert.equal(rep, "InChI=1S/C9H8O4/c1-6(10)13-8-5-3-2-4-7(8)9(11)12/h2-5H,1H3,(H,11,12)");
    if (out.format === "cml") assert.match(rep, /^<\?xml[^]*<molecule xmlns="http:\/\/www.xml-cml.org\/schema"[^]*<\/molecule>\n$/);
    if (out.format === "moljson") {
      const fromTool = smilesToMoljsonTool.run({ smiles: "OC(=O)c1ccccc1OC(C)=O" }, ctx(rdkit)).moljson;
      assert.deepEqual(JSON.parse(rep), fromTool);
    }
  }
  assert.equal(route(rdkit, { smiles: ASPIRIN }).task, "default");
});

test("formats: all gives every representation, consistent with each other", async () => {
  const rdkit = await loadRDKit();
  const out = route(rdkit, { smiles: "C[C@H](N)C(=O)O", task: "identification", formats: ["all"] });
  const reps = out.representations as Record<string, unknown>;
  assert.deepEqual(Object.keys(reps).sort(), ["canonical_smiles", "cml", "inchi", "inchikey", "molblock", "moljson"]);
  assert.equal(reps.canonical_smiles, "C[C@H](N)C(=O)O");
  assert.equal(reps.inchi, "InChI=1S/C3H7NO2/c1-2(4)3(5)6/h2H,4H2,1H3,(H,5,6)/t2-/m0/s1");
  assert.equal(reps.inchikey, "QNAYBMKLOCPYGJ-REOHCLBHSA-N");
  assert.equal(out.representation, reps.inchi);
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(reps.moljson)), reps.canonical_smiles);
  assert.match(reps.molblock as string, /V2000[^]*M {2}END/);
  assert.doesNotMatch(reps.cml as string, /x2=/, "no coordinates by default");
  const withCoords = route(rdkit, { smiles: "C[C@H](N)C(=O)O", formats: ["cml"], coordinates: true }).representations as Record<string, string>;
  assert.match(withCoords.cml!, /x2="-?\d+\.\d{4}" y2="-?\d+\.\d{4}"/);
  assert.match(withCoords.cml!, /<bondStereo>[WH]<\/bondStereo>/, "the stereocentre's wedge from RDKit's depiction");
  const some = route(rdkit, { smiles: ASPIRIN, formats: ["inchikey", "molblock"] }).representations as Record<string, unknown>;
  assert.deepEqual(Object.keys(some).sort(), ["inchikey", "molblock"]);
  assert.equal(some.inchikey, "BSYNRYMUTXBXSQ-UHFFFAOYSA-N");
});

test("beyond the limits a format is null with a note; identification falls back to canonical SMILES", async () => {
  const rdkit = await loadRDKit();
  const dummy = route(rdkit, { smiles: "*c1ccccc1", task: "identification", formats: ["inchi", "inchikey"] });
  assert.equal(dummy.format, "canonical_smiles");
  assert.equal(dummy.representation, "*c1ccccc1");
  assert.deepEqual(dummy.representations, { inchi: null, inchikey: null });
  assert.ok((dummy.notes as string[]).length > 0);

  const ions = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? "[Cl-]" : "[Na+]")).join(".");
  const overInchi = route(rdkit, { smiles: ions(INCHI_MAX_ATOMS + 2), task: "identification" });
  assert.equal(overInchi.format, "canonical_smiles");
  assert.match((overInchi.notes as string[])[0]!, /InChI is not computed/);

  const overCoords = route(rdkit, { smiles: ions(COORDS_MAX_ATOMS + 2), formats: ["molblock", "cml"], coordinates: true });
  const reps = overCoords.representations as Record<string, string | null>;
  assert.equal(reps.molblock, null);
  assert.ok(typeof reps.cml === "string" && !reps.cml.includes("x2="), "CML without coordinates");

  const overGraph = route(rdkit, { smiles: ions(MOLJSON_OUTPUT_MAX_ATOMS + 2), task: "structural_reasoning", formats: ["moljson"] });
  assert.equal(overGraph.format, "canonical_smiles");
  assert.equal((overGraph.representations as Record<string, unknown>).moljson, null);
});

test("a reply that would pass the 1 MiB response limit drops its largest extra representations, with a note", async () => {
  const rdkit = await loadRDKit();
  const smiles = Array(117).fill("C/C=C/[C@H](N)C(=O)Oc1ccccc1C(=O)O").join("."); // 1,989 atoms
  const out = route(rdkit, { smiles, formats: ["moljson", "cml", "canonical_smiles"] });
  const reps = out.representations as Record<string, unknown>;
  assert.ok(Buffer.byteLength(JSON.stringify(out)) <= 480_000);
  assert.equal(reps.cml, null);
  assert.ok(reps.moljson !== null && reps.canonical_smiles !== null);
  assert.ok((out.notes as string[]).some((n) => n.startsWith("cml was left out")));
});
