/**
 * canvas_import that cleans (issue 31 item 3): standardize puts each record's standardised parent in smiles (the
 * standardize tool's, with its defaults), the record as given in original_smiles and the parent's standard InChIKey in
 * parent_inchikey; dedupe keeps the first record of each parent InChIKey and counts the rest in duplicates (on append,
 * against the table's rows too); SDF data items keep their names (ID stays ID) and the record titles go to a named
 * title column.
 *
 * Acceptance: a 200-record SDF written by native RDKit (scripts/make-import-sdf.py: salts, stereoisomers, salt forms and
 * repeats of one parent, a broken record, data items named ID and smiles), imported with standardize and dedupe in two
 * calls (the second appended): every parent equals native RDKit's rdMolStandardize pipeline with the salt list (the
 * salt_stripped parent of scripts/oracle-standardize.py, the standardize oracle test's), every parent_inchikey equals
 * Open Babel's standard InChIKey of that native parent (this python3-rdkit is built without InChI), and the duplicates
 * are those native keys give.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import { silentLogger } from "../../src/logger.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { createCanvasImportTool } from "../../src/tools/canvas_import.js";
import { createChemblDataframeQueryTool } from "../../src/tools/chembl_dataframe_query.js";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import type { AnyTool } from "../../src/contract/tool.js";
import { nativeRDKitMissing, oracleLines, oracleOutput, skipOracle } from "../helpers/oracle.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const OBABEL = "/usr/bin/obabel";
const RECORDS = 200;

const pool = new WorkerPool({ size: 2 });
const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 1000, maxTableRows: 5_000 });
const bound: Record<string, AnyTool> = {
  canvas_import: createCanvasImportTool(() => manager),
  chembl_dataframe_query: createChemblDataframeQueryTool(() => manager),
};
const server = new McpServer({
  tools: allTools({}).map((t) => bound[t.name] ?? t),
  pool,
  info: { name: "chematic-mcp", version: "test" },
  logger: silentLogger,
});
after(async () => {
  await manager.close();
  await pool.close();
});

interface Answer {
  canvas_id: string;
  table: string;
  counts: { rows: number; parsed: number; failed: number; duplicates?: number; table_rows: number };
  columns: Array<{ name: string; type: string; role?: string }>;
  sample: Array<Record<string, unknown>>;
  failures?: Array<{ row_id: number; input: string; error: string }>;
  duplicate_examples?: Array<{ record: number; input: string; row_id: number }>;
  renamed?: Record<string, string>;
}

async function importCall(args: Record<string, unknown>): Promise<{ value: Answer; text: string }> {
  const outcome = await server.runTool("canvas_import", args, { signal: new AbortController().signal });
  assert.ok(outcome.ok, outcome.ok ? "" : `${outcome.error.code}: ${outcome.error.message}`);
  // The markdown twin the client reads beside the structured answer.
  const blocks = bound.canvas_import!.content?.(outcome.value) ?? [];
  const text = blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return { value: outcome.value as unknown as Answer, text };
}

async function refusal(args: Record<string, unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  const outcome = await server.runTool("canvas_import", args, { signal: new AbortController().signal });
  assert.ok(!outcome.ok, "canvas_import should refuse");
  return outcome.error;
}

async function rows(canvasId: string, sql: string): Promise<Array<Record<string, unknown>>> {
  return (await (await manager.get(canvasId)).query(sql, { maxRows: 10_000, maxBytes: 64 * 1024 * 1024 })).rows;
}

/** A native SMILES in WASM RDKit's canonical form (the two versions may spell one molecule differently). */
function canonical(rdkit: RDKit, smiles: string | null): string | null {
  if (smiles === null) return null;
  const m = rdkit.get_mol(smiles);
  try {
    return m?.is_valid() ? m.get_smiles() : `(unparsable) ${smiles}`;
  } finally {
    m?.delete();
  }
}

interface Made {
  sdf: string;
  records: Array<{ title: string; id: string; smiles: string | null }>;
}
interface NativeParent {
  smiles: string;
  error?: string;
  errors?: Record<string, string>;
  salt_stripped?: string | null;
}
interface Expected {
  title: string;
  id: string;
  original: string | null;
  parent: string | null;
  key: string | null;
}

