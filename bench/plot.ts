/**
 * plot (issue 33): the time to draw each kind of plot of N rows (default 100,000: RDKit's NCI first_5K.smi repeated,
 * with two synthetic numeric columns and a label), through the real worker pool, and the PNG's size. Each figure is
 * printed with a ratio against a reference measured in the same run:
 *  - scatter and histogram: DuckDB reading the same columns of the same rows (streamQuery, nothing drawn);
 *  - boiled_egg: native RDKit (/usr/bin/python3) computing WLOGP and TPSA with S and P for the same SMILES;
 *  - chemical_space: native RDKit's Morgan bits (radius 2, 2048) plus numpy's PCA of them (covariance in float32
 *    products, eigh in float64), in one process on one core.
 * Also a scatter of MAX_POINTS_DRAWN rows, the most drawn as points (above it a scatter is a density).
 *
 *   npm run bench:plot        (BENCH_PLOT_N to change the size)
 */
import { existsSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { CanvasManager } from "../src/domain/canvas/manager.js";
import { streamQuery } from "../src/domain/canvas/queries.js";
import { MAX_POINTS_DRAWN } from "../src/domain/plot/charts.js";
import { McpServer } from "../src/server/server.js";
import { WorkerPool } from "../src/server/pool.js";
import { silentLogger } from "../src/logger.js";
import { createPlotTool } from "../src/tools/plot.js";
import { MOLECULES } from "./lib/workload.js";

const N = Number(process.env.BENCH_PLOT_N ?? 100_000);
const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const PYTHON = "/usr/bin/python3";
const source = existsSync(NCI)
  ? readFileSync(NCI, "utf8")
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0] ?? "")
      .filter((s) => s.length > 0)
  : MOLECULES;
const smiles = Array.from({ length: N }, (_, i) => source[i % source.length]!);

/** A fixed pseudo-random sequence (the numeric columns are the same every run). */
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

const NATIVE_EGG = `
import sys, time
from rdkit import Chem, RDLogger
from rdkit.Chem import Crippen, rdMolDescriptors
RDLogger.DisableLog("rdApp.*")
lines = sys.stdin.read().split("\\n")
t = time.perf_counter()
n = 0
for s in lines:
    m = Chem.MolFromSmiles(s) if s else None
    if m is None: continue
    Crippen.MolLogP(m); rdMolDescriptors.CalcTPSA(m, includeSandP=True); n += 1
print(n, time.perf_counter() - t)
`;

const NATIVE_PCA = `
import sys, time, numpy as np
from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem
RDLogger.DisableLog("rdApp.*")
lines = sys.stdin.read().split("\\n")
t = time.perf_counter()
bits = []
for s in lines:
    m = Chem.MolFromSmiles(s) if s else None
    if m is None: continue
    bits.append(list(AllChem.GetMorganFingerprintAsBitVect(m, 2, nBits=2048).GetOnBits()))
t_fp = time.perf_counter() - t
t = time.perf_counter()
n = len(bits)
C = np.zeros((2048, 2048)); s = np.zeros(2048)
for start in range(0, n, 8192):
    X = np.zeros((min(8192, n - start), 2048), dtype=np.float32)
    for i, r in enumerate(bits[start:start + 8192]): X[i, r] = 1
    C += (X.T @ X).astype(np.float64); s += X.sum(axis=0)
mu = s / n
C = (C - n * np.outer(mu, mu)) / (n - 1)
w, V = np.linalg.eigh(C)
V = V[:, ::-1][:, :2]
coords = []
for start in range(0, n, 8192):
    X = np.zeros((min(8192, n - start), 2048))
    for i, r in enumerate(bits[start:start + 8192]): X[i, r] = 1
    coords.append((X - mu) @ V)
print(n, t_fp, time.perf_counter() - t)
`;

function native(program: string): number[] | undefined {
  if (!existsSync(PYTHON)) return undefined;
  try {
    const out = execFileSync(PYTHON, ["-c", program], { input: smiles.join("\n"), maxBuffer: 1 << 20, timeout: 900_000 }).toString();
    return out.trim().split(/\s+/).map(Number);
  } catch (e) {
    console.error(`native reference failed: ${(e as Error).message.split("\n")[0]}`);
    return undefined;
  }
}

