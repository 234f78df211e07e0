/**
 * The offline ChEMBL source on a synthetic dump of realistic size for one target (issue 18, item 6): the
 * fixture world's dump (test/fixtures/chembl/dump.ts) plus one target with 50,000 activities over 5,000
 * molecules and 1,000 assays. Measures, each on a fresh service (its own worker, the sidecar reused):
 *   open     the first open of the dump (builds the lookup sidecar) and a later one (reuses it)
 *   lookup   chembl://molecule-style lookups by ChEMBL ID of distinct molecules (no response cache hits): p50, p95
 *   walk     the target's whole ranked view (50,000 rows) read in pages of 1000, as a spill walks it
 *   spill    chembl_get_bioactivities staging that view on a DuckDB canvas, end to end
 * Targets: a lookup under 5 ms, a 50,000-row spill under 1 s.
 *
 *   npm run build && node build/bench/chembl-sqlite.js      (BENCH_SQLITE_ROWS, BENCH_SQLITE_RUNS)
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CanvasManager } from "../src/domain/canvas/canvas.js";
import { ChemblService } from "../src/domain/chembl/service.js";
import { createChemblGetBioactivitiesTool } from "../src/tools/chembl_get_bioactivities.js";
import { BENCH_ASSAYS as ASSAYS, BENCH_MOLECULES as MOLECULES, BENCH_TARGET as TARGET, benchMoleculeId, buildBenchDump } from "./lib/chembl-dump.js";
import { ok, testConfig } from "../test/fixtures/chembl/harness.js";
import type { FakeChembl } from "../test/fixtures/chembl/fake-server.js";
import { median, percentile, sortedCopy } from "./lib/stats.js";

const ROWS = Number(process.env.BENCH_SQLITE_ROWS ?? 50_000);
const RUNS = Number(process.env.BENCH_SQLITE_RUNS ?? 3);

const dir = mkdtempSync(join(tmpdir(), "chembl-bench-"));
const path = join(dir, "chembl_bench.db");
try {
  if (!buildBenchDump(path, ROWS)) {
    console.log("skipped: the optional SQLite driver better-sqlite3 is not installed");
    process.exit(0);
  }
  const size = statSync(path).size;

  const fakeless = { baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl;
  const fresh = () => new ChemblService({ ...testConfig(fakeless), requestTimeoutMs: 30_000, deadlineMs: 54_000, sqlitePath: path });

  let t = performance.now();
  let s = fresh();
  await s.dumpInfo();
  const firstOpen = performance.now() - t;
  await s.close();
  t = performance.now();
  s = fresh();
  await s.dumpInfo();
  const laterOpen = performance.now() - t;

  // Lookups of distinct molecules (the response cache never hits), after one warm-up call.
  await s.getMolecule("CHEMBL25");
  const lookups: number[] = [];
  for (let i = 0; i < 500; i++) {
    const start = performance.now();
    await s.getMolecule(benchMoleculeId((i * 37) % MOLECULES));
    lookups.push(performance.now() - start);
  }
  await s.close();

  const walks: number[] = [];
  const spills: number[] = [];
  let staged = 0;
  for (let r = 0; r < RUNS; r++) {
    const w = fresh();
    await w.dumpInfo();
    const start = performance.now();
    const walk = await w.walkActivities({ targetChemblId: TARGET, view: "potency_ranked" }, { maxRows: ROWS });
    walks.push(performance.now() - start);
    if (walk.activities.length !== ROWS) throw new Error(`walked ${walk.activities.length} rows`);
    await w.close();

    const sp = fresh();
    await sp.dumpInfo();
    const canvas = new CanvasManager({ enabled: true, dir: null, maxSpillRows: ROWS });
    const tool = createChemblGetBioactivitiesTool(
      () => sp,
      () => canvas,
    );
    const begin = performance.now();
    const { value } = await ok(
      tool,
      { target_chembl_id: TARGET, limit: 5 },
      { signal: new AbortController().signal, progress: () => {}, deadline: Date.now() + 55_000 },
    );
    spills.push(performance.now() - begin);
    staged = value.staged_row_count as number;
    await canvas.close();
    await sp.close();
  }

  const sorted = sortedCopy(lookups);
  const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
  console.log(`synthetic dump: ${(size / 1e6).toFixed(1)} MB, ${ROWS} activities on ${TARGET} over ${MOLECULES} molecules and ${ASSAYS} assays`);
  console.log(`open: first ${ms(firstOpen)} (builds the lookup sidecar), later ${ms(laterOpen)} (reuses it)`);
  console.log(`lookup by ChEMBL ID (500 distinct molecules): p50 ${ms(median(sorted))}, p95 ${ms(percentile(sorted, 95))} (target < 5 ms)`);
  console.log(`walk of the ${ROWS}-row ranked view: ${walks.map(ms).join(", ")} (fresh service each)`);
  console.log(`spill of the ${ROWS}-row view onto a canvas (${staged} rows staged): ${spills.map(ms).join(", ")} (target < 1 s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