let made: Made | undefined;
let expected: Expected[] = [];
let missing = "";

before(async () => {
  if (!existsSync(NCI)) {
    missing = `${NCI} is absent (Debian package rdkit-data provides it)`;
    return;
  }
  if (!existsSync(OBABEL)) {
    missing = `${OBABEL} is absent (Debian package openbabel): it gives the InChIKeys native RDKit (built without InChI) cannot`;
    return;
  }
  const native = await nativeRDKitMissing("from rdkit.Chem.MolStandardize import rdMolStandardize; from rdkit.Chem.SaltRemover import SaltRemover");
  if (native !== undefined) {
    missing = `native RDKit oracle unavailable: ${native}`;
    return;
  }
  made = JSON.parse(await oracleOutput({ script: "make-import-sdf.py" }, { args: [String(RECORDS)], timeoutMs: 300_000 })) as Made;
  const parents = await oracleLines<NativeParent>(
    { script: "oracle-standardize.py" },
    { input: made.records.map((r) => r.smiles ?? "").join("\n") + "\n", timeoutMs: 300_000 },
  );
  assert.equal(parents.length, made.records.length, "one native parent per record");
  const rdkit = await loadRDKit();
  const parentSmiles = parents.map((p) => (p.error !== undefined ? null : canonical(rdkit, p.salt_stripped ?? null)));
  const valid = parentSmiles.filter((p): p is string => p !== null);
  const ob = spawnSync(OBABEL, ["-ismi", "-oinchikey"], { input: valid.join("\n") + "\n", encoding: "utf8" });
  assert.equal(ob.status, 0, ob.stderr);
  const keys = ob.stdout.split("\n").filter((l) => /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/.test(l.trim()));
  assert.equal(keys.length, valid.length, "one Open Babel InChIKey per native parent");
  let k = 0;
  expected = made.records.map((r, i) => {
    const parent = parentSmiles[i]!;
    return { title: r.title, id: r.id, original: canonical(rdkit, r.smiles), parent, key: parent === null ? null : keys[k++]! };
  });
});

/** The records of an SDF text, each with its $$$$ line. */
function records(sdf: string): string[] {
  return sdf.split(/(?<=\$\$\$\$\n)/).filter((r) => r.trim() !== "");
}

