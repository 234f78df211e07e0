/**
 * Inputs beyond SMILES (issue 14, item 4): the `smiles` argument and each `smiles_list` entry also take a
 * molblock (V2000/V3000) or CXSMILES, read through the same parse as SMILES; results name `input_format`
 * only then; `sdf` is a list source on every list-taking tool; an InChI answers INVALID_SMILES pointing at
 * name_to_smiles. Molblocks here are written by this process's own WASM RDKit (the native-RDKit comparison
 * over ~500 molecules is molblock-roundtrip.oracle.test.ts).
 */
import { INSTRUCTIONS } from "../../src/server/server.js";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import { silentLogger } from "../../src/logger.js";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { inputFormatOf, splitSdf } from "../../src/domain/chem/input-format.js";
import type { ToolOutcome } from "../../src/server/shape.js";

const pool = new WorkerPool({ size: 2 });
const server = new McpServer({ tools: allTools({}), pool, info: { name: "chematic-mcp", version: "test" }, logger: silentLogger });
after(() => pool.close());
let rdkit: RDKit;
before(async () => {
  rdkit = await loadRDKit();
});

const call = (name: string, args: Record<string, unknown>) => server.runTool(name, args, { signal: new AbortController().signal });

function value(outcome: ToolOutcome): Record<string, unknown> {
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}
function error(outcome: ToolOutcome): { code: string; message: string; hint: string; details: Record<string, unknown> } {
  assert.ok(!outcome.ok, `expected an error, got ${JSON.stringify(outcome.ok ? outcome.value : null).slice(0, 200)}`);
  return outcome.error;
}

/** Molblocks of a SMILES written by our WASM RDKit: V2000 and V3000. */
function molblocks(smiles: string): { v2000: string; v3000: string } {
  const mol = rdkit.get_mol(smiles)!;
  try {
    return { v2000: mol.get_molblock(), v3000: mol.get_v3Kmolblock() };
  } finally {
    mol.delete();
  }
}

function sdfRecord(smiles: string, title: string, props: Record<string, string>): string {
  const block = molblocks(smiles).v2000.replace(/^[^\n]*/, title);
  return `${block}${Object.entries(props)
    .map(([k, v]) => `> <${k}>\n${v}\n\n`)
    .join("")}$$$$\n`;
}

test("format detection: a molblock by its M  END line, CXSMILES by a |...| block after whitespace, anything else SMILES", () => {
  const { v2000, v3000 } = molblocks("CCO");
  assert.equal(inputFormatOf(v2000), "molblock");
  assert.equal(inputFormatOf(v3000), "molblock");
  assert.equal(inputFormatOf(v2000.replace(/\n/g, "\r\n")), "molblock");
  assert.equal(inputFormatOf("C[C@H](F)Cl |&1:1|"), "cxsmiles");
  assert.equal(inputFormatOf("CCO |$A;B;C$|"), "cxsmiles");
  for (const smiles of ["CCO", "CCO ethanol", "C|C", "CCO M  END", "[Na+].[Cl-]", "InChI=1S/CH4/h1H4"]) assert.equal(inputFormatOf(smiles), "smiles", smiles);
});

test("a molblock (V2000, V3000) or CXSMILES gives its SMILES's answer, plus input_format; a SMILES answer has no input_format", async () => {
  const cases = ["CC(=O)Oc1ccccc1C(=O)O", "C[C@H](N)C(=O)O", "C[N+](C)(C)C.[Cl-]", "F/C=C/F"];
  for (const smiles of cases) {
    const { v2000, v3000 } = molblocks(smiles);
    for (const tool of ["calc_properties", "parse_smiles", "lipinski_check", "standardize", "sa_score", "pains_check", "admet_profile"]) {
      const plain = value(await call(tool, { smiles }));
      assert.ok(!("input_format" in plain), `${tool}: no input_format for SMILES`);
      for (const [format, input] of [
        ["molblock", v2000],
        ["molblock", v3000],
      ] as const) {
        assert.deepEqual(value(await call(tool, { smiles: input })), { ...plain, input_format: format }, `${tool} ${smiles} ${format}`);
      }
    }
    const canonical = value(await call("canonical_smiles", { smiles }));
    assert.deepEqual(value(await call("canonical_smiles", { smiles: v3000 })), { canonical: canonical.canonical, input_format: "molblock" });
  }
  const cx = value(await call("canonical_smiles", { smiles: "C[C@H](F)Cl |&1:1|" }));
  assert.deepEqual(cx, { canonical: "C[C@H](F)Cl", input_format: "cxsmiles" });
  assert.equal(value(await call("calc_properties", { smiles: "CCO |$A;B;C$|" })).input_format, "cxsmiles");
});

