/**
 * Offline similarity and substructure search on a synthetic ChEMBL dump of 200,000 distinct structures
 * (issue 18, item 3). Targets: similarity under 1 s, a selective substructure search under 5 s.
 *
 * The structures: each molecule of RDKit's NCI first_5K.smi (real screening compounds) whose first atom
 * takes one more bond, joined there to one of 48 ring groups written as SMILES prefixes (phenyls with
 * para substituents, heteroaromatics, saturated rings, N-linked amines); every candidate is canonicalised
 * with RDKit on two threads in a seeded shuffled order, duplicates and unparsable ones dropped, until
 * 200,000 distinct ones are found (molregno in that order). They go into the fixture world's dump (official schema) with a sparse max_phase.
 *
 * Measured, each beside a reference from the same run:
 *   build         chematic-mcp chembl index's structure index build (buildStructureIndex, a thread a core):
 *                 time, rate, file size, bytes per 100,000 structures
 *   similarity    chembl_search_molecules through the real server over stdio (CHEMBL_SQLITE, CHEMATIC_OFFLINE),
 *                 10 distinct queries at 70 %; references: the same searches in this process on one thread (the
 *                 scan tool run here: no server, no pool), a plain single-thread scan of every ECFP4 in the
 *                 index (no popcount window), and the tanimoto tool's bulk form over 10,000 SMILES scaled to 200,000
 *   substructure  10 selective queries (whole NCI molecules of 15+ heavy atoms: their ring-group analogues
 *                 match), and benzene (capped at ChEMBL's 30,000); references: the same searches in this process
 *                 on one thread, and brute-force RDKit matching of every pickle on one thread, without the screen
 *
 *   npm run bench:structures        (BENCH_STRUCTURES: how many structures, default 200000)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { loadRDKit } from "../src/domain/chem/rdkit.js";
import { buildStructureIndex } from "../src/domain/chembl/structures/build.js";
import { FP_BYTES, FP_WORDS, readHeader } from "../src/domain/chembl/structures/format.js";
import { queryPrints } from "../src/domain/chembl/structures/scan.js";
import { structureSearch, type ScanItem, type ScanOutcome } from "../src/domain/chembl/structures/search.js";
import { chemblStructureScanTool } from "../src/tools/chembl_structure_scan.js";
import { tanimotoTool } from "../src/tools/tanimoto.js";
import { buildDump, loadDriver } from "../test/fixtures/chembl/dump.js";
import { StdioClient } from "./lib/stdio-client.js";
import { median } from "./lib/stats.js";

const COUNT = Number(process.env.BENCH_STRUCTURES ?? 200_000);
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));

/** Ring groups written so that a SMILES appended after them bonds to their last-written atom (para, N-linked, ...). */
const GROUPS = [
  "c1ccccc1",
  "Fc1ccc(cc1)",
  "Clc1ccc(cc1)",
  "Brc1ccc(cc1)",
  "COc1ccc(cc1)",
  "Cc1ccc(cc1)",
  "N#Cc1ccc(cc1)",
  "FC(F)(F)c1ccc(cc1)",
  "Oc1ccc(cc1)",
  "Nc1ccc(cc1)",
  "CC(=O)Nc1ccc(cc1)",
  "OC(=O)c1ccc(cc1)",
  "CC(C)(C)c1ccc(cc1)",
  "CS(=O)(=O)c1ccc(cc1)",
  "NS(=O)(=O)c1ccc(cc1)",
  "c1ccc(cc1)Oc1ccc(cc1)",
  "c1ccc(cc1)Cc1ccc(cc1)",
  "c1ccc(cc1)C(=O)",
  "c1ccc2ccccc2c1",
  "c1ccncc1",
  "c1ccc(nc1)",
  "c1cncnc1",
  "c1ccsc1",
  "c1ccoc1",
  "c1cc[nH]c1",
  "c1csc(n1)",
  "Cn1cnc(c1)",
  "c1cnn(c1)",
  "Cc1noc(C)c1",
  "c1ccc2[nH]ccc2c1",
  "c1ccc2occc2c1",
  "c1ccc2sccc2c1",
  "c1cnc2ccccc2c1",
  "c1ccc2ncccc2c1",
  "c1cc2OCOc2cc1",
  "C1CCCCC1",
  "C1CCCC1",
  "C1CC1",
  "CC1CCC(CC1)",
  "C1CCC2CCCCC2C1",
  "C1CC2CCC1C2",
  "C1CCOCC1",
  "C1CCN(CC1)",
  "C1CCN(C1)",
  "C1COCCN1",
  "C1CN(CCN1C)",
  "O=C1CCCN1",
  "CC(C)(C)OC(=O)N1CCC(CC1)",
];

