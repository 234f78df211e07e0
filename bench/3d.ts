/**
 * generate_3d against native RDKit, measured the way outsiders measure it: our server over stdio with one
 * worker (CHEMATIC_WORKERS=1), `num_conformers: 1`, round-trip time per molecule, against native RDKit's
 * ETKDGv3 (randomSeed 42) + MMFF94 (maxIters 2000) timed inside one long-lived /usr/bin/python3 (so the
 * interpreter start and imports are not counted), interleaved molecule by molecule in the same run, every
 * molecule required to succeed. Geometry quality: the native MMFF94 energy of our conformer after a native
 * MMFF94 minimisation started from it (scripts/oracle-3d.py's method) minus the lowest native MMFF94 energy
 * of 10 ETKDGv3 conformers (seed 42), each MMFF94-minimised: median and p95 of that gap. The macrocycles
 * (cyclosporin A, rifampicin, sirolimus, erythromycin) are timed the same way and reported apart.
 *
 *   node build/bench/3d.js            (prints the markdown; BENCH_3D_NCI=n NCI molecules, default 10;
 *                                      BENCH_3D_MACROCYCLES=0 skips the macrocycles)
 *
 * `run3dBench()` is exported for bench/bench.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { fixed, median, percentile, sortedCopy, table } from "./lib/stats.js";
import { StdioClient, type RpcMessage } from "./lib/stdio-client.js";

const PYTHON = "/usr/bin/python3";
const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const NATIVE_SCRIPT = fileURLToPath(new URL("../../scripts/bench-3d.py", import.meta.url));

/** Approved drugs (SMILES as in ChEMBL/PubChem, written in by hand; stereo where the drug is one stereoisomer). */
export const DRUGS: readonly (readonly [string, string])[] = [
  ["aspirin", "CC(=O)Oc1ccccc1C(=O)O"],
  ["ibuprofen", "CC(C)Cc1ccc(cc1)C(C)C(=O)O"],
  ["paracetamol", "CC(=O)Nc1ccc(O)cc1"],
  ["caffeine", "Cn1cnc2c1c(=O)n(C)c(=O)n2C"],
  ["diazepam", "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21"],
  ["imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"],
  ["atorvastatin", "CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)O"],
  ["sildenafil", "CCCc1nn(C)c2c(=O)[nH]c(-c3cc(S(=O)(=O)N4CCN(C)CC4)ccc3OCC)nc12"],
  ["omeprazole", "COc1ccc2[nH]c(S(=O)Cc3ncc(C)c(OC)c3C)nc2c1"],
  ["metformin", "CN(C)C(=N)NC(=N)N"],
  ["loratadine", "CCOC(=O)N1CCC(=C2c3ccc(Cl)cc3CCc3cccnc32)CC1"],
  ["fluoxetine", "CNCCC(Oc1ccc(C(F)(F)F)cc1)c1ccccc1"],
  ["sertraline", "CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21"],
  ["warfarin", "CC(=O)CC(c1ccccc1)c1c(O)c2ccccc2oc1=O"],
  ["naproxen", "COc1ccc2cc([C@H](C)C(=O)O)ccc2c1"],
  ["celecoxib", "Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1"],
  ["losartan", "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nnn[nH]2)cc1"],
  ["clopidogrel", "COC(=O)[C@H](c1ccccc1Cl)N1CCc2sccc2C1"],
  ["lisinopril", "NCCCC[C@H](N[C@@H](CCc1ccccc1)C(=O)O)C(=O)N1CCC[C@H]1C(=O)O"],
  ["gefitinib", "COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1"],
  ["tamoxifen", "CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1"],
  ["propranolol", "CC(C)NCC(O)COc1cccc2ccccc12"],
  ["ciprofloxacin", "O=C(O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O"],
  ["amlodipine", "CCOC(=O)C1=C(COCCN)NC(C)=C(C(=O)OC)C1c1ccccc1Cl"],
  ["metoprolol", "COCCc1ccc(OCC(O)CNC(C)C)cc1"],
  ["simvastatin", "CCC(C)(C)C(=O)O[C@H]1C[C@@H](C)C=C2C=C[C@H](C)[C@H](CC[C@@H]3C[C@@H](O)CC(=O)O3)[C@@H]21"],
  ["diphenhydramine", "CN(C)CCOC(c1ccccc1)c1ccccc1"],
  ["haloperidol", "O=C(CCCN1CCC(O)(c2ccc(Cl)cc2)CC1)c1ccc(F)cc1"],
  ["morphine", "CN1CC[C@]23c4c5ccc(O)c4O[C@H]2[C@@H](O)C=C[C@H]3[C@H]1C5"],
  ["oseltamivir", "CCOC(=O)C1=C[C@@H](OC(CC)CC)[C@H](NC(C)=O)[C@@H](N)C1"],
  ["sitagliptin", "N[C@@H](CC(=O)N1CCn2c(nnc2C(F)(F)F)C1)Cc1cc(F)c(F)cc1F"],
  ["penicillin G", "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O"],
];

