/**
 * The offline ChEMBL source (CHEMBL_SQLITE) on synthetic dumps of realistic size (issue 18, item 6), each figure
 * beside a reference measured in the same run:
 *
 *   open     the first open of the activity dump (builds the lookup sidecar) and a later one (reuses it)
 *   lookup   chembl://molecule-style lookups by ChEMBL ID of 500 distinct molecules (the response cache never
 *            hits), p50 and p95, against the same molecule read with one plain SQL statement in this process
 *   walk     one target's whole ranked view (50,000 activities over 5,000 molecules and 1,000 assays) read as a
 *            spill walks it (pages of 1,000, 4 in flight, through the dump's worker thread), against its floor:
 *            the same rows and fields read with one plain SQL query in this process
 *   spill    chembl_get_bioactivities staging that view on a DuckDB canvas, end to end (after one untimed spill
 *            that loads DuckDB and compiles the tool's validators, as a server's first spill does)
 *   search   the text search (chembl_search_molecules by name) on BENCH_SQLITE_NAMES synthetic names (default
 *            3,000,000 over 2,400,000 molecules, bench/lib/chembl-dump.ts), each query's first call, against the
 *            plain substring scan of the same names table in this process (the ranking both give is checked equal)
 * Targets: a lookup under 5 ms, a 50,000-row spill under 1 s, a text search under 300 ms.
 *
 *   npm run bench:sqlite        (run by `npm run bench` as its "sqlite" section: BENCH_SECTIONS=sqlite runs it alone)
 *   BENCH_SQLITE_ROWS, BENCH_SQLITE_RUNS (3), BENCH_SQLITE_NAMES (0 skips the search), BENCH_SQLITE_DIR (keep the
 *   generated dumps there between runs; default a temporary folder, deleted at the end)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CanvasManager } from "../src/domain/canvas/manager.js";
import { ChemblService } from "../src/domain/chembl/service.js";
import { createChemblGetBioactivitiesTool } from "../src/tools/chembl_get_bioactivities.js";
import { loadDriver } from "../test/fixtures/chembl/dump.js";
import { ok, testConfig } from "../test/fixtures/chembl/harness.js";
import type { FakeChembl } from "../test/fixtures/chembl/fake-server.js";
import { BENCH_ASSAYS, BENCH_MOLECULES, BENCH_TARGET, benchMoleculeId, buildBenchDump, buildNamesDump } from "./lib/chembl-dump.js";
import { fixed, median, percentile, sortedCopy, table } from "./lib/stats.js";

export interface SqliteBenchResult {
  markdown: string;
  lookupP50: number;
  lookupP95: number;
  walkMs: number;
  floorMs: number;
  spillMs: number;
  /** The slowest text query, ms (NaN when the search was skipped). */
  searchMaxMs: number;
  searchScanMaxMs: number;
  names: number;
}

interface Statement {
  get(...a: unknown[]): unknown;
  all(...a: unknown[]): unknown[];
  raw(on?: boolean): Statement;
}
interface Db {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}

const fakeless = { baseUrl: "http://127.0.0.1:9/unused" } as FakeChembl;
const serviceOn = (path: string) => new ChemblService({ ...testConfig(fakeless), requestTimeoutMs: 60_000, deadlineMs: 54_000, sqlitePath: path });
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const ms = (v: number) => `${fixed(v, v < 10 ? 2 : 0)}`;