/** A seeded PRNG (mulberry32), so every run builds the same dump. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Canonical SMILES of each candidate on two threads (null: RDKit cannot parse it). */
async function canonicalise(candidates: string[]): Promise<Array<string | null>> {
  const threads = Math.max(1, Math.min(2, availableParallelism()));
  const workers = Array.from({ length: threads }, () => new Worker(new URL("./lib/canon-worker.js", import.meta.url)));
  const out = new Array<string | null>(candidates.length).fill(null);
  const BATCH = 2_000;
  let next = 0;
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.on("error", reject);
            const send = () => {
              if (next >= candidates.length) return resolve();
              const from = next;
              next += BATCH;
              w.once("message", (batch: Array<string | null>) => {
                batch.forEach((s, k) => (out[from + k] = s));
                send();
              });
              w.postMessage(candidates.slice(from, from + BATCH));
            };
            send();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return out;
}

function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v < 10 ? 2 : 0)} ms`);
const n = (v: number) => Math.round(v).toLocaleString("en-US");

const Driver = loadDriver();
if (!Driver) {
  console.log("skipped: the optional SQLite driver better-sqlite3 is not installed");
  process.exit(0);
}
if (!existsSync(NCI)) {
  console.log(`skipped: ${NCI} (RDKit's data files) is not installed; the synthetic structures are made from it`);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "chembl-structures-bench-"));
let server: StdioClient | undefined;
try {
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} (${availableParallelism()} cores)`,
  );
  // 1. The structures.
  let t = performance.now();
  const rdkit = await loadRDKit();
  const nci = [
    ...new Set(
      readFileSync(NCI, "utf8")
        .split("\n")
        .map((l) => l.split(/\s+/)[0]!)
        .filter(Boolean),
    ),
  ];
  // NCI molecules whose first atom takes one more single bond (a methyl there still parses).
  const tails = nci.filter((s) => {
    const mol = rdkit.get_mol(`C${s}`);
    if (!mol) return false;
    try {
      return mol.is_valid();
    } finally {
      mol.delete();
    }
  });
  const candidates: string[] = [];
  for (const tail of tails) for (const group of GROUPS) candidates.push(group + tail);
  const rand = random(18);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
  }
  // Canonicalised in the shuffled order until enough distinct ones are found.
  const seen = new Set<string>();
  const distinct: string[] = [];
  let tried = 0;
  while (distinct.length < COUNT && tried < candidates.length) {
    const slice = candidates.slice(tried, tried + Math.max(20_000, Math.ceil((COUNT - distinct.length) * 1.05)));
    tried += slice.length;
    for (const s of await canonicalise(slice)) {
      if (s === null || seen.has(s)) continue;
      seen.add(s);
      distinct.push(s);
    }
  }
  if (distinct.length < COUNT) throw new Error(`only ${distinct.length} distinct structures could be made (${COUNT} asked)`);
  const structures = distinct.slice(0, COUNT);
  const made = performance.now() - t;

  const path = join(dir, "chembl_bench.db");
  buildDump(path, Driver);
  const db = new Driver(path);
  db.exec("BEGIN");
  const md = db.prepare(
    "INSERT INTO molecule_dictionary (molregno, chembl_id, pref_name, max_phase, therapeutic_flag, dosed_ingredient, structure_type, molecule_type, oral, parenteral, topical, black_box_warning, first_in_class, chirality, prodrug, inorganic_flag, withdrawn_flag, chemical_probe) VALUES (?, ?, NULL, ?, 0, 0, 'MOL', 'Small molecule', 0, 0, 0, 0, 0, 2, 0, 0, 0, 0)",
  );
  const cs = db.prepare("INSERT INTO compound_structures (molregno, standard_inchi_key, canonical_smiles) VALUES (?, ?, ?)");
  structures.forEach((smiles, i) => {
    const r = rand();
    md.run(1_000_000 + i, `CHEMBL${8_000_000 + i}`, r < 0.01 ? 4 : r < 0.02 ? 2 : r < 0.03 ? 1 : null);
    cs.run(1_000_000 + i, `BENCH${String(i).padStart(9, "0")}-UHFFFAOYSA-N`, smiles);
  });
  db.exec("COMMIT");
  db.close();
  console.log(
    `synthetic dump: ${n(structures.length)} distinct structures (${n(tails.length)} NCI molecules x ${GROUPS.length} ring groups, ` +
      `${n(tried - distinct.length)} of the ${n(tried)} tried were duplicates or unparsable) made in ${ms(made)}`,
  );

  // 2. The index build, as `chematic-mcp chembl index` runs it.
  t = performance.now();
  const built = await buildStructureIndex({ dump: path, release: "ChEMBL_36", cacheDir: join(dir, "cache") });
  const buildMs = performance.now() - t;
  const header = readHeader(built.path);
  console.log(
    `index build: ${ms(buildMs)} for ${n(built.count + built.skipped)} structures with ${availableParallelism()} threads, ` +
      `${n((built.count + built.skipped) / (buildMs / 1000))} structures/s; ${(built.size_bytes / 1e6).toFixed(1)} MB ` +
      `(${(((built.size_bytes / built.count) * 1e5) / 1e6).toFixed(1)} MB per 100,000 structures), ${built.skipped} skipped`,
  );

  // 3. The server over stdio, the dump opened (and its lookup sidecar built) by a first call.
  server = new StdioClient("structures", [CLI], { CHEMBL_SQLITE: path, CHEMATIC_OFFLINE: "1", XDG_CACHE_HOME: join(dir, "cache") });
  await server.callOk("chembl_search_molecules", { query: "aspirin" });
  const search = async (args: Record<string, unknown>): Promise<{ ms: number; value: Record<string, unknown> }> => {
    const start = performance.now();
    const value = await server!.callOk("chembl_search_molecules", { limit: 25, ...args });
    return { ms: performance.now() - start, value };
  };
  // One unmeasured search of each kind: the workers load the scan code.
  await search({ smiles: "CCN(CC)CCNC(=O)c1ccc(N)cc1", search_type: "similarity" });
  await search({ smiles: "CCN(CC)CCNC(=O)c1ccc(N)cc1", search_type: "substructure" });

  // Similarity: 10 distinct structures of the dump as queries, at 70 %.
  const simQueries = Array.from({ length: 10 }, (_, i) => structures[(i * 19_997 + 11) % structures.length]!);
  const simTimes: number[] = [];
  const simHits: number[] = [];
  for (const smiles of simQueries) {
    const r = await search({ smiles, search_type: "similarity", similarity_threshold: 70 });
    simTimes.push(r.ms);
    simHits.push(r.value.total_count as number);
  }
  // Reference: the same searches planned and scanned in this process on one thread (no server, no pool).
  const here = (items: ScanItem[]): Promise<ScanOutcome[]> =>
    Promise.resolve(items.map((item) => ({ ok: true as const, value: chemblStructureScanTool.run(item, { rdkit, progress: () => {} }) })));
  const inProcess = async (type: "similarity" | "substructure", smiles: string) => {
    const begin = performance.now();
    await structureSearch({ index: built.path, header, type, smiles, threshold: 70, ceiling: 30_000, scan: here, deadline: Date.now() + 60_000 });
    return performance.now() - begin;
  };
  const simHere: number[] = [];
  for (const smiles of simQueries) simHere.push(await inProcess("similarity", smiles));
  // Reference: every ECFP4 of the index scanned on this thread (no popcount window).
  const file = readFileSync(built.path);
  const ecfp = new Uint32Array(file.buffer, file.byteOffset + header.sections.ecfp.offset, (header.count * FP_BYTES) / 4);
  const plainTimes: number[] = [];
  for (const smiles of simQueries) {
    const q = queryPrints(rdkit, smiles).ecfp;
    const start = performance.now();
    let hits = 0;
    const qc = q.reduce((a, w) => a + popcount32(w), 0);
    for (let r = 0; r < header.count; r++) {
      let common = 0;
      let mc = 0;
      for (let w = 0; w < FP_WORDS; w++) {
        const m = ecfp[r * FP_WORDS + w]!;
        mc += popcount32(m);
        common += popcount32(m & q[w]!);
      }
      if (100 * common >= 70 * (qc + mc - common)) hits++;
    }
    plainTimes.push(performance.now() - start);
    void hits;
  }
  // Reference: the tanimoto tool's bulk form over its maximum list (10,000 SMILES), scaled to the dump.
  const bulkList = structures.slice(0, 10_000);
  let start = performance.now();
  tanimotoTool.run({ smiles: simQueries[0]!, smiles_list: bulkList, threshold: 0.7, top_k: 1000 }, { rdkit, progress: () => {} });
  const bulkMs = ((performance.now() - start) * structures.length) / bulkList.length;
  console.log(
    `similarity at 70 % (10 queries, ${n(median(simHits))} hits median): median ${ms(median(simTimes))}, max ${ms(Math.max(...simTimes))} through the server ` +
      `(target < 1 s); the same searches in this process on one thread: median ${ms(median(simHere))}; ` +
      `plain single-thread scan of every ECFP4: median ${ms(median(plainTimes))} (${(median(plainTimes) / median(simTimes)).toFixed(1)}x); ` +
      `tanimoto tool bulk form from SMILES, scaled to ${n(structures.length)}: ${ms(bulkMs)} (${(bulkMs / median(simTimes)).toFixed(0)}x)`,
  );

  // Selective substructure: whole NCI molecules of 15+ heavy atoms (their ring-group analogues contain them).
  const subQueries: string[] = [];
  for (let i = 0; subQueries.length < 10 && i < tails.length; i += 97) {
    const mol = rdkit.get_mol(tails[i]!);
    if (!mol) continue;
    try {
      if (mol.get_num_atoms(true) >= 15 && !tails[i]!.includes(".")) subQueries.push(tails[i]!);
    } finally {
      mol.delete();
    }
  }
  const subTimes: number[] = [];
  const subHits: number[] = [];
  for (const smiles of subQueries) {
    const r = await search({ smiles, search_type: "substructure" });
    subTimes.push(r.ms);
    subHits.push(r.value.total_count as number);
  }
  const subHere: number[] = [];
  for (const smiles of subQueries) subHere.push(await inProcess("substructure", smiles));
  const benzene = await search({ smiles: "c1ccccc1", search_type: "substructure" });
  // Reference: brute-force matching of every pickle with RDKit on this thread, for the first query.
  const qmol = rdkit.get_mol(subQueries[0]!)!;
  const offsets = new Float64Array(
    file.buffer.slice(file.byteOffset + header.sections.mol_offsets.offset, file.byteOffset + header.sections.mol_offsets.offset + (header.count + 1) * 8),
  );
  const molBase = file.byteOffset + header.sections.mol_bytes.offset;
  start = performance.now();
  let bruteHits = 0;
  try {
    for (let r = 0; r < header.count; r++) {
      const mol = rdkit.get_mol_from_uint8array(new Uint8Array(file.buffer, molBase + offsets[r]!, offsets[r + 1]! - offsets[r]!).slice());
      if (!mol) continue;
      try {
        if (mol.get_substruct_match(qmol) !== "{}") bruteHits++;
      } finally {
        mol.delete();
      }
    }
  } finally {
    qmol.delete();
  }
  const bruteMs = performance.now() - start;
  if (bruteHits !== subHits[0]) throw new Error(`brute force found ${bruteHits} hits for ${subQueries[0]}, the search ${subHits[0]}`);
  console.log(
    `substructure, selective (10 queries, ${n(Math.min(...subHits))}-${n(Math.max(...subHits))} hits): median ${ms(median(subTimes))}, max ${ms(Math.max(...subTimes))} ` +
      `through the server (target < 5 s); in this process on one thread: median ${ms(median(subHere))}; ` +
      `brute-force RDKit matching of every structure on one thread: ${ms(bruteMs)} ` +
      `(${(bruteMs / subTimes[0]!).toFixed(0)}x the same query's ${ms(subTimes[0]!)}, same ${n(bruteHits)} hits)`,
  );
  console.log(
    `substructure, benzene: ${ms(benzene.ms)}, total_count ${n(benzene.value.total_count as number)}${benzene.value.totalCountCapped ? " (capped at ChEMBL's 30,000)" : ""}`,
  );
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
} finally {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
}
