/**
 * stdio throughput of calc_properties, beside the same RDKit work in a plain in-process loop (one thread),
 * measured in the same run so the ratio survives a noisy machine.
 *
 *   npm run bench                 (BENCH_N=2000 by default; BENCH_TOOL to change the tool)
 */
import { spawn } from "node:child_process";
import { availableParallelism, cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { loadRDKit, withMol } from "../src/domain/chem/rdkit.js";
import { computeProperties } from "../src/domain/chem/properties.js";

const N = Number(process.env.BENCH_N ?? 2000);
const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const MOLECULES = [
  "CC(=O)Oc1ccccc1C(=O)O",
  "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",
  "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
  "Cc1ccc(cc1Nc1nccc(n1)c1cccnc1)NC(=O)c1ccc(cc1)CN1CCN(C)CC1",
  "COc1ccc2[nH]cc(CCN(C)C)c2c1",
  "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O",
  "CCN(CC)CCNC(=O)c1ccc(N)cc1",
  "OC(=O)c1ccccc1O",
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Row {
  name: string;
  callsPerSecond: number;
  p50: number;
  p99: number;
}

async function inProcess(): Promise<Row> {
  const rdkit = await loadRDKit();
  for (let i = 0; i < 200; i++) withMol(rdkit, MOLECULES[i % MOLECULES.length]!, (m) => computeProperties(rdkit, m));
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    withMol(rdkit, MOLECULES[i % MOLECULES.length]!, (m) => computeProperties(rdkit, m));
    latencies.push(performance.now() - t);
  }
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { name: "in-process loop (1 thread, no protocol)", callsPerSecond: N / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function overStdio(inFlight: number): Promise<Row> {
  const child = spawn(process.execPath, [CLI], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, CHEMATIC_LOG_LEVEL: "error" } });
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  let buffer = "";
  let nextId = 1;
  let done = 0;
  let resolveDone: () => void = () => {};
  const finished = new Promise<void>((r) => (resolveDone = r));
  let total = 0;
  const send = () => {
    const id = nextId++;
    sentAt.set(id, performance.now());
    const smiles = MOLECULES[id % MOLECULES.length]!;
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: process.env.BENCH_TOOL ?? "calc_properties", arguments: { smiles } } })}\n`);
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const msg = JSON.parse(line) as { id: number; result?: { isError?: boolean }; error?: unknown };
      if (msg.error || msg.result?.isError) throw new Error(`call failed: ${line}`);
      latencies.push(performance.now() - sentAt.get(msg.id)!);
      done++;
      if (done === total) resolveDone();
      else if (nextId <= total) send();
    }
  });
  // Warm-up: every worker has loaded RDKit and compiled its queries.
  total = 200;
  for (let i = 0; i < Math.min(inFlight, total); i++) send();
  await finished;
  latencies.length = 0;
  done = 0;
  total = N;
  nextId = 1;
  const finished2 = new Promise<void>((r) => (resolveDone = r));
  const start = performance.now();
  for (let i = 0; i < Math.min(inFlight, total); i++) send();
  await finished2;
  const seconds = (performance.now() - start) / 1000;
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
  latencies.sort((a, b) => a - b);
  return { name: `stdio, ${inFlight} in flight`, callsPerSecond: N / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const baseline = await inProcess();
const rows = [baseline, await overStdio(1), await overStdio(32)];
const cpu = cpus()[0]?.model ?? "unknown CPU";
console.log(`calc_properties, ${N} calls each; ${availableParallelism()} cores (${cpu}); Node ${process.version}; workers = cores`);
console.log("| mode | calls/s | p50 ms | p99 ms | ratio to in-process |");
console.log("|---|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.name} | ${r.callsPerSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.callsPerSecond / baseline.callsPerSecond).toFixed(2)} |`);
}