/**
 * Macrocycles. Cyclosporin A as in test/tools/generate_3d.coverage.test.ts (CHEMBL160, 85 heavy atoms, one
 * 33-membered ring); erythromycin as in test/helpers/admet-oracle.ts; rifampicin (C43H58N4O12, 59 heavy atoms)
 * and sirolimus (C51H79NO13, 65 heavy atoms, SSSR ring of 29) without stereo, formulas checked with RDKit.
 */
export const MACROCYCLES: readonly (readonly [string, string])[] = [
  [
    "cyclosporin A",
    "C/C=C/C[C@@H](C)[C@@H](O)[C@H]1C(=O)N[C@@H](CC)C(=O)N(C)CC(=O)N(C)[C@@H](CC(C)C)C(=O)N[C@@H](C(C)C)C(=O)N(C)[C@@H](CC(C)C)C(=O)N[C@@H](C)C(=O)N[C@H](C)C(=O)N(C)[C@@H](CC(C)C)C(=O)N(C)[C@@H](CC(C)C)C(=O)N(C)[C@@H](C(C)C)C(=O)N1C",
  ],
  ["rifampicin", "CC1C=CC=C(C(=O)NC2=C(C(=C3C(=C2O)C(=C(C4=C3C(=O)C(O4)(OC=CC(C(C(C(C(C(C1O)C)O)C)OC(=O)C)C)OC)C)C)O)O)C=NN5CCN(CC5)C)C"],
  ["sirolimus", "CC1CCC2CC(C(=CC=CC=CC(CC(C(=O)C(C(C(=CC(C(=O)CC(OC(=O)C3CCCCN3C(=O)C(=O)C1(O2)O)C(C)CC4CCC(C(C4)OC)O)C)C)O)OC)C)C)C)OC"],
  [
    "erythromycin",
    "CC[C@@H]1[C@@]([C@@H]([C@H](C(=O)[C@@H](C[C@@]([C@@H]([C@H]([C@@H]([C@H](C(=O)O1)C)O[C@H]2C[C@@]([C@H]([C@@H](O2)C)O)(C)OC)C)O[C@H]3[C@@H]([C@H](C[C@H](O3)C)N(C)C)O)(C)O)C)C)O)(C)O",
  ],
];

interface NativeTime {
  ms?: number;
  ok?: boolean;
  converged?: boolean;
  error?: string;
}
interface Gap {
  ours?: number;
  best10?: number;
  gap?: number;
  error?: string;
}

export interface Row3d {
  name: string;
  smiles: string;
  /** Round trip of our generate_3d call, ms. */
  oursMs: number;
  /** Native ETKDGv3 + MMFF94, ms (inside python). */
  nativeMs: number;
  /** Error code (and cause) when our call failed. */
  error?: string;
  /** Native MMFF94 energy gap of our conformer to native best-of-10, kcal/mol. */
  gap?: number;
}

