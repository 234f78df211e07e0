/**
 * Offline similarity and substructure search (issue 18, item 3): a dump in the official schema (the fixture
 * world plus a few hundred real structures: test/fixtures/chembl/structures.ts), its structure index built
 * as `chematic-mcp chembl index` builds it, and chembl_search_molecules answering from it through the
 * worker-only scan tool (run here on this thread by the in-process runner the canvas tests use).
 *
 *  - similarity: hits and values equal the tanimoto tool's bulk ranking over the same molecules, and native
 *    RDKit's (/usr/bin/python3) for the values (skipped with a message without it; CHEMATIC_REQUIRE_ORACLES
 *    turns the skip into a failure);
 *  - substructure: hits equal brute-force RDKit matching over every molecule (the pattern screen loses no
 *    true hit), in the index's stated order (ECFP4 popcount, then molregno);
 *  - paging and the cursor, max_phase_min, the ceiling, a scan stopped by the deadline, a stale index,
 *    no index (offline: how to build it; online: the web API, saying so).
 * Skips, saying why, without the optional driver better-sqlite3.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRDKit, withMol, type RDKit, type RDKitMol } from "../../../src/domain/chem/rdkit.js";
import { ChemblService } from "../../../src/domain/chembl/service.js";
import { buildStructureIndex } from "../../../src/domain/chembl/structures/build.js";
import { readHeader, type IndexHeader } from "../../../src/domain/chembl/structures/format.js";
import { locateStructureIndex } from "../../../src/domain/chembl/structures/place.js";
import { clearStructureSearchMemo, structureSearch, type ScanItem, type StructureScanner } from "../../../src/domain/chembl/structures/search.js";
import { ToolError } from "../../../src/domain/errors.js";
import { chemblStructureScanTool } from "../../../src/tools/chembl_structure_scan.js";
import { tanimotoTool } from "../../../src/tools/tanimoto.js";
import { DEFAULT_MORGAN_OPTIONS, fingerprintWords, morganBitVector, tanimoto } from "../../../src/domain/chem/morgan.js";
import { FakeChembl } from "../../fixtures/chembl/fake-server.js";
import { buildDump, loadDriver } from "../../fixtures/chembl/dump.js";
import { addStructures, structureSet, UNPARSABLE } from "../../fixtures/chembl/structures.js";
import { ASPIRIN_SMILES } from "../../fixtures/chembl/world.js";
import { DUMP_TIMEOUTS, callTool, chemblTools, fails, ok, serviceContext, testConfig } from "../../fixtures/chembl/harness.js";
import { localRunner, type LocalRunner } from "../../helpers/annotate.js";
import { nativeRDKitMissing, oracleOutput, PYTHON, skipOracle } from "../../helpers/oracle.js";

const Driver = loadDriver();
const skip = Driver === null ? "the optional SQLite driver better-sqlite3 is not installed (npm install better-sqlite3@12)" : false;

let dir: string;
let dumpPath: string;
let rdkit: RDKit;
let runner: LocalRunner;
let offline: ChemblService;
let header: IndexHeader;
/** Every structure of the dump: molregno, ChEMBL ID, SMILES and max_phase, in molregno order. */
let all: Array<{ molregno: number; chembl_id: string; smiles: string | null; max_phase: number | null }>;
/** Every structure RDKit parses, by ChEMBL ID (deleted after the tests): the brute-force substructure oracle. */
const parsed = new Map<string, RDKitMol>();

function ctx(budgetMs = 30_000) {
  return serviceContext(budgetMs, { chem: runner });
}

type Row = { molecule_chembl_id: string; similarity?: number; max_phase?: number };

