/**
 * cluster_molecules and pick_diverse: how many molecules fit the 50 s budget (issue 16, item 2). Molecules
 * from RDKit's NCI first_5K.smi and PAINS test set wehi_mols.csv (else the bench workload repeated), run in
 * the real worker pool: one call alone, then one call per worker at once (the pool busy, as under load).
 * The reference, measured in the same run on the same molecules: tanimoto's bulk form (one query against the
 * list: fingerprints plus N comparisons), so the ratio carries to another machine.
 *
 *   npm run build && node build/bench/diversity.js        (BENCH_DIVERSITY_N=1000,2500,5000 to change the sizes)
 */
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { WorkerPool } from "../src/server/pool.js";
import { MOLECULES } from "./lib/workload.js";

const SIZES = (process.env.BENCH_DIVERSITY_N ?? "1000,2500,5000,7500,10000").split(",").map(Number);
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const WEHI = "/usr/share/RDKit/Data/Pains/test_data/wehi_mols.csv";
const source =
  existsSync(NCI) && existsSync(WEHI)
    ? [
        ...readFileSync(NCI, "utf8")
          .split("\n")
          .map((l) => l.trim().split(/\s+/)[0] ?? "")
          .filter(Boolean),
        ...readFileSync(WEHI, "utf8")
          .split("\n")
          .map((l) => l.split(",")[0]!.replace(/^"|"$/g, ""))
          .filter(Boolean),
      ]
    : MOLECULES;

const pool = new WorkerPool();
const signal = new AbortController().signal;

async function timed(name: string, args: Record<string, unknown>, parallel = 1): Promise<number> {
  const start = performance.now();
  const outcomes = await Promise.all(Array.from({ length: parallel }, () => pool.run(name, args, { budgetMs: 300_000, signal })));
  for (const o of outcomes) if (o === undefined) throw new Error(`${name} answered nothing`);
  return (performance.now() - start) / 1000;
}

try {
  await timed("tanimoto", { smiles: "CCO", smiles_list: ["CCO", "CCN"] }, pool.size);
  process.stdout.write(`cluster_molecules / pick_diverse, ${pool.size} workers, ${availableParallelism()} cores; reference: tanimoto bulk on the same list\n`);
  process.stdout.write(
    `${"N".padStart(6)} ${"ref s".padStart(7)} ${"butina s".padStart(9)} ${"ratio".padStart(7)} ${"busy s".padStart(8)} ${"maxmin100 s".padStart(12)}\n`,
  );
  for (const n of SIZES) {
    const list = Array.from({ length: n }, (_, i) => source[i % source.length]!);
    const ref = await timed("tanimoto", { smiles: "CC(=O)Oc1ccccc1C(=O)O", smiles_list: list, top_k: 1 });
    const alone = await timed("cluster_molecules", { smiles_list: list, threshold: 0.4 });
    const busy = await timed("cluster_molecules", { smiles_list: list, threshold: 0.4 }, pool.size);
    const pick = await timed("pick_diverse", { smiles_list: list, n: 100 });
    process.stdout.write(
      `${String(n).padStart(6)} ${ref.toFixed(2).padStart(7)} ${alone.toFixed(2).padStart(9)} ${(alone / ref).toFixed(1).padStart(7)} ${busy.toFixed(2).padStart(8)} ${pick.toFixed(2).padStart(12)}\n`,
    );
  }
} finally {
  await pool.close();
}