/** The plain-SQL floor of the walk: the view's rows with every field a page answers, one query, rows as arrays. */
const FLOOR_SQL = `
  SELECT a.activity_id, a.action_type, a.activity_comment, a.data_validity_comment, a.pchembl_value, a.potential_duplicate, a.relation,
         a.src_id, a.standard_relation, a.standard_type, a.standard_units, a.standard_upper_value, a.standard_value, a.type, a.units, a.value,
         le.le, le.lle, le.bei, le.sei, dv.description,
         m.chembl_id, m.pref_name, COALESCE(pm.chembl_id, m.chembl_id), cs.canonical_smiles,
         s.chembl_id, s.assay_type, s.description, t.chembl_id, t.pref_name, t.organism, t.tax_id, v.mutation, v.accession, b.label,
         d.chembl_id, d.journal, d.year
  FROM activities a JOIN assays s ON s.assay_id = a.assay_id JOIN target_dictionary t ON t.tid = s.tid
  LEFT JOIN variant_sequences v ON v.variant_id = s.variant_id LEFT JOIN bioassay_ontology b ON b.bao_id = s.bao_format
  LEFT JOIN molecule_dictionary m ON m.molregno = a.molregno LEFT JOIN molecule_hierarchy h ON h.molregno = a.molregno
  LEFT JOIN molecule_dictionary pm ON pm.molregno = h.parent_molregno LEFT JOIN compound_structures cs ON cs.molregno = a.molregno
  LEFT JOIN docs d ON d.doc_id = a.doc_id LEFT JOIN ligand_eff le ON le.activity_id = a.activity_id
  LEFT JOIN data_validity_lookup dv ON dv.data_validity_comment = a.data_validity_comment
  WHERE t.chembl_id = ? AND a.pchembl_value IS NOT NULL ORDER BY a.pchembl_value DESC, a.activity_id`;

/** One molecule with its structure, properties and parent, as one plain statement (the lookup's reference). */
const LOOKUP_SQL = `
  SELECT m.*, cs.canonical_smiles, cs.standard_inchi, cs.standard_inchi_key, p.*, pm.chembl_id AS parent, am.chembl_id AS active
  FROM molecule_dictionary m LEFT JOIN compound_structures cs ON cs.molregno = m.molregno LEFT JOIN compound_properties p ON p.molregno = m.molregno
  LEFT JOIN molecule_hierarchy h ON h.molregno = m.molregno LEFT JOIN molecule_dictionary pm ON pm.molregno = h.parent_molregno
  LEFT JOIN molecule_dictionary am ON am.molregno = h.active_molregno WHERE m.chembl_id = ?`;

/** The scan the text search replaced (its ranking is the README's). */
const SCAN_SQL = `
  SELECT molregno, MIN(CASE WHEN key = @t AND kind = 0 THEN 0 WHEN key = @t THEN 1 WHEN substr(key, 1, length(@t)) = @t THEN 2 ELSE 3 END) AS rank
  FROM side.names WHERE instr(key, @t) > 0 GROUP BY molregno ORDER BY rank, molregno LIMIT 10000`;