test("a molblock entry of smiles_list is named in its item by its title, not echoed whole", async () => {
  const { v2000 } = molblocks("CCO");
  const titled = v2000.replace(/^[^\n]*/, "ethanol");
  const answer = value(await call("parse_smiles", { smiles_list: [v2000, titled, "CCO", "C[C@H](F)Cl |&1:1|"], fields: ["smiles"], echo_input: true }));
  const results = answer.results as Array<{ input: string; result: { smiles: string } }>;
  assert.deepEqual(
    results.map((r) => [r.input, r.result.smiles]),
    [
      ["molblock (no title)", "CCO"],
      ["molblock: ethanol", "CCO"],
      ["CCO", "CCO"],
      ["C[C@H](F)Cl |&1:1|", "C[C@H](F)Cl"],
    ],
  );
});

test("a molblock keeps its own atom order: smarts_match indices are the molblock's atoms", async () => {
  // OCC written as a molblock: atom 0 is the oxygen (canonical SMILES CCO puts it last).
  const { v2000 } = molblocks("OCC");
  const matched = value(await call("smarts_match", { smarts: "[OX2H]", smiles: v2000 }));
  assert.deepEqual(matched.atom_maps, [[0]]);
  assert.deepEqual(value(await call("smarts_match", { smarts: "[OX2H]", smiles: "OCC" })).atom_maps, [[0]]);
  assert.deepEqual(value(await call("smarts_match", { smarts: "[OX2H]", smiles: "CCO" })).atom_maps, [[2]]);
  assert.equal(matched.input_format, "molblock");
});

test("a molblock salt: MULTIPLE_FRAGMENTS warning and parent: true as for its SMILES", async () => {
  const smiles = "CC(=O)[O-].[Na+]";
  const { v2000 } = molblocks(smiles);
  const plain = value(await call("calc_properties", { smiles }));
  assert.ok(Array.isArray(plain.warnings));
  assert.deepEqual(value(await call("calc_properties", { smiles: v2000 })), { ...plain, input_format: "molblock" });
  const parent = value(await call("calc_properties", { smiles, parent: true }));
  assert.deepEqual(value(await call("calc_properties", { smiles: v2000, parent: true })), { ...parent, input_format: "molblock" });
  // Explicit hydrogens in a molblock are removed, as native RDKit's MolFromMolBlock does.
  const withHs = rdkit.get_mol("[H]OC([H])([H])[H]", JSON.stringify({ removeHs: false }))!;
  const block = withHs.get_molblock();
  withHs.delete();
  assert.equal(value(await call("parse_smiles", { smiles: block })).smiles, "CO");
});

test("an InChI answers INVALID_SMILES with a hint to resolve it with name_to_smiles", async () => {
  const e = error(await call("calc_properties", { smiles: "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3" }));
  assert.equal(e.code, "INVALID_SMILES");
  assert.match(e.message, /InChI/);
  assert.match(e.hint, /name_to_smiles/);
});

test("bad molblocks answer INVALID_SMILES: an unknown element, a broken atom block, two records in one smiles", async () => {
  const { v2000 } = molblocks("CCO");
  const unknown = error(await call("parse_smiles", { smiles: v2000.replace(" O   0", " Xx  0") }));
  assert.equal(unknown.code, "INVALID_SMILES");
  assert.equal(unknown.details.input_format, "molblock");
  assert.match(unknown.message, /Xx/);
  const broken = error(await call("parse_smiles", { smiles: v2000.replace(/\n {4}[-0-9]/, "\nxx") }));
  assert.equal(broken.code, "INVALID_SMILES");
  const two = error(await call("parse_smiles", { smiles: `${v2000}$$$$\n${v2000}` }));
  assert.equal(two.code, "INVALID_SMILES");
  assert.match(two.hint, /sdf/);
});