/** Every page of a search, following nextCursor. */
async function allPages(args: Record<string, unknown>, limit = 100): Promise<{ rows: Row[]; pages: Array<Record<string, unknown>> }> {
  const rows: Row[] = [];
  const pages: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const { value } = await ok(chemblTools(offline).searchMolecules, { ...args, limit, ...(cursor ? { cursor } : {}) }, ctx());
    pages.push(value);
    rows.push(...(value.molecules as Row[]));
    cursor = (value.nextCursor as string | undefined) ?? undefined;
    if (!cursor) break;
  }
  return { rows, pages };
}

describe("offline similarity and substructure search from the structure index", { skip }, () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "chembl-structures-"));
    dumpPath = join(dir, "chembl_36.db");
    buildDump(dumpPath, Driver!);
    const extra = structureSet();
    addStructures(dumpPath, Driver!, extra);
    const db = new (Driver as unknown as new (p: string, o: object) => { prepare(s: string): { all(): unknown[] }; close(): void })(dumpPath, {
      readonly: true,
    });
    all = db
      .prepare(
        "SELECT s.molregno, m.chembl_id, s.canonical_smiles AS smiles, m.max_phase FROM compound_structures s JOIN molecule_dictionary m USING (molregno) ORDER BY s.molregno",
      )
      .all() as typeof all;
    db.close();
    const built = await buildStructureIndex({ dump: dumpPath, release: "ChEMBL_36", cacheDir: join(dir, "cache"), workers: 1, chunkRows: 64 });
    header = readHeader(built.path);
    rdkit = await loadRDKit();
    runner = await localRunner(rdkit);
    for (const m of all) {
      const mol = m.smiles === null ? null : rdkit.get_mol(m.smiles);
      if (mol?.is_valid()) parsed.set(m.chembl_id, mol);
      else mol?.delete();
    }
    offline = new ChemblService(
      { ...testConfig({ baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl), ...DUMP_TIMEOUTS, offline: true, sqlitePath: dumpPath },
      { random: () => 0.5 },
    );
  });
  after(async () => {
    for (const mol of parsed.values()) mol.delete();
    await offline?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the index holds every parsable structure beside the dump, sorted by ECFP4 popcount then molregno; the others are counted", async () => {
    const info = await offline.dumpInfo()!;
    const index = info.structure_index!;
    assert.equal(index.state, "present");
    assert.equal(index.path, `${dumpPath}.chematic-structures`);
    assert.equal(header.skipped, UNPARSABLE.length);
    assert.equal(header.count, all.length - UNPARSABLE.length);
    assert.deepEqual(header.fingerprints, { ecfp: { radius: 2, nBits: 2048, useChirality: false }, pattern: { nBits: 2048, tautomericFingerprint: false } });
    const reasons = header.skipped_examples.map((s) => s.reason).sort();
    assert.equal(reasons.length, 3);
    assert.match(reasons[0]!, /^Invalid SMILES 'C1CC': unclosed ring/);
    assert.match(reasons[1]!, /^Invalid SMILES 'c1cccc1': Can't kekulize/);
    assert.equal(reasons[2], "no canonical_smiles");
    // The popcount table covers every record once, and the molregnos within a popcount ascend.
    const { readFileSync } = await import("node:fs");
    const file = readFileSync(index.path);
    const start = new Uint32Array(
      file.buffer.slice(
        file.byteOffset + header.sections.popcount_start.offset,
        file.byteOffset + header.sections.popcount_start.offset + header.sections.popcount_start.length,
      ),
    );
    const molregno = new Uint32Array(
      file.buffer.slice(file.byteOffset + header.sections.molregno.offset, file.byteOffset + header.sections.molregno.offset + header.count * 4),
    );
    assert.equal(start[start.length - 1], header.count);
    for (let p = 0; p + 1 < start.length; p++) {
      for (let i = start[p]! + 1; i < start[p + 1]!; i++) assert.ok(molregno[i - 1]! < molregno[i]!, `molregno order within popcount ${p}`);
    }
    assert.deepEqual(
      [...molregno].sort((a, b) => a - b),
      all.filter((m) => m.smiles !== null && !UNPARSABLE.includes(m.smiles as never)).map((m) => m.molregno),
    );
  });

  /** Morgan (ECFP4, 2048 bits) Tanimoto of each SMILES as given against the query, ranked as the tanimoto tool ranks. */
  const rankAsGiven = (query: string, list: string[], threshold: number): Array<{ index: number; similarity: number }> => {
    const fp = (s: string) => withMol(rdkit, s, (mol) => fingerprintWords(morganBitVector(mol, DEFAULT_MORGAN_OPTIONS)));
    const q = fp(query);
    const sims = list.map((s) => {
      try {
        return tanimoto(q, fp(s));
      } catch {
        return -1;
      }
    });
    return sims
      .map((sim, index) => ({ index, sim }))
      .filter((h) => h.sim >= 0 && h.sim >= threshold)
      .sort((a, b) => b.sim - a.sim || a.index - b.index)
      .map((h) => ({ index: h.index, similarity: Math.round(h.sim * 1000) / 1000 }));
  };

  const SIMILARITY_QUERIES: Array<[string, number]> = [
    [ASPIRIN_SMILES, 40],
    [ASPIRIN_SMILES, 70],
    ["OC(=O)c1ccc(Cl)cc1", 50],
    ["CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)O", 45],
    ["C1CCNCC1", 40],
  ];

  for (const [smiles, threshold] of SIMILARITY_QUERIES) {
    test(`similarity ${smiles} at ${threshold} %: the tanimoto tool's bulk ranking over the same molecules, hits and values`, async () => {
      const { rows, pages } = await allPages({ smiles, search_type: "similarity", similarity_threshold: threshold }, 9);
      const list = all.filter((m) => m.smiles !== null);
      // ChEMBL records are compared as recorded, salts included (as ChEMBL's own similarity search does), so the
      // reference is the tool's Morgan Tanimoto on the SMILES as given; the tool itself compares a salt as its parent.
      const bulk = {
        results: rankAsGiven(
          smiles,
          list.map((m) => m.smiles!),
          threshold / 100,
        ),
      };
      assert.ok(bulk.results.length > 0, "the query has hits");
      assert.deepEqual(
        rows.map((r) => r.molecule_chembl_id),
        bulk.results.map((h) => list[h.index]!.chembl_id),
      );
      rows.forEach((r, i) => {
        // Ours is percent to 2 decimals, the bulk form's a fraction to 3: equal within the rounding.
        assert.ok(
          Math.abs(r.similarity! / 100 - bulk.results[i]!.similarity) <= 0.0005 + 1e-9,
          `${r.molecule_chembl_id}: ${r.similarity} vs ${bulk.results[i]!.similarity}`,
        );
      });
      assert.equal(pages[0]!.total_count, bulk.results.length);
      assert.equal(pages[0]!.totalCountCapped, false);
      assert.equal((pages[0]!.source as Record<string, unknown>).served_from, "chembl_36.db");
    });
  }

  test("similarity values equal the tanimoto tool's pair form exactly, and native RDKit's", async (t) => {
    const { rows } = await allPages({ smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40 });
    const byId = new Map(all.map((m) => [m.chembl_id, m.smiles!]));
    for (const r of rows) {
      const other = byId.get(r.molecule_chembl_id)!;
      if (other.includes(".")) continue; // a salt: the tool compares its parent; native below checks the record as given
      const pair = tanimotoTool.run({ smiles1: ASPIRIN_SMILES, smiles2: other }, { rdkit, progress: () => {} }) as {
        similarity_percent: number;
      };
      assert.equal(r.similarity, pair.similarity_percent, r.molecule_chembl_id);
    }
    const missing = await nativeRDKitMissing();
    if (missing !== undefined) return skipOracle(t, `native RDKit (${PYTHON} with rdkit) is not installed: ${missing}`);
    const script = `
import sys, json
from rdkit import Chem, DataStructs
from rdkit.Chem import AllChem
q, smiles = json.loads(sys.stdin.read())
fq = AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(q), 2, 2048)
print(json.dumps([DataStructs.TanimotoSimilarity(fq, AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(s), 2, 2048)) for s in smiles]))
`;
    const smiles = rows.map((r) => byId.get(r.molecule_chembl_id)!);
    const native = JSON.parse(await oracleOutput({ program: script }, { input: JSON.stringify([ASPIRIN_SMILES, smiles]) })) as number[];
    rows.forEach((r, i) => assert.equal(r.similarity, Math.round(native[i]! * 100 * 100) / 100, `${r.molecule_chembl_id} ${smiles[i]}`));
  });

  const SUBSTRUCTURES = ["c1ccccc1C(=O)O", "C1CCNCC1", "c1ccc2ncccc2c1", "[N+](=O)[O-]", "C(=O)N", "Cl[Pt]Cl", "C1CCCCCCCCCCC1", "[C@@H](N)C(=O)O", "c1ccccc1"];

  for (const query of SUBSTRUCTURES) {
    test(`substructure ${query}: every molecule RDKit matches, none other, in the index's order`, async () => {
      const { rows, pages } = await allPages({ smiles: query, search_type: "substructure" });
      const qmol = rdkit.get_mol(query)!;
      const expected: string[] = [];
      try {
        for (const [id, mol] of parsed) if (mol.get_substruct_match(qmol) !== "{}") expected.push(id);
      } finally {
        qmol.delete();
      }
      const got = rows.map((r) => r.molecule_chembl_id);
      assert.deepEqual([...got].sort(), [...expected].sort(), `${query}: ${got.length} offline hits, ${expected.length} by brute force`);
      assert.equal(pages[0]!.total_count, expected.length);
      // The stated order: the index's (ECFP4 popcount, then molregno).
      const { readFileSync } = await import("node:fs");
      const file = readFileSync(`${dumpPath}.chematic-structures`);
      const ids: string[] = [];
      const off = new Uint32Array(
        file.buffer.slice(
          file.byteOffset + header.sections.chembl_id_offsets.offset,
          file.byteOffset + header.sections.chembl_id_offsets.offset + (header.count + 1) * 4,
        ),
      );
      for (let i = 0; i < header.count; i++)
        ids.push(file.toString("latin1", header.sections.chembl_id_bytes.offset + off[i]!, header.sections.chembl_id_bytes.offset + off[i + 1]!));
      const position = new Map(ids.map((id, i) => [id, i]));
      for (let i = 1; i < got.length; i++) assert.ok(position.get(got[i - 1]!)! < position.get(got[i]!)!, "hits in index order");
    });
  }

  test("paging: pages of 7 follow each other to the end (nextCursor null there), equal to one page of all", async () => {
    const small = await allPages({ smiles: "c1ccccc1", search_type: "substructure" }, 7);
    const big = await allPages({ smiles: "c1ccccc1", search_type: "substructure" }, 100);
    assert.ok(small.pages.length > 3);
    assert.deepEqual(
      small.rows.map((r) => r.molecule_chembl_id),
      big.rows.map((r) => r.molecule_chembl_id),
    );
    assert.equal(small.pages.at(-1)!.nextCursor, null);
    small.pages.forEach((p, i) => assert.equal(p.offset, i * 7));
    // A cursor belongs to its query.
    const e = await fails(chemblTools(offline).searchMolecules, { smiles: "C1CCNCC1", search_type: "substructure", cursor: small.pages[0]!.nextCursor }, ctx());
    assert.equal(e.code, "INVALID_ARGUMENTS");
  });

  test("max_phase_min keeps the molecules at or above the phase, in the same order", async () => {
    const everything = await allPages({ smiles: "c1ccccc1", search_type: "substructure", fields: ["all"] });
    const approved = await allPages({ smiles: "c1ccccc1", search_type: "substructure", max_phase_min: 3, fields: ["all"] });
    const expected = everything.rows.filter((r) => typeof r.max_phase === "number" && r.max_phase >= 3).map((r) => r.molecule_chembl_id);
    assert.ok(expected.length > 0);
    assert.deepEqual(
      approved.rows.map((r) => r.molecule_chembl_id),
      expected,
    );
    assert.equal(approved.pages[0]!.total_count, expected.length);
    const sim = await allPages({ smiles: ASPIRIN_SMILES, search_type: "similarity", similarity_threshold: 40, max_phase_min: 4, fields: ["all"] });
    assert.ok(sim.rows.every((r) => r.max_phase === 4));
  });

  test("the substructure ceiling: the walk stops at it, capped, with the first hits in the index's order", async () => {
    clearStructureSearchMemo();
    const scan: StructureScanner = (items) => runner.runList!(chemblStructureScanTool, items, { budgetMs: 10_000 });
    const index = locateStructureIndex(dumpPath, "ChEMBL_36");
    const full = await structureSearch({
      index: index.path!,
      header,
      type: "substructure",
      smiles: "c1ccccc1",
      ceiling: 1_000_000,
      scan,
      deadline: Date.now() + 10_000,
    });
    const capped = await structureSearch({
      index: index.path!,
      header,
      type: "substructure",
      smiles: "c1ccccc1",
      ceiling: 25,
      scan,
      deadline: Date.now() + 10_000,
    });
    assert.equal(full.capped, false);
    assert.ok(full.rec.length > 25);
    assert.equal(capped.capped, true);
    assert.deepEqual(capped.rec, full.rec.slice(0, 25));
  });

  test("a scan the deadline stops: substructure keeps its exact prefix (total unknown), similarity is a typed DEADLINE_EXCEEDED", async () => {
    const index = locateStructureIndex(dumpPath, "ChEMBL_36");
    const scan: StructureScanner = (items) => runner.runList!(chemblStructureScanTool, items, { budgetMs: 10_000 });
    const timedOut = () => ({ ok: false as const, error: new ToolError("TIMEOUT", "this entry was not done within the list's budget", {}).toPayload() });
    // The pool answers TIMEOUT for the entries its budget left undone: here every shard after the first.
    const firstShardOnly: StructureScanner = async (items: ScanItem[]) => [
      ...(await runner.runList!(chemblStructureScanTool, items.slice(0, 1), { budgetMs: 10_000 })),
      ...items.slice(1).map(timedOut),
    ];
    const request = { index: index.path!, header, type: "substructure" as const, smiles: "C(=O)N", ceiling: 30_000, firstShard: 32 };
    clearStructureSearchMemo();
    const whole = await structureSearch({ ...request, scan, deadline: Date.now() + 10_000 });
    clearStructureSearchMemo();
    const cut = await structureSearch({ ...request, scan: firstShardOnly, deadline: Date.now() + 10_000 });
    assert.equal(whole.complete, true);
    assert.equal(cut.complete, false);
    assert.equal(cut.scanned, 32);
    assert.ok(cut.rec.length > 0 && cut.rec.length < whole.rec.length);
    assert.deepEqual(cut.rec, whole.rec.slice(0, cut.rec.length));
    // Shards get the deadline itself: one already past scans nothing.
    clearStructureSearchMemo();
    const late = await structureSearch({ ...request, scan, deadline: Date.now() - 1 });
    assert.equal(late.complete, false);
    assert.equal(late.rec.length, 0);
    // Similarity ranks only a complete scan.
    const shardsTimedOut: StructureScanner = async (items: ScanItem[]) =>
      items[0]!.kind === "query" ? runner.runList!(chemblStructureScanTool, items, { budgetMs: 10_000 }) : items.map(timedOut);
    clearStructureSearchMemo();
    await assert.rejects(
      structureSearch({ ...request, type: "similarity", smiles: ASPIRIN_SMILES, threshold: 40, scan: shardsTimedOut, deadline: Date.now() + 10_000 }),
      (e: unknown) => e instanceof ToolError && e.code === "DEADLINE_EXCEEDED" && /similarity_threshold/.test(e.hint),
    );
  });

  test("a stale index (the dump changed) is never used: offline the answer says so and how to rebuild it", async () => {
    const before = statSync(dumpPath);
    try {
      utimesSync(dumpPath, before.atime, new Date(before.mtimeMs + 5_000));
      const index = locateStructureIndex(dumpPath, "ChEMBL_36");
      assert.equal(index.state, "stale");
      assert.match(index.reason!, /dump file changed/);
      const e = await fails(chemblTools(offline).searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity" }, ctx());
      assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
      assert.equal(e.details.reason, "stale_structure_index");
      assert.match(e.message, /stale/);
      assert.match(e.hint, /chematic-mcp chembl index/);
    } finally {
      utimesSync(dumpPath, before.atime, before.mtime);
    }
    assert.equal(locateStructureIndex(dumpPath, "ChEMBL_36").state, "present");
  });

  test("without an index: offline, the answer says how to build it; online, the web API answers and the answer says so", async () => {
    const bare = join(dir, "bare");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(bare);
    const copy = join(bare, "chembl_36.db");
    copyFileSync(dumpPath, copy);
    const fake = await new FakeChembl("new").start();
    const closed = new ChemblService({ ...testConfig(fake), ...DUMP_TIMEOUTS, offline: true, sqlitePath: copy }, { random: () => 0.5 });
    const open = new ChemblService({ ...testConfig(fake), ...DUMP_TIMEOUTS, sqlitePath: copy }, { random: () => 0.5 });
    try {
      assert.equal((await closed.dumpInfo()!).structure_index?.state, "missing");
      for (const search_type of ["similarity", "substructure"]) {
        const e = await fails(chemblTools(closed).searchMolecules, { smiles: ASPIRIN_SMILES, search_type }, ctx());
        assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
        assert.equal(e.details.reason, "no_structure_index");
        assert.match(e.hint, /chematic-mcp chembl index/);
      }
      const r = await callTool(chemblTools(open).searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "similarity" }, ctx());
      assert.ok(r.ok, r.ok ? "" : r.payload);
      if (r.ok) {
        assert.equal((r.value.molecules as Row[])[0]!.molecule_chembl_id, "CHEMBL25");
        assert.equal((r.value.source as Record<string, unknown>).served_from, undefined, "the web API answered");
        assert.match(r.value.notice as string, /no structure index.*web API.*chematic-mcp chembl index/);
      }
      // Both sources failing: the answer names the missing index, and the web API's failure.
      const unreachable = new ChemblService(
        { ...testConfig({ baseUrl: "http://127.0.0.1:9/chembl/api/data" } as FakeChembl), ...DUMP_TIMEOUTS, sqlitePath: copy },
        { random: () => 0.5, retry: { baseDelayMs: 5, maxDelayMs: 10 } },
      );
      try {
        const e = await fails(chemblTools(unreachable).searchMolecules, { smiles: ASPIRIN_SMILES, search_type: "substructure" }, ctx());
        assert.equal(e.code, "UPSTREAM_UNAVAILABLE");
        assert.equal(e.details.reason, "no_structure_index");
        assert.equal(e.details.web_error, "UPSTREAM_UNAVAILABLE");
        assert.match(e.message, /no structure index.*web API did not answer/);
        assert.match(e.hint, /chematic-mcp chembl index/);
      } finally {
        await unreachable.close();
      }
    } finally {
      await closed.close();
      await open.close();
      await fake.stop();
    }
  });

  test("the structure check still runs first: a broken SMILES fails fast as INVALID_STRUCTURE", async () => {
    const e = await fails(chemblTools(offline).searchMolecules, { smiles: "C1CC(", search_type: "similarity" }, ctx());
    assert.equal(e.code, "INVALID_STRUCTURE");
  });
});