async function activityBench(
  dir: string,
  rows: number,
  runs: number,
  log: (m: string) => void,
): Promise<{ markdown: string[]; lookupP50: number; lookupP95: number; walkMs: number; floorMs: number; spillMs: number }> {
  const path = join(dir, `chembl_bench_${rows}.db`);
  if (!existsSync(path)) {
    log(`building the ${rows}-activity dump`);
    buildBenchDump(path, rows);
  }
  rmSync(`${path}.chematic-index.sqlite`, { force: true });
  const size = statSync(path).size;
  const Driver = loadDriver() as unknown as new (path: string, options?: { readonly?: boolean }) => Db;

  let t = performance.now();
  let s = serviceOn(path);
  await s.dumpInfo();
  const firstOpen = performance.now() - t;
  await s.close();
  t = performance.now();
  s = serviceOn(path);
  await s.dumpInfo();
  const laterOpen = performance.now() - t;

  // Lookups of distinct molecules (the response cache never hits), after one warm-up call; the plain statement likewise.
  await s.getMolecule("CHEMBL25");
  const lookups: number[] = [];
  for (let i = 0; i < 500; i++) {
    const start = performance.now();
    await s.getMolecule(benchMoleculeId((i * 37) % BENCH_MOLECULES));
    lookups.push(performance.now() - start);
  }
  await s.close();
  const db = new Driver(path, { readonly: true });
  const plainLookups: number[] = [];
  try {
    const lookup = db.prepare(LOOKUP_SQL);
    lookup.get("CHEMBL25");
    for (let i = 0; i < 500; i++) {
      const start = performance.now();
      if (!lookup.get(benchMoleculeId((i * 41) % BENCH_MOLECULES))) throw new Error("the plain lookup found nothing");
      plainLookups.push(performance.now() - start);
    }
  } finally {
    db.close();
  }

  // The walk and its floor, alternated run by run; then the spills.
  const walks: number[] = [];
  const walkCpu: number[] = [];
  const floors: number[] = [];
  for (let r = 0; r < runs; r++) {
    const floorDb = new Driver(path, { readonly: true });
    try {
      const start = performance.now();
      const got = floorDb.prepare(FLOOR_SQL).raw(true).all(BENCH_TARGET);
      floors.push(performance.now() - start);
      if (got.length !== rows) throw new Error(`the floor read ${got.length} rows`);
    } finally {
      floorDb.close();
    }
    const w = serviceOn(path);
    await w.dumpInfo();
    const c = cpuMs();
    const start = performance.now();
    const walk = await w.walkActivities({ targetChemblId: BENCH_TARGET, view: "potency_ranked" }, { maxRows: rows });
    walks.push(performance.now() - start);
    walkCpu.push(cpuMs() - c);
    if (walk.activities.length !== rows) throw new Error(`walked ${walk.activities.length} rows`);
    await w.close();
  }
  const spills: number[] = [];
  const spillCpu: number[] = [];
  let firstSpill = NaN;
  for (let r = 0; r <= runs; r++) {
    const sp = serviceOn(path);
    await sp.dumpInfo();
    const canvas = new CanvasManager({ enabled: true, dir: null, maxSpillRows: rows });
    const tool = createChemblGetBioactivitiesTool(
      () => sp,
      () => canvas,
    );
    const c = cpuMs();
    const begin = performance.now();
    const { value } = await ok(
      tool,
      { target_chembl_id: BENCH_TARGET, limit: 5 },
      { signal: new AbortController().signal, progress: () => {}, deadline: Date.now() + 55_000 },
    );
    const took = performance.now() - begin;
    if (value.staged_row_count !== rows) throw new Error(`staged ${String(value.staged_row_count)} rows`);
    if (r === 0) firstSpill = took;
    else {
      spills.push(took);
      spillCpu.push(cpuMs() - c);
    }
    await canvas.close();
    await sp.close();
  }
  const sorted = sortedCopy(lookups);
  const plain = sortedCopy(plainLookups);
  const walkMs = median(walks);
  const floorMs = median(floors);
  const spillMs = median(spills);
  const markdown = [
    table(
      ["measured", "ours", "reference (same run)", "÷ reference"],
      [
        [
          "lookup by ChEMBL ID, p50 (500 distinct molecules)",
          `${ms(median(sorted))} ms`,
          `${ms(median(plain))} ms (one plain SQL statement)`,
          fixed(median(sorted) / median(plain), 1),
        ],
        [
          "lookup by ChEMBL ID, p95",
          `${ms(percentile(sorted, 95))} ms`,
          `${ms(percentile(plain, 95))} ms`,
          fixed(percentile(sorted, 95) / percentile(plain, 95), 1),
        ],
        [
          `walk of the ${rows.toLocaleString("en-US")}-row ranked view (median; runs)`,
          `${ms(walkMs)} ms (${walks.map(ms).join(", ")}; process CPU ${walkCpu.map(ms).join(", ")})`,
          `${ms(floorMs)} ms (${floors.map(ms).join(", ")}): the same rows in one plain SQL query`,
          fixed(walkMs / floorMs, 2),
        ],
        [
          `spill of that view onto a canvas (median; runs)`,
          `${ms(spillMs)} ms (${spills.map(ms).join(", ")}; process CPU ${spillCpu.map(ms).join(", ")})`,
          `the walk: ${ms(walkMs)} ms`,
          fixed(spillMs / walkMs, 2),
        ],
      ],
    ),
    "",
    `Synthetic dump (bench/lib/chembl-dump.ts): the fixture world plus one target with ${rows.toLocaleString("en-US")} activities over ` +
      `${BENCH_MOLECULES.toLocaleString("en-US")} molecules and ${BENCH_ASSAYS.toLocaleString("en-US")} assays, ${fixed(size / 1e6, 1)} MB. ` +
      `Open: first ${ms(firstOpen)} ms (builds the lookup sidecar), later ${ms(laterOpen)} ms (reuses it). The walk reads the view as a spill ` +
      "does: pages of 1,000 rows, 4 in flight, each a request through the dump's worker thread, handed over packed (no JSON text) and " +
      `normalised on the main thread; its floor reads the same rows and fields in one SQL query on this thread, into arrays. The spill adds ` +
      `staging every row in DuckDB and the answer; the first spill of the run (${ms(firstSpill)} ms) also loaded DuckDB and compiled the tool's ` +
      "validators and is left out. Process CPU counts every thread (the dump's worker, DuckDB's threads).",
  ];
  return { markdown, lookupP50: median(sorted), lookupP95: percentile(sorted, 95), walkMs, floorMs, spillMs };
}

