/**
 * depict's grid form (smiles_list): one PNG image block (IHDR cols*sub_width x rows*sub_height, every
 * cell inked) or one SVG with a nested drawing per cell; legends; marked cells for entries that do not
 * parse; align_smarts puts the matched core at the template's coordinates (checked in molblocks after
 * alignment); limits (49 entries, legends length, pixel cap, the response budget); no WASM leak; both
 * protocol eras through McpServer, and the wire through a server process.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit, parseSmiles, wasmHeapBytes, withQuery, type RDKitMol } from "../../src/domain/chem/rdkit.js";
import { GRID_MAX_PIXELS, alignToSmarts, cellDrawOptions, drawGrid } from "../../src/domain/chem/grid.js";
import { drawSvg, rasterise } from "../../src/domain/chem/depict.js";
import { depictTool } from "../../src/tools/depict.js";
import { EXTRA_CONTENT_KEY, type ContentBlock } from "../../src/contract/tool.js";
import { MAX_ANSWER_BYTES, MAX_RESPONSE_BYTES } from "../../src/contract/limits.js";
import { createAjv, describeIssues } from "../../src/server/registry.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { shapeOutcome } from "../../src/server/shape.js";
import { allTools } from "../../src/tools/index.js";
import { silentLogger } from "../../src/logger.js";
import { countPixels, decodePng } from "../helpers/png.js";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";

/** 48 drug-sized molecules (20-41 heavy atoms), the grid's largest ordinary use. */
const DRUGS: [string, string][] = [
  ["imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"],
  ["atorvastatin", "CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)O"],
  ["sildenafil", "CCCc1nn(C)c2c(=O)[nH]c(-c3cc(S(=O)(=O)N4CCN(C)CC4)ccc3OCC)nc12"],
  ["celecoxib", "Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1"],
  ["gefitinib", "COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1"],
  ["erlotinib", "COCCOc1cc2ncnc(Nc3cccc(C#C)c3)c2cc1OCCOC"],
  ["lapatinib", "CS(=O)(=O)CCNCc1ccc(-c2ccc3ncnc(Nc4ccc(OCc5cccc(F)c5)c(Cl)c4)c3c2)o1"],
  ["sorafenib", "CNC(=O)c1cc(Oc2ccc(NC(=O)Nc3ccc(Cl)c(C(F)(F)F)c3)cc2)ccn1"],
  ["dasatinib", "Cc1nc(Nc2ncc(C(=O)Nc3c(C)cccc3Cl)s2)cc(N2CCN(CCO)CC2)n1"],
  ["nilotinib", "Cc1cn(-c2cc(NC(=O)c3ccc(C)c(Nc4nccc(-c5cccnc5)n4)c3)cc(C(F)(F)F)c2)cn1"],
  ["losartan", "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1"],
  ["valsartan", "CCCCC(=O)N(Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1)[C@@H](C(C)C)C(=O)O"],
  ["clopidogrel", "COC(=O)[C@H](c1ccccc1Cl)N1CCc2sccc2C1"],
  ["rosuvastatin", "CC(C)c1nc(N(C)S(C)(=O)=O)nc(-c2ccc(F)cc2)c1/C=C/[C@@H](O)C[C@@H](O)CC(=O)O"],
  ["omeprazole", "COc1ccc2[nH]c(S(=O)Cc3ncc(C)c(OC)c3C)nc2c1"],
  ["esomeprazole", "COc1ccc2[nH]c([S@@](=O)Cc3ncc(C)c(OC)c3C)nc2c1"],
  ["fluoxetine", "CNCCC(Oc1ccc(C(F)(F)F)cc1)c1ccccc1"],
  ["sertraline", "CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21"],
  ["paroxetine", "Fc1ccc([C@@H]2CCNC[C@H]2COc2ccc3OCOc3c2)cc1"],
  ["citalopram", "CN(C)CCCC1(c2ccc(F)cc2)OCc2cc(C#N)ccc21"],
  ["olanzapine", "Cc1cc2c(s1)Nc1ccccc1N=C2N1CCN(C)CC1"],
  ["quetiapine", "OCCOCCN1CCN(C2=Nc3ccccc3Sc3ccccc32)CC1"],
  ["risperidone", "Cc1nc2n(c(=O)c1CCN1CCC(c3noc4cc(F)ccc34)CC1)CCCC2"],
  ["aripiprazole", "O=C1CCc2ccc(OCCCCN3CCN(c4cccc(Cl)c4Cl)CC3)cc2N1"],
  ["haloperidol", "O=C(CCCN1CCC(O)(c2ccc(Cl)cc2)CC1)c1ccc(F)cc1"],
  ["diazepam", "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21"],
  ["alprazolam", "Cc1nnc2n1-c1ccc(Cl)cc1C(c1ccccc1)=NC2"],
  ["zolpidem", "Cc1ccc(-c2nc3ccc(C)cn3c2CC(=O)N(C)C)cc1"],
  ["loratadine", "CCOC(=O)N1CCC(=C2c3ccc(Cl)cc3CCc3cccnc32)CC1"],
  ["cetirizine", "OC(=O)COCCN1CCN(C(c2ccccc2)c2ccc(Cl)cc2)CC1"],
  ["montelukast", "CC(C)(O)c1ccccc1CC[C@@H](SCC1(CC(=O)O)CC1)c1cccc(/C=C/c2ccc3ccc(Cl)cc3n2)c1"],
  ["tamoxifen", "CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1"],
  ["raloxifene", "Oc1ccc(-c2sc3cc(O)ccc3c2C(=O)c2ccc(OCCN3CCCCC3)cc2)cc1"],
  ["anastrozole", "CC(C)(C#N)c1cc(Cn2cncn2)cc(C(C)(C)C#N)c1"],
  ["letrozole", "N#Cc1ccc(C(c2ccc(C#N)cc2)n2cncn2)cc1"],
  ["bicalutamide", "CC(O)(CS(=O)(=O)c1ccc(F)cc1)C(=O)Nc1ccc(C#N)c(C(F)(F)F)c1"],
  ["ciprofloxacin", "OC(=O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O"],
  ["levofloxacin", "C[C@H]1COc2c(N3CCN(C)CC3)c(F)cc3c(=O)c(C(=O)O)cn1c23"],
  ["linezolid", "CC(=O)NC[C@H]1CN(c2ccc(N3CCOCC3)c(F)c2)C(=O)O1"],
  ["fluconazole", "OC(Cn1cncn1)(Cn1cncn1)c1ccc(F)cc1F"],
  ["voriconazole", "C[C@@H](c1ncncc1F)[C@](O)(Cn1cncn1)c1ccc(F)cc1F"],
  ["oseltamivir", "CCOC(=O)C1=C[C@@H](OC(CC)CC)[C@H](NC(C)=O)[C@@H](N)C1"],
  ["sitagliptin", "N[C@@H](CC(=O)N1CCn2c(nnc2C(F)(F)F)C1)Cc1cc(F)c(F)cc1F"],
  ["pioglitazone", "CCc1ccc(CCOc2ccc(CC3SC(=O)NC3=O)cc2)nc1"],
  ["glipizide", "Cc1cnc(C(=O)NCCc2ccc(S(=O)(=O)NC(=O)NC3CCCCC3)cc2)cn1"],
  ["warfarin", "CC(=O)CC(c1ccccc1)c1c(O)c2ccccc2oc1=O"],
  ["apixaban", "COc1ccc(-n2nc(C(N)=O)c3c2C(=O)N(c2ccc(N4CCCCC4=O)cc2)CC3)cc1"],
  ["rivaroxaban", "O=C(NC[C@H]1CN(c2ccc(N3CCOCC3=O)cc2)C(=O)O1)c1ccc(Cl)s1"],
];
const NAMES = DRUGS.map(([name]) => name);
const SMILES = DRUGS.map(([, smiles]) => smiles);