test("sizes: a molblock past 100,000 characters is read; a SMILES past it is INVALID_ARGUMENTS; a molblock declaring too many atoms is MOLECULE_TOO_LARGE", async () => {
  // A 2,400-atom chain as a V3000 block written by hand (RDKit's writer lays out 2D coordinates first, which takes
  // seconds for a long chain and is not what is tested here).
  const n = 2_400;
  const atoms = Array.from({ length: n }, (_, i) => `M  V30 ${i + 1} C ${(i * 1.5).toFixed(4)} 0 0 0`);
  const bonds = Array.from({ length: n - 1 }, (_, i) => `M  V30 ${i + 1} 1 ${i + 1} ${i + 2}`);
  const chain = [
    "",
    "  hand-written",
    "",
    "  0  0  0  0  0  0  0  0  0  0999 V3000",
    "M  V30 BEGIN CTAB",
    `M  V30 COUNTS ${n} ${n - 1} 0 0 0`,
    "M  V30 BEGIN ATOM",
    ...atoms,
    "M  V30 END ATOM",
    "M  V30 BEGIN BOND",
    ...bonds,
    "M  V30 END BOND",
    "M  V30 END CTAB",
    "M  END",
    "",
  ].join("\n");
  assert.ok(chain.length > 100_000, `${chain.length}`);
  const parsed = value(await call("parse_smiles", { smiles: chain }));
  assert.equal(parsed.atoms, n);
  const long = error(await call("parse_smiles", { smiles: `${"C".repeat(100_001)}` }));
  assert.equal(long.code, "INVALID_ARGUMENTS");
  // The counts line is read before RDKit builds anything: a small V3000 block declaring 5,000 atoms is refused by it.
  const declared = molblocks("CCO").v3000.replace("COUNTS 3 2", "COUNTS 5000 2");
  const refused = error(await call("retrosynthesis", { smiles: declared }));
  assert.equal(refused.code, "MOLECULE_TOO_LARGE");
  assert.equal(refused.details.atom_count_estimate, 5000);
});

test("generate_3d on a molblock names the structure by its canonical SMILES in the XYZ comment", async () => {
  const { v2000 } = molblocks("OCC");
  const out = value(await call("generate_3d", { smiles: v2000 }));
  assert.equal((out.xyz as string).split("\n")[1], "CCO");
  assert.equal(out.input_format, "molblock");
});

test("sdf: one entry a record, input its title (or 'sdf record N'), its data items as properties; a bad record is an error entry", async () => {
  const sdf =
    sdfRecord("CCO", "ethanol", { ID: "E1", note: "two\nlines" }) +
    sdfRecord("c1ccccc1", "", {}) +
    "broken\n  no counts line\n\n$$$$\n" +
    sdfRecord("CC(=O)O", "acetic acid", { ID: "A3" });
  assert.equal(splitSdf(sdf).length, 4);
  const answer = value(await call("calc_properties", { sdf, echo_input: true }));
  const results = answer.results as Array<Record<string, unknown>>;
  assert.deepEqual(answer.summary, { count: 4, succeeded: 3, failed: 1 });
  assert.deepEqual(
    results.map((r) => [r.index, r.input, r.properties]),
    [
      [0, "ethanol", { ID: "E1", note: "two\nlines" }],
      [1, "sdf record 2", undefined],
      [2, "broken", undefined],
      [3, "acetic acid", { ID: "A3" }],
    ],
  );
  const single = value(await call("calc_properties", { smiles: "CCO" }));
  assert.deepEqual(results[0]!.result, { ...single, input_format: "molblock" });
  assert.equal((results[2]!.error as { code: string }).code, "INVALID_SMILES");
  // Without echo_input a record keeps its title, not its data items (the caller holds its own file).
  const plain = value(await call("calc_properties", { sdf }));
  assert.deepEqual(
    (plain.results as Array<Record<string, unknown>>).map((r) => [r.index, r.input, r.properties]),
    [
      [0, "ethanol", undefined],
      [1, "sdf record 2", undefined],
      [2, "broken", undefined],
      [3, "acetic acid", undefined],
    ],
  );
  const trimmed = value(await call("calc_properties", { sdf, fields: ["mw"] }));
  assert.deepEqual((trimmed.results as Array<Record<string, unknown>>)[0]!.result, { mw: single.mw });
});