interface SearchRow {
  what: string;
  term: string;
  ms: number;
  scanMs: number;
  hits: number;
}

async function searchBench(dir: string, names: number, log: (m: string) => void): Promise<{ markdown: string[]; maxMs: number; scanMaxMs: number }> {
  const molecules = Math.round(names * 0.8);
  const path = join(dir, `chembl_names_${names}.db`);
  let known: string[];
  if (!existsSync(path)) {
    log(`building the ${names}-name dump`);
    known = buildNamesDump(path, molecules, names)!.known;
  } else {
    const db = new (loadDriver() as unknown as new (path: string) => Db)(path);
    try {
      // The names buildNamesDump reports: every 200,000th molecule's preferred name, every 300,000th synonym.
      known = (
        db.prepare("SELECT lower(pref_name) AS k FROM molecule_dictionary WHERE molregno % 200000 = 0 AND pref_name IS NOT NULL").all() as Array<{ k: string }>
      )
        .map((r) => r.k)
        .concat(
          (db.prepare("SELECT synonyms AS k FROM molecule_synonyms WHERE molsyn_id % 300000 = 0").all() as Array<{ k: string }>).map((r) => r.k.toLowerCase()),
        );
    } finally {
      db.close();
    }
  }
  rmSync(`${path}.chematic-index.sqlite`, { force: true });
  log("opening the names dump (builds the sidecar and its text index)");
  const s = serviceOn(path);
  let t = performance.now();
  const info = (await s.dumpInfo())!;
  const buildMs = performance.now() - t;
  const sidecarMb = statSync(info.sidecar!).size / 1e6;
  const Driver = loadDriver() as unknown as new (path: string, options?: { readonly?: boolean }) => Db;
  const db = new Driver(":memory:");
  db.exec(`ATTACH DATABASE '${info.sidecar!.replace(/'/g, "''")}' AS side`);
  const scan = db.prepare(SCAN_SQL);
  const queries: Array<[string, string]> = [
    ["exact preferred name", known[0]!],
    ["exact synonym", known[known.length - 1]!],
    ["prefix", known[1]!.slice(0, 4)],
    ["rare substring", "zzqx"],
    ["rare substring", "azd-9"],
    ["common substring (a WHO stem)", "tinib"],
    ["common substring", "methyl"],
    ["common substring", "piperazin"],
    ["systematic-name fragment", "n-[2-(cyc"],
    ["2 characters", "xy"],
    ["2 characters, rare", "x7"],
    ["1 character", "a"],
    ["1 character", "q"],
  ];
  const rows: SearchRow[] = [];
  try {
    await s.searchMolecules({ type: "name", query: "warm-up", limit: 25, offset: 0 });
    for (const [what, term] of queries) {
      t = performance.now();
      const found = await s.searchMolecules({ type: "name", query: term, limit: 25, offset: 0 });
      const took = performance.now() - t;
      t = performance.now();
      const expected = scan.all({ t: term.trim().toLowerCase() }) as Array<{ molregno: number }>;
      const scanMs = performance.now() - t;
      const ids = found.molecules.map((m) => m.molecule_chembl_id);
      const want = expected.slice(0, 25).map((r) => `CHEMBL${r.molregno}`);
      if (found.total_count !== expected.length || JSON.stringify(ids) !== JSON.stringify(want))
        throw new Error(
          `the search for ${JSON.stringify(term)} ranked differently from the scan (${String(found.total_count)} against ${expected.length} hits)`,
        );
      rows.push({ what, term, ms: took, scanMs, hits: expected.length });
    }
  } finally {
    db.close();
    await s.close();
  }
  const maxMs = Math.max(...rows.map((r) => r.ms));
  const scanMaxMs = Math.max(...rows.map((r) => r.scanMs));
  const markdown = [
    table(
      ["query", "term", "hits (cap 10,000)", "ours, ms", "plain scan, ms", "scan ÷ ours"],
      rows.map((r) => [r.what, `\`${r.term}\``, String(r.hits), ms(r.ms), ms(r.scanMs), fixed(r.scanMs / r.ms, 1)]),
    ),
    "",
    `${names.toLocaleString("en-US")} synthetic names over ${molecules.toLocaleString("en-US")} molecules (bench/lib/chembl-dump.ts: INN-like names from ` +
      "syllables and WHO stems, some with a salt; company research codes; trade names; systematic names from substituents, groups and " +
      "a core; every other molecule with a preferred name, the rest synonyms). Ours is chembl_search_molecules' request through the " +
      "dump's worker (a query's first call: the worker keeps the last 16 rankings), the first page of 25 molecules included; the scan is " +
      "the substring scan it replaced, over the same sidecar names table on this thread, and both rankings are checked equal. " +
      `Building the sidecar with its text index took ${fixed(buildMs / 1000, 1)} s (${fixed(sidecarMb, 0)} MB).`,
  ];
  return { markdown, maxMs, scanMaxMs };
}