async function main(): Promise<void> {
  const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 100_000 });
  const pool = new WorkerPool();
  const server = new McpServer({ tools: [createPlotTool(() => manager)], pool, info: { name: "bench", version: "0" }, logger: silentLogger });
  try {
    const { canvas } = await manager.stageOnNewCanvas(
      "mols",
      [
        { name: "id", type: "INTEGER", description: "Row." },
        { name: "smiles", type: "VARCHAR", description: "SMILES." },
        { name: "x", type: "DOUBLE", description: "Synthetic." },
        { name: "y", type: "DOUBLE", description: "Synthetic." },
        { name: "series", type: "VARCHAR", description: "A label." },
      ],
      smiles.map((s, i) => {
        const x = random() * 10;
        return [i, s, x, x * 0.5 + random() * 3, `s${i % 5}`];
      }),
      { source: { kind: "bench" } },
    );
    const readColumns = async (columns: string): Promise<number> => {
      const started = performance.now();
      await streamQuery(canvas, `SELECT ${columns} FROM mols`, { maxRows: N + 1 }, { columns: () => {}, chunk: () => {} });
      return performance.now() - started;
    };
    const run = async (args: Record<string, unknown>) => {
      const started = performance.now();
      const outcome = await server.runTool("plot", { canvas_id: canvas.id, ...args }, { signal: new AbortController().signal, progress: () => {} });
      const ms = performance.now() - started;
      if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
      return { ms, value: outcome.value };
    };
    console.log(
      `## plot, ${N.toLocaleString("en-US")} rows (${existsSync(NCI) ? "NCI first_5K repeated" : "bench workload repeated"}); ${pool.size} workers\n`,
    );
    console.log("| plot | rows drawn | mode | time (s) | PNG bytes | reference | reference (s) | ratio |");
    console.log("|---|---:|---|---:|---:|---|---:|---:|");
    const row = (label: string, r: { ms: number; value: Record<string, unknown> }, refLabel: string, refMs: number | undefined) =>
      console.log(
        `| ${label} | ${String(r.value.rows_plotted)} | ${String(r.value.mode)} | ${(r.ms / 1000).toFixed(2)} | ${String(r.value.png_bytes)} | ${refLabel} | ${refMs === undefined ? "n/a" : (refMs / 1000).toFixed(2)} | ${refMs === undefined ? "n/a" : (r.ms / refMs).toFixed(1)} |`,
      );
    // Warm: the first plot loads Vega, Vega-Lite and resvg.
    await run({ sql: "SELECT x, y FROM mols LIMIT 100", kind: "scatter", x: "x", y: "y" });
    row(
      "scatter (color by label)",
      await run({ table: "mols", kind: "scatter", x: "x", y: "y", color: "series" }),
      "DuckDB reads x, y, series",
      await readColumns("x, y, series"),
    );
    row(
      `scatter of ${MAX_POINTS_DRAWN} rows (points)`,
      await run({ sql: `SELECT x, y, series FROM mols WHERE id < ${MAX_POINTS_DRAWN}`, kind: "scatter", x: "x", y: "y", color: "series" }),
      "DuckDB reads x, y, series (all rows)",
      await readColumns("x, y, series"),
    );
    row("histogram (30 bins)", await run({ table: "mols", kind: "histogram", x: "x" }), "DuckDB reads x", await readColumns("x"));
    const eggNative = native(NATIVE_EGG);
    row("boiled_egg", await run({ table: "mols", kind: "boiled_egg" }), "native RDKit WLOGP + TPSA(S,P), 1 core", eggNative && eggNative[1]! * 1000);
    const pcaNative = native(NATIVE_PCA);
    const space = await run({ table: "mols", kind: "chemical_space" });
    row("chemical_space", space, "native Morgan + numpy PCA, 1 process", pcaNative && (pcaNative[1]! + pcaNative[2]!) * 1000);
    if (pcaNative) console.log(`\nnative reference split: Morgan bits ${pcaNative[1]!.toFixed(2)} s, numpy PCA ${pcaNative[2]!.toFixed(2)} s`);
    console.log(`chemical_space explained variance: ${JSON.stringify(space.value.explained_variance)}`);
  } finally {
    await pool.close();
    await manager.close();
  }
}

await main();