test("sdf is exclusive with smiles and smiles_list, holds at most the tool's maxItems records, and is offered by every list tool", async () => {
  const one = sdfRecord("CCO", "ethanol", {});
  for (const args of [{ sdf: one, smiles: "CCO" }, { sdf: one, smiles_list: ["CCO"] }, { sdf: "" }]) {
    assert.equal(error(await call("calc_properties", args)).code, "INVALID_ARGUMENTS", JSON.stringify(args).slice(0, 80));
  }
  const many = error(await call("retrosynthesis", { sdf: one.repeat(51) }));
  assert.equal(many.code, "INVALID_ARGUMENTS");
  assert.match(many.message, /51 records/);
  const noRecord = error(await call("calc_properties", { sdf: "\n\n" }));
  assert.equal(noRecord.code, "INVALID_ARGUMENTS");
  let listTools = 0;
  for (const tool of server.registry.tools()) {
    const input = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string; maxLength?: number }>;
    if (tool.kind === "chem" && tool.list) {
      listTools++;
      assert.ok("sdf" in input, `${tool.name} takes sdf`);
    }
    if (tool.kind !== "chem" || !input.smiles) continue;
    // The formats a molecule argument reads are said once, in the server instructions (every tool's tools/list bytes count).
    assert.ok((input.smiles.description ?? "").length > 0, `${tool.name}: the smiles argument is described`);
    assert.equal(input.smiles.maxLength, 256 * 1024, tool.name);
    if (input.smiles1 === undefined) {
      const output = JSON.stringify(tool.outputSchema);
      assert.match(output, /"input_format"/, `${tool.name}: input_format in its output schema`);
    }
  }
  assert.match(INSTRUCTIONS, /SMILES, CXSMILES or a molblock/);
  // 17, plus murcko_scaffold, druglikeness_filters and enumerate_stereoisomers (issue 16).
  assert.equal(listTools, 20);
});

test("tanimoto ranks sdf records as candidates (named by title), and find_mcs takes its molecules as sdf", async () => {
  const sdf = sdfRecord("c1ccccc1O", "phenol", { ID: "P" }) + sdfRecord("CCCCCC", "", {}) + "no molblock here\n$$$$\n" + sdfRecord("c1ccccc1N", "aniline", {});
  const ranked = value(await call("tanimoto", { smiles: "c1ccccc1O", sdf }));
  const fromList = value(await call("tanimoto", { smiles: "c1ccccc1O", smiles_list: ["c1ccccc1O", "CCCCCC", "C1CC", "c1ccccc1N"] }));
  const hits = ranked.results as Array<{ index: number; title?: string; similarity: number }>;
  assert.deepEqual(
    hits.map((h) => [h.index, h.title, h.similarity]),
    (fromList.results as Array<{ index: number; similarity: number }>).map((h) => [
      h.index,
      ["phenol", undefined, undefined, "aniline"][h.index],
      h.similarity,
    ]),
  );
  assert.equal(ranked.invalid_count, 1);
  assert.deepEqual(
    (ranked.invalid as Array<{ index: number; code: string }>).map((e) => [e.index, e.code]),
    [[2, "INVALID_SMILES"]],
  );
  assert.equal(error(await call("tanimoto", { smiles: "CCO", sdf, smiles_list: ["CCO"] })).code, "INVALID_ARGUMENTS");

  const mcsSdf = sdfRecord("c1ccccc1CCO", "a", {}) + sdfRecord("c1ccccc1CCN", "b", {});
  const mcs = value(await call("find_mcs", { sdf: mcsSdf }));
  assert.deepEqual(mcs, value(await call("find_mcs", { smiles_list: ["c1ccccc1CCO", "c1ccccc1CCN"] })));
  assert.equal(error(await call("find_mcs", { sdf: sdfRecord("CCO", "one", {}) })).code, "INVALID_ARGUMENTS");
  assert.equal(error(await call("find_mcs", { sdf: mcsSdf, smiles_list: ["CCO", "CCN"] })).code, "INVALID_ARGUMENTS");
});