export async function runSqliteBench(
  opts: { rows?: number; runs?: number; names?: number; dir?: string; log?: (m: string) => void } = {},
): Promise<SqliteBenchResult | string> {
  if (!loadDriver()) return "the optional SQLite driver better-sqlite3 is not installed";
  const log = opts.log ?? ((m: string) => process.stderr.write(`[bench:sqlite] ${m}\n`));
  const rows = opts.rows ?? Number(process.env.BENCH_SQLITE_ROWS ?? 50_000);
  const runs = opts.runs ?? Number(process.env.BENCH_SQLITE_RUNS ?? 3);
  const names = opts.names ?? Number(process.env.BENCH_SQLITE_NAMES ?? 3_000_000);
  const kept = opts.dir ?? process.env.BENCH_SQLITE_DIR;
  const dir = kept ?? mkdtempSync(join(tmpdir(), "chembl-bench-"));
  if (kept) mkdirSync(kept, { recursive: true });
  try {
    const activity = await activityBench(dir, rows, runs, log);
    const search = names > 0 ? await searchBench(dir, names, log) : undefined;
    const markdown = [...activity.markdown, "", ...(search ? search.markdown : ["The text search was not measured (BENCH_SQLITE_NAMES=0)."])].join("\n");
    return {
      markdown,
      lookupP50: activity.lookupP50,
      lookupP95: activity.lookupP95,
      walkMs: activity.walkMs,
      floorMs: activity.floorMs,
      spillMs: activity.spillMs,
      searchMaxMs: search?.maxMs ?? NaN,
      searchScanMaxMs: search?.scanMaxMs ?? NaN,
      names,
    };
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runSqliteBench();
  process.stdout.write(`${typeof result === "string" ? `Not measured: ${result}.` : result.markdown}\n`);
}