describe("canvas_import with standardize and dedupe", () => {
  let canvasId = "";

  test("200 SDF records written by native RDKit, in two calls: parents and InChIKeys native, duplicates merged, ID kept, smiles renamed", async (t) => {
    if (!made) return skipOracle(t, missing);
    const parts = records(made.sdf);
    assert.equal(parts.length, RECORDS);
    const half = RECORDS / 2;
    const first = await importCall({ sdf: parts.slice(0, half).join(""), table: "clean", standardize: true, dedupe: true });
    canvasId = first.value.canvas_id;
    const second = await importCall({ sdf: parts.slice(half).join(""), table: "clean", canvas_id: canvasId, mode: "append", standardize: true, dedupe: true });

    // What native keys say: the first record of each key is kept, the later ones counted on it.
    const kept: Expected[] = [];
    const count = new Map<string, number>();
    let merged = 0;
    for (const e of expected) {
      if (e.key === null) kept.push(e);
      else if (count.has(e.key)) {
        count.set(e.key, count.get(e.key)! + 1);
        merged++;
      } else {
        count.set(e.key, 0);
        kept.push(e);
      }
    }
    assert.ok(merged >= 30, `${merged} duplicates in the file`);
    assert.equal((first.value.counts.duplicates ?? 0) + (second.value.counts.duplicates ?? 0), merged, "duplicates counted over both calls");
    assert.equal(second.value.counts.table_rows, kept.length);
    assert.equal(first.value.counts.failed + second.value.counts.failed, 1, "the broken record");

    // Names: data items as they are (ID stays ID); only smiles, a column the import writes, is renamed, and said so.
    assert.deepEqual(
      second.value.columns.map((c) => (c.role ? [c.name, c.type, c.role] : [c.name, c.type])),
      [
        ["row_id", "BIGINT"],
        ["title", "VARCHAR", "title"],
        ["smiles", "VARCHAR"],
        ["original_smiles", "VARCHAR"],
        ["parent_inchikey", "VARCHAR"],
        ["duplicates", "INTEGER"],
        ["error", "VARCHAR"],
        ["ID", "VARCHAR"],
        ["smiles_2", "VARCHAR"],
        ["pIC50", "DOUBLE"],
      ],
    );
    assert.deepEqual(first.value.renamed, { smiles: "smiles_2" });
    assert.match(first.text, /renamed \(clashed with another column\): smiles -> `smiles_2`/);
    assert.match(first.text, /`title` VARCHAR \(record title\)/);
    assert.ok(first.value.duplicate_examples !== undefined && first.value.duplicate_examples.length <= 3, "a few examples");
    assert.match(first.text, /merged duplicates, e\.g\.: record \d+ /);

    const table = await rows(
      canvasId,
      'SELECT row_id, title, smiles, original_smiles, parent_inchikey, duplicates, error, "ID", smiles_2 FROM clean ORDER BY row_id',
    );
    assert.equal(table.length, kept.length);
    const wrong: string[] = [];
    table.forEach((r, i) => {
      const e = kept[i]!;
      const want = {
        row_id: i + 1,
        title: e.title,
        smiles: e.parent,
        original_smiles: e.original,
        parent_inchikey: e.key,
        duplicates: e.key === null ? null : count.get(e.key)!,
        error: e.parent === null ? "INVALID_SMILES" : null,
        ID: e.id,
      };
      const got = { ...r };
      delete got.smiles_2;
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${JSON.stringify(got)}\n   native ${JSON.stringify(want)}`);
    });
    assert.deepEqual(wrong, [], "every row as native RDKit's parents and keys say");
    // Salt forms and repeats merged, stereo kept apart: some parent with stereo took duplicates.
    assert.ok(
      table.some((r) => /[@/\\]/.test(String(r.smiles)) && Number(r.duplicates) > 0),
      "a stereo parent merged its salt forms",
    );
    assert.ok(
      table.some((r) => String(r.original_smiles).includes(".") && r.smiles !== r.original_smiles),
      "a salt kept first shows its parent in smiles and itself in original_smiles",
    );
    t.diagnostic(`${RECORDS} records, ${kept.length} rows, ${merged} duplicates merged`);
  });

  test("appending a salt form of a row and a new molecule: the row's duplicates grows, the new one is a row", async (t) => {
    if (!made || canvasId === "") return skipOracle(t, missing || "the first test did not run");
    const [before] = await rows(canvasId, "SELECT count(*) AS n FROM clean");
    const target = (await rows(canvasId, "SELECT row_id, smiles, duplicates FROM clean WHERE error IS NULL ORDER BY row_id LIMIT 1"))[0]!;
    const appended = await importCall({
      smiles_list: [`${String(target.smiles)}.Cl`, "OCC(O)CO", "OCC(O)CO"],
      table: "clean",
      canvas_id: canvasId,
      mode: "append",
      standardize: true,
      dedupe: true,
    });
    assert.equal(appended.value.counts.duplicates, 2);
    assert.equal(appended.value.counts.table_rows, Number(before!.n) + 1);
    assert.deepEqual(appended.value.duplicate_examples, [
      { record: 1, input: `${String(target.smiles)}.Cl`, row_id: target.row_id },
      { record: 3, input: "OCC(O)CO", row_id: Number(before!.n) + 1 },
    ]);
    const [after] = await rows(canvasId, `SELECT duplicates FROM clean WHERE row_id = ${Number(target.row_id)}`);
    assert.equal(after!.duplicates, Number(target.duplicates) + 1);
    const [glycerol] = await rows(canvasId, "SELECT input, smiles, duplicates, title FROM clean WHERE smiles = 'OCC(O)CO'");
    assert.deepEqual(glycerol, { input: "OCC(O)CO", smiles: "OCC(O)CO", duplicates: 1, title: null });
  });

  test("bad input writes nothing: an append unlike the table (dedupe, standardize), unknown options, a title_column that does not fit", async (t) => {
    if (!made || canvasId === "") return skipOracle(t, missing || "the first test did not run");
    const [before] = await rows(canvasId, "SELECT count(*) AS n, sum(duplicates) AS d FROM clean");
    const noDedupe = await refusal({ smiles_list: ["CCO"], table: "clean", canvas_id: canvasId, mode: "append", standardize: true });
    assert.equal(noDedupe.code, "INVALID_ARGUMENTS");
    assert.equal(noDedupe.details.path, "/dedupe");
    const noStandardize = await refusal({ smiles_list: ["CCO"], table: "clean", canvas_id: canvasId, mode: "append", dedupe: true });
    assert.equal(noStandardize.details.path, "/standardize");
    const plain = await importCall({ smiles_list: ["CCO", "CCO"], table: "plain", canvas_id: canvasId });
    assert.equal(plain.value.counts.duplicates, undefined, "no dedupe, no duplicates count");
    const dedupeOnPlain = await refusal({ smiles_list: ["CCO"], table: "plain", canvas_id: canvasId, mode: "append", dedupe: true });
    assert.equal(dedupeOnPlain.code, "INVALID_ARGUMENTS");
    assert.equal(dedupeOnPlain.details.path, "/dedupe");
    assert.match(dedupeOnPlain.message, /imported without dedupe/);
    const unknown = await refusal({ smiles_list: ["CCO"], standardise: true });
    assert.equal(unknown.code, "INVALID_ARGUMENTS");
    const titleOnSmiles = await refusal({ smiles_list: ["CCO"], title_column: "name" });
    assert.equal(titleOnSmiles.details.path, "/title_column");
    const titleOnOurs = await refusal({ sdf: records(made.sdf)[0]!, title_column: "smiles" });
    assert.equal(titleOnOurs.details.path, "/title_column");
    const titleOnData = await refusal({
      sdf: records(made.sdf)[0]!,
      table: "clean",
      canvas_id: canvasId,
      mode: "append",
      standardize: true,
      dedupe: true,
      title_column: "pic50",
    });
    assert.equal(titleOnData.details.path, "/title_column");
    const [after] = await rows(canvasId, "SELECT count(*) AS n, sum(duplicates) AS d FROM clean");
    assert.deepEqual(after, before, "the table is as it was");
    assert.equal((await rows(canvasId, "SELECT count(*) AS n FROM plain"))[0]!.n, 2);
  });
});

test("dedupe without standardize: smiles keeps each kept record as given, keyed on its parent's InChIKey; title_column names the title column", async () => {
  const { value } = await importCall({ smiles_list: ["CC(=O)Oc1ccccc1C(=O)[O-].[Na+]", "CC(=O)Oc1ccccc1C(=O)O", "c1ccccc1", "C1CC"], dedupe: true });
  assert.deepEqual(
    value.columns.map((c) => c.name),
    ["row_id", "input", "smiles", "parent_inchikey", "duplicates", "error"],
  );
  assert.deepEqual(value.counts, { rows: 4, parsed: 3, failed: 1, duplicates: 1, table_rows: 3 });
  const table = await rows(value.canvas_id, "SELECT row_id, smiles, parent_inchikey, duplicates, error FROM library ORDER BY row_id");
  assert.deepEqual(table, [
    { row_id: 1, smiles: "CC(=O)Oc1ccccc1C(=O)[O-].[Na+]", parent_inchikey: "BSYNRYMUTXBXSQ-UHFFFAOYSA-N", duplicates: 1, error: null },
    { row_id: 2, smiles: "c1ccccc1", parent_inchikey: "UHOVQNZJYSORNB-UHFFFAOYSA-N", duplicates: 0, error: null },
    { row_id: 3, smiles: null, parent_inchikey: null, duplicates: null, error: "INVALID_SMILES" },
  ]);
  const sdf =
    "t1\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n>  <title>\nx\n\n$$$$\n";
  const named = await importCall({ sdf, title_column: "name" });
  assert.deepEqual(
    named.value.columns.map((c) => [c.name, c.role ?? null]),
    [
      ["row_id", null],
      ["name", "title"],
      ["smiles", null],
      ["error", null],
      ["title", null],
    ],
  );
  assert.deepEqual(named.value.sample[0], { row_id: 1, name: "t1", smiles: "C", title: "x" });
  assert.equal(named.value.renamed, undefined, "a data item named title is no clash when the titles go elsewhere");
});