type Out = Record<string, unknown> & { [EXTRA_CONTENT_KEY]?: ContentBlock[] };
type Entry = { index: number; input: string; smiles?: string; error?: { code: string; message: string } };

const ctx = async () => ({ rdkit: await loadRDKit(), progress() {} });

function imageOf(out: Out): Buffer {
  const blocks = out[EXTRA_CONTENT_KEY];
  assert.ok(Array.isArray(blocks) && blocks.length === 1, "one image block");
  const block = blocks[0] as { type: string; data: string; mimeType: string };
  assert.equal(block.type, "image");
  assert.equal(block.mimeType, "image/png");
  return Buffer.from(block.data, "base64");
}

/** Width and height from the IHDR chunk, after checking the PNG signature. */
function ihdr(png: Buffer): [number, number] {
  assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  assert.equal(png.toString("latin1", 12, 16), "IHDR");
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

const notWhite = (r: number, g: number, b: number, a: number) => a > 0 && (r < 250 || g < 250 || b < 250);

/** The nested <svg> of each cell, in document order: [id, title, body]. */
function cells(svg: string): [string, string, string][] {
  return [...svg.matchAll(/<svg id='(cell-\d+)'[^>]*><title>([^<]*)<\/title>([\s\S]*?)<\/svg>/g)].map((m) => [m[1]!, m[2]!, m[3]!]);
}

test("depict grid PNG: one image block of cols*sub_width x rows*sub_height, every cell drawn; 48 drug-sized molecules in time", async (t) => {
  const c = await ctx();
  const started = performance.now();
  const out = depictTool.run({ smiles_list: SMILES, legends: NAMES }, c) as Out;
  const ms = performance.now() - started;
  const png = imageOf(out);
  t.diagnostic(`48 drugs, PNG ${out.width}x${out.height}: ${ms.toFixed(0)} ms, ${png.length} bytes (${Math.ceil(png.length / 3) * 4} base64)`);
  assert.ok(ms < 15_000, `well within depict's 30 s budget (${ms.toFixed(0)} ms)`);
  assert.deepEqual([out.rows, out.cols, out.sub_width, out.sub_height, out.count, out.failed], [12, 4, 250, 200, 48, 0]);
  assert.deepEqual(ihdr(png), [1000, 2400]);
  assert.deepEqual([out.width, out.height, out.byte_length, out.mime_type], [1000, 2400, png.length, "image/png"]);
  const img = decodePng(png);
  for (let i = 0; i < 48; i++) {
    const [x0, y0] = [(i % 4) * 250, Math.floor(i / 4) * 200];
    let ink = 0;
    for (let y = y0; y < y0 + 200; y++)
      for (let x = x0; x < x0 + 250; x++)
        if (notWhite(...(Array.from(img.pixels.subarray((y * 1000 + x) * 4, (y * 1000 + x) * 4 + 4)) as [number, number, number, number]))) ink++;
    assert.ok(ink > 1500, `cell ${i} (${NAMES[i]}) is drawn (${ink} inked pixels)`);
  }
  assert.deepEqual(
    (out.entries as Entry[]).map((e) => e.index),
    [...Array(48).keys()],
  );
  // mols_per_row and the cell size: 7 entries, 5 a row, 200x150 cells.
  const small = depictTool.run({ smiles_list: SMILES.slice(0, 7), mols_per_row: 5, sub_width: 200, sub_height: 150 }, c) as Out;
  assert.deepEqual(ihdr(imageOf(small)), [1000, 300]);
  assert.deepEqual([small.rows, small.cols], [2, 5]);
  // Fewer entries than a row: the row is as wide as the entries.
  const two = depictTool.run({ smiles_list: ["CCO", "c1ccccc1"] }, c) as Out;
  assert.deepEqual(ihdr(imageOf(two)), [500, 200]);
  assert.ok(countPixels(decodePng(imageOf(two)), notWhite) > 500);
});

test("depict grid SVG: one nested drawing per cell in input order, legends, marked cells for entries that do not parse", async (t) => {
  const c = await ctx();
  const list = ["CCO", "C1CC", "c1ccccc1O", "C".repeat(201), "CC(=O)Oc1ccccc1C(=O)O"];
  const legends = ["ethanol", "broken ring", "phenol", "too long", "aspirin"];
  const started = performance.now();
  const out = depictTool.run({ smiles_list: list, legends, format: "svg", mols_per_row: 3 }, c) as Out;
  t.diagnostic(`5 entries as SVG: ${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(out[EXTRA_CONTENT_KEY], undefined, "no image block for SVG");
  const svg = out.svg as string;
  assert.match(svg, /^<\?xml[^>]*>\n<svg [^>]*width='750px' height='400px'/);
  assert.equal(out.byte_length, Buffer.byteLength(svg));
  const found = cells(svg);
  assert.deepEqual(
    found.map(([id]) => id),
    ["cell-0", "cell-1", "cell-2", "cell-3", "cell-4"],
  );
  assert.deepEqual(
    found.map(([, title]) => title),
    ["ethanol", "broken ring: invalid SMILES", "phenol", "too long: too large to draw", "aspirin"],
  );
  const entries = out.entries as Entry[];
  assert.deepEqual(
    entries.map((e) => e.smiles ?? e.error?.code),
    ["CCO", "INVALID_SMILES", "Oc1ccccc1", "MOLECULE_TOO_LARGE", "CC(=O)Oc1ccccc1C(=O)O"],
  );
  assert.equal(out.failed, 2);
  // The cells sit on the grid (row floor(i / 3), column i mod 3).
  assert.match(svg, /<svg id='cell-4' x='250' y='200' width='250' height='200'/);
  // Each cell draws its legend (RDKit draws text as paths): without legends every cell is smaller.
  const bare = cells(depictTool.run({ smiles_list: list, format: "svg", mols_per_row: 3 }, c).svg as string);
  found.forEach(([id, , body], i) => assert.ok(body.length > bare[i]![2].length + 500, `${id} draws its legend`));
  // A marked cell draws its reason even without a legend; the styles live in one <style> block.
  assert.ok(bare[1]![2].length > 2000, "the invalid cell says why");
  assert.doesNotMatch(svg, / style='/);
  assert.equal((svg.match(/<style>/g) ?? []).length, 1);
});

test("a grid cell is RDKit's own drawing: styles as shared classes render the same pixels in half the bytes", async () => {
  const { rdkit } = await ctx();
  const smiles = SMILES[0]!;
  const grid = drawGrid(rdkit, [smiles], { subWidth: 250, subHeight: 200, legends: ["imatinib"], highlightSmarts: "c1ccncc1" });
  const own = parseSmiles(rdkit, smiles);
  try {
    const drawing = drawSvg(rdkit, own, {
      width: 250,
      height: 200,
      legend: "imatinib",
      highlightSmarts: "c1ccncc1",
      drawOptions: cellDrawOptions(250, 200),
    });
    const [a, b] = [decodePng(Buffer.from(rasterise(grid.svg))), decodePng(Buffer.from(rasterise(drawing.svg)))];
    assert.deepEqual([a.width, a.height], [b.width, b.height]);
    let differing = 0;
    for (let i = 0; i < a.pixels.length; i++) if (Math.abs(a.pixels[i]! - b.pixels[i]!) > 2) differing++;
    assert.equal(differing, 0, "the same pixels");
    assert.ok(grid.svg.length < 0.6 * drawing.svg.length, `${grid.svg.length} bytes against RDKit's ${drawing.svg.length}`);
  } finally {
    own.delete();
  }
});

test("align_smarts: every matching molecule gets the template's coordinates for the matched core; the others keep their own", async () => {
  const { rdkit } = await ctx();
  const smarts = "c1ccc2[nH]ccc2c1"; // indole
  const list = ["CCO", "CN(C)CCc1c[nH]c2ccc(O)cc12", "NC(Cc1c[nH]c2ccccc12)C(=O)O", "COc1ccc2[nH]cc(CCNC(C)=O)c2c1", "Cc1ccc2[nH]ccc2c1"];
  const mols: RDKitMol[] = list.map((s) => parseSmiles(rdkit, s));
  try {
    const coords = (mol: RDKitMol, atoms: number[]) => {
      const lines = mol.get_molblock().split("\n");
      return atoms.map((a) => lines[4 + a]!.trim().split(/\s+/).slice(0, 2).map(Number));
    };
    const core = (mol: RDKitMol) => withQuery(rdkit, smarts, (q) => (JSON.parse(mol.get_substruct_match(q)) as { atoms: number[] }).atoms);
    const alignment = withQuery(rdkit, smarts, (q) => alignToSmarts(mols, q, smarts));
    assert.deepEqual(alignment, { smarts, aligned: [1, 2, 3, 4], unmatched: [0], template_index: 1 });
    const template = coords(mols[1]!, core(mols[1]!));
    for (const i of [2, 3, 4]) {
      const got = coords(mols[i]!, core(mols[i]!));
      got.forEach(([x, y], k) => {
        assert.ok(
          Math.abs(x! - template[k]![0]!) < 1e-3 && Math.abs(y! - template[k]![1]!) < 1e-3,
          `entry ${i}, core atom ${k}: (${x}, ${y}) vs (${template[k]})`,
        );
      });
    }
    // Alignment moved something: on their own, melatonin's and 5-methylindole's indoles are laid out elsewhere.
    for (const i of [3, 4]) {
      const own = parseSmiles(rdkit, list[i]!);
      try {
        own.set_new_coords();
        assert.notDeepEqual(coords(own, core(own)), template, `entry ${i} on its own`);
      } finally {
        own.delete();
      }
    }
  } finally {
    for (const m of mols) m.delete();
  }
  // Through the tool: the summary says what was aligned, and nothing matched answers no template.
  const c = await ctx();
  const out = depictTool.run({ smiles_list: [...list, "C1CC"], align_smarts: smarts, format: "svg" }, c) as Out;
  assert.deepEqual(out.alignment, { smarts, aligned: [1, 2, 3, 4], unmatched: [0], template_index: 1 });
  const none = depictTool.run({ smiles_list: ["CCO", "CCN"], align_smarts: smarts, format: "svg" }, c) as Out;
  assert.deepEqual(none.alignment, { smarts, aligned: [], unmatched: [0, 1] });
  assert.throws(
    () => depictTool.run({ smiles_list: ["CCO"], align_smarts: "[C" }, c),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_SMARTS" && e.details.argument === "align_smarts",
  );
  const hl = depictTool.run({ smiles_list: ["CCO", "CCN", "C1CC"], highlight_smarts: "[OX2H]", format: "svg" }, c) as Out;
  assert.deepEqual(hl.highlight, { smarts: "[OX2H]", matched: [0] });
});

test("grid limits: 49 entries refused by the schema; the other form's arguments, legends length, pixel cap and response budget are typed errors", async () => {
  const validate = createAjv().compile(depictTool.inputSchema);
  const refused = (args: Record<string, unknown>) => {
    assert.equal(validate(args), false, JSON.stringify(args).slice(0, 80));
    return describeIssues(validate.errors);
  };
  assert.equal(validate({ smiles_list: SMILES }), true);
  assert.equal(validate({ smiles: "CCO", width: 200, legend: "x" }), true);
  assert.deepEqual(refused({ smiles_list: [...SMILES, "CCO"] })[0]?.path, "/smiles_list");
  refused({ smiles: "CCO", smiles_list: ["CCO"] });
  refused({});
  refused({ smiles_list: [] });
  refused({ smiles_list: ["CCO"], mols_per_row: 13 });
  refused({ smiles_list: ["CCO"], sub_width: 99 });
  const c = await ctx();
  // The other form's arguments: refused naming the argument to use, except at their declared defaults (clients that
  // fill every default in send width 400 and sub_width 250 with either form).
  const otherForm = (args: Record<string, unknown>, path: string) =>
    assert.throws(
      () => depictTool.run(args, c),
      (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENTS" && e.details.path === path && /smiles/.test(e.hint),
      JSON.stringify(args),
    );
  otherForm({ smiles: "CCO", legends: ["x"] }, "/legends");
  otherForm({ smiles: "CCO", align_smarts: "c1ccccc1" }, "/align_smarts");
  otherForm({ smiles: "CCO", sub_width: 300 }, "/sub_width");
  otherForm({ smiles_list: ["CCO"], width: 300 }, "/width");
  otherForm({ smiles_list: ["CCO"], legend: "x" }, "/legend");
  const filled = { format: "svg", width: 400, height: 300, sub_width: 250, sub_height: 200, atom_indices: false, stereo_annotation: false };
  assert.equal(validate({ smiles_list: ["CCO"], ...filled }), true);
  assert.ok(String((depictTool.run({ smiles_list: ["CCO", "CCN"], ...filled } as never, c) as { svg: string }).svg).includes("<svg"));
  assert.ok(String((depictTool.run({ smiles: "CCO", ...filled } as never, c) as { svg: string }).svg).includes("<svg"));
  assert.throws(
    () => depictTool.run({ smiles_list: ["CCO", "CCN"], legends: ["one"] }, c),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENTS" && e.details.path === "/legends" && /one legend per/.test(e.hint),
  );
  assert.throws(
    () => depictTool.run({ smiles_list: SMILES, sub_width: 600, sub_height: 600 }, c),
    (e: unknown) =>
      e instanceof ToolError && e.code === "INVALID_ARGUMENTS" && e.details.reason === "grid_too_large" && e.details.max_pixels === GRID_MAX_PIXELS,
  );
  // 48 drug-sized molecules as SVG pass what a host takes (80,000 bytes a surface): a typed error pointing to PNG.
  assert.throws(
    () => depictTool.run({ smiles_list: SMILES, legends: NAMES, format: "svg" }, c),
    (e: unknown) =>
      e instanceof ToolError && e.code === "MOLECULE_TOO_LARGE" && e.details.reason === "image_exceeds_response_limit" && /format png/.test(e.hint),
  );
  assert.throws(
    () => depictTool.run({ smiles_list: SMILES, format: "svg" }, c),
    (e: unknown) => e instanceof ToolError && e.code === "MOLECULE_TOO_LARGE" && (e.details.max_bytes as number) <= MAX_ANSWER_BYTES,
  );
  const svg4 = depictTool.run({ smiles_list: SMILES.slice(0, 4), format: "svg" }, c) as Out;
  assert.ok((svg4.byte_length as number) < MAX_ANSWER_BYTES, `4 molecules fit as SVG (${String(svg4.byte_length)} bytes)`);
  // The domain checks the legends before it parses anything.
  assert.throws(() => drawGrid(c.rdkit, ["CCO"], { subWidth: 250, subHeight: 200, legends: [] }), /legends has 0 entries/);
});

test("a grid frees every RDKit object: the WASM heap does not grow over many grids with bad entries, alignment and errors", async (t) => {
  const c = await ctx();
  const list = ["CN(C)CCc1c[nH]c2ccc(O)cc12", "C1CC", "Cc1ccc2[nH]ccc2c1", "CCO", "C".repeat(201)];
  const round = (n: number) => {
    depictTool.run({ smiles_list: list, align_smarts: "c1ccc2[nH]ccc2c1", highlight_smarts: "[OX2H]", format: "svg", sub_width: 100, sub_height: 100 }, c);
    try {
      depictTool.run({ smiles_list: list, align_smarts: n % 2 ? "[C" : "c1ccccc1", highlight_smarts: n % 2 ? "C" : "[N" }, c);
    } catch (e) {
      if (!(e instanceof ToolError)) throw e;
    }
  };
  for (let n = 0; n < 40; n++) round(n);
  const before = wasmHeapBytes();
  for (let n = 0; n < 200; n++) round(n);
  const after = wasmHeapBytes();
  t.diagnostic(`heap ${(before / 2 ** 20).toFixed(1)} -> ${(after / 2 ** 20).toFixed(1)} MiB over 400 grids`);
  assert.ok(before > 0, "the heap size was captured");
  assert.ok(after - before < 2 ** 20, `heap grew ${((after - before) / 2 ** 20).toFixed(2)} MiB`);
});

const pool = new WorkerPool({ size: 1 });
const server = new McpServer({ tools: allTools({}), pool, info: { name: "chematic-mcp", version: "test" }, logger: silentLogger });
after(() => pool.close());

test("through McpServer, a grid is one image block after the JSON text block in both eras, and the answer checks against the output schema", async () => {
  const outcome = await server.runTool("depict", { smiles_list: SMILES, legends: NAMES }, { signal: new AbortController().signal });
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  const info = { name: "chematic-mcp", version: "test" };
  const modern = shapeOutcome("2026-07-28", outcome, info) as { content: ContentBlock[]; structuredContent: Record<string, unknown> };
  assert.deepEqual(
    modern.content.map((b) => b.type),
    ["text", "image"],
  );
  assert.deepEqual(JSON.parse((modern.content[0] as { text: string }).text), modern.structuredContent);
  assert.equal(modern.structuredContent.count, 48);
  assert.ok(Buffer.byteLength(JSON.stringify(modern)) < MAX_RESPONSE_BYTES, "the whole answer, picture included, fits the response limit");
  assert.ok(Buffer.byteLength(JSON.stringify(modern.structuredContent)) < MAX_ANSWER_BYTES, "the summary fits what a host takes");
  assert.deepEqual(ihdr(Buffer.from((modern.content[1] as { data: string }).data, "base64")), [1000, 2400]);
  const legacy = shapeOutcome("2024-11-05", outcome, info) as { content: ContentBlock[]; structuredContent?: unknown };
  assert.deepEqual(
    legacy.content.map((b) => b.type),
    ["text", "image"],
  );
  assert.equal(legacy.structuredContent, undefined);
  // The single form answers as before.
  const single = await server.runTool("depict", { smiles: "CCO", format: "svg" }, { signal: new AbortController().signal });
  assert.ok(single.ok && single.value.smiles === "CCO" && !("entries" in single.value));
  const bad = await server.runTool("depict", { smiles_list: [...SMILES, "CCO"] }, { signal: new AbortController().signal });
  assert.equal(bad.ok ? "ok" : bad.error.code, "INVALID_ARGUMENTS");
});

test("over the wire (2026-07-28), a grid answers its image block and the small JSON summary", async () => {
  const s = new ServerProcess();
  try {
    s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { _meta: MODERN_META, name: "depict", arguments: { smiles_list: ["CCO", "C1CC", "c1ccccc1"], legends: ["a", "b", "c"] } },
    });
    const r = (await s.response(1, 60_000)).result as { content: ContentBlock[]; structuredContent: Record<string, unknown>; isError?: boolean };
    assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 300));
    assert.deepEqual(
      r.content.map((b) => b.type),
      ["text", "image"],
    );
    assert.deepEqual(ihdr(Buffer.from((r.content[1] as { data: string }).data, "base64")), [750, 200]);
    assert.equal((r.structuredContent.entries as Entry[])[1]?.error?.code, "INVALID_SMILES");
  } finally {
    await s.close();
  }
});