export interface Bench3dResult {
  markdown: string;
  /** Median of our round trips over the median of native's, drug-like molecules. */
  ratio: number;
  oursMedianMs: number;
  nativeMedianMs: number;
  gapMedian: number;
  gapP95: number;
  /** Every drug-like molecule answered with a conformer. */
  allSucceeded: boolean;
  failures: string[];
  /** OpenChemLib loads in the worker on the first call; that call's round trip, ms. */
  firstCallMs: number;
  rows: Row3d[];
  macrocycles: Row3d[];
}

/** One long-lived native RDKit process answering scripts/bench-3d.py requests line by line. */
class Native {
  private readonly child = spawn(PYTHON, [NATIVE_SCRIPT], { stdio: ["pipe", "pipe", "inherit"] });
  private readonly waiting: ((line: string) => void)[] = [];
  constructor() {
    createInterface({ input: this.child.stdout }).on("line", (line) => this.waiting.shift()?.(line));
  }
  ask<T>(request: Record<string, unknown>): Promise<T> {
    return new Promise((resolve) => {
      this.waiting.push((line) => resolve(JSON.parse(line) as T));
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }
  close(): void {
    this.child.stdin.end();
  }
}

function errorOf(m: RpcMessage): string | undefined {
  if (m.error) return `JSON-RPC ${m.error.code}: ${m.error.message}`;
  if (!m.result?.isError) return undefined;
  const sc = m.result.structuredContent as { error?: { code?: string; details?: { cause?: string } } } | undefined;
  const code = sc?.error?.code;
  if (code) return sc.error?.details?.cause ? `${code} (${sc.error.details.cause})` : code;
  const content = m.result.content as { text?: string }[] | undefined;
  return (content?.[0]?.text ?? "isError").slice(0, 120);
}

async function measure(client: StdioClient, native: Native, name: string, smiles: string): Promise<Row3d> {
  const start = performance.now();
  const m = await client.call("generate_3d", { smiles, num_conformers: 1 });
  const oursMs = performance.now() - start;
  const t = await native.ask<NativeTime>({ op: "native", smiles });
  const row: Row3d = { name, smiles, oursMs, nativeMs: t.ms ?? NaN };
  const error = errorOf(m);
  if (error !== undefined) row.error = error;
  else {
    const molblock = m.result?.structuredContent?.molblock;
    const g = await native.ask<Gap>({ op: "gap", smiles, molblock });
    if (g.gap !== undefined) row.gap = g.gap;
    else row.error = `native scoring: ${g.error}`;
  }
  if (t.ok !== true) row.error = `${row.error ? `${row.error}; ` : ""}native ETKDG failed${t.error ? `: ${t.error}` : ""}`;
  return row;
}

const ms = (v: number) => fixed(v, 0);

export async function run3dBench(options: { nci?: number; macrocycles?: boolean; log?: (message: string) => void } = {}): Promise<Bench3dResult> {
  const log = options.log ?? ((message: string) => process.stderr.write(`[3d] ${message}\n`));
  const probe = spawnSync(PYTHON, ["-c", "from rdkit.Chem import AllChem"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) throw new Error(`${PYTHON} cannot import rdkit: the 3D bench needs native RDKit`);
  const native = new Native();
  const client = new StdioClient("ours-3d", [CLI], { CHEMATIC_OFFLINE: "1", CHEMATIC_WORKERS: "1" });
  try {
    const nci = (await native.ask<{ molecules: [string, string][] }>({ op: "nci", n: options.nci ?? 10, every: 97 })).molecules;
    const molecules = [...DRUGS, ...nci];
    // The first call loads OpenChemLib in the worker; it is reported apart and not counted.
    const first = performance.now();
    const warm = await client.call("generate_3d", { smiles: "CCO" });
    const firstCallMs = performance.now() - first;
    if (errorOf(warm) !== undefined) throw new Error(`warm-up generate_3d failed: ${errorOf(warm)}; ${client.stderr}`);
    const rows: Row3d[] = [];
    for (const [name, smiles] of molecules) {
      const row = await measure(client, native, name, smiles);
      log(
        `${name}: ours ${ms(row.oursMs)} ms, native ${ms(row.nativeMs)} ms${row.gap !== undefined ? `, gap ${fixed(row.gap, 2)}` : ""}${row.error ? `, ${row.error}` : ""}`,
      );
      rows.push(row);
    }
    const macrocycles: Row3d[] = [];
    if (options.macrocycles ?? true) {
      for (const [name, smiles] of MACROCYCLES) {
        const row = await measure(client, native, name, smiles);
        log(`${name}: ours ${ms(row.oursMs)} ms, native ${ms(row.nativeMs)} ms${row.error ? `, ${row.error}` : ""}`);
        macrocycles.push(row);
      }
    }
    const failures = rows.filter((r) => r.error !== undefined).map((r) => `${r.name}: ${r.error}`);
    const oursMedianMs = median(rows.map((r) => r.oursMs));
    const nativeMedianMs = median(rows.map((r) => r.nativeMs));
    const gaps = sortedCopy(rows.flatMap((r) => (r.gap === undefined ? [] : [r.gap])));
    const result = {
      ratio: oursMedianMs / nativeMedianMs,
      oursMedianMs,
      nativeMedianMs,
      gapMedian: percentile(gaps, 50),
      gapP95: percentile(gaps, 95),
      allSucceeded: failures.length === 0,
      failures,
      firstCallMs,
      rows,
      macrocycles,
    };
    return { ...result, markdown: render(result) };
  } finally {
    native.close();
    await client.close();
  }
}

function render(r: Omit<Bench3dResult, "markdown">): string {
  const line = (row: Row3d) => [
    row.name,
    ms(row.oursMs),
    ms(row.nativeMs),
    fixed(row.oursMs / row.nativeMs, 1),
    row.gap === undefined ? "n/a" : fixed(row.gap, 2),
    row.error ?? "ok",
  ];
  const header = ["molecule", "ours, ms (round trip)", "native ETKDGv3+MMFF94, ms", "÷ native", "energy gap, kcal/mol", "answer"];
  const out = [
    "### 3D: generate_3d vs native RDKit ETKDGv3 + MMFF94",
    "",
    `One worker (CHEMATIC_WORKERS=1) over stdio, num_conformers 1, round trip per molecule; native RDKit ETKDGv3 (randomSeed 42) + MMFF94 (maxIters 2000) timed inside one python process, interleaved molecule by molecule. ${r.rows.length} drug-like molecules (${DRUGS.length} approved drugs, ${r.rows.length - DRUGS.length} from NCI first_5K.smi).`,
    "",
    `- **median ${ms(r.oursMedianMs)} ms vs native ${ms(r.nativeMedianMs)} ms: ${fixed(r.ratio, 1)}x native** (target: within 10x)`,
    `- every molecule succeeded: ${r.allSucceeded ? "yes" : `no (${r.failures.join("; ")})`}`,
    `- energy gap (native MMFF94 energy of our conformer after native minimisation from it, minus native best of 10 ETKDGv3 + MMFF94): median ${fixed(r.gapMedian, 2)}, p95 ${fixed(r.gapP95, 2)} kcal/mol`,
    `- first call (loads OpenChemLib in the worker, not counted): ${ms(r.firstCallMs)} ms`,
    "",
    table(header, r.rows.map(line)),
  ];
  if (r.macrocycles.length > 0) out.push("", "Macrocycles (budget 45 s):", "", table(header, r.macrocycles.map(line)));
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const nci = process.env.BENCH_3D_NCI === undefined ? 10 : Number(process.env.BENCH_3D_NCI);
  run3dBench({ nci, macrocycles: process.env.BENCH_3D_MACROCYCLES !== "0" }).then(
    (r) => process.stdout.write(`${r.markdown}\n`),
    (e: unknown) => {
      process.stderr.write(`${String((e as Error)?.stack ?? e)}\n`);
      process.exitCode = 1;
    },
  );
}
