/**
 * Cold start as outsiders measure it: spawn to answer over stdio, medians of COLD_RUNS (default 9) fresh
 * processes each, interleaved in one run:
 *   - bare Node: `node -e` answering one line;
 *   - bare Node + RDKit: a Node that loads @rdkit/rdkit and answers one canonical SMILES;
 *   - ours: initialize then tools/list, and initialize then canonical_smiles.
 * Prints the medians and the two ratios the performance issue sets (tools/list within 3x bare Node, the
 * first chemistry answer within 1.5x bare Node + RDKit). Run: npm run build && node build/bench/cold.js
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const RUNS = Number(process.env.COLD_RUNS ?? 9);
const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** ms from spawn to each of the first `lines.length` answer lines. */
export function answerTimes(args: string[], lines: string[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, CHEMATIC_LOG_LEVEL: "error" } });
    const times: number[] = [];
    let buffer = "";
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString();
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        buffer = buffer.slice(i + 1);
        times.push(performance.now() - t0);
        if (times.length === lines.length) {
          child.kill();
          resolve(times);
        }
      }
    });
    child.on("error", reject);
    for (const line of lines) child.stdin.write(`${line}\n`);
  });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cold", version: "1" } },
});
const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "canonical_smiles", arguments: { smiles: "OCC" } } });
const BARE_NODE = ["-e", "process.stdin.once('data', () => process.stdout.write('x\\n'))"];
const BARE_RDKIT = [
  "--input-type=module",
  "-e",
  "import init from '@rdkit/rdkit'; const R = await init(); process.stdin.once('data', () => { const m = R.get_mol('OCC'); process.stdout.write(m.get_smiles() + '\\n'); m.delete(); });",
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** One spawn of each reference: a bare `node -e` answering a line, and a bare Node + RDKit answering a SMILES (ms). */
export async function bareStarts(): Promise<{ node: number; rdkit: number }> {
  return { node: (await answerTimes(BARE_NODE, ["x"]))[0]!, rdkit: (await answerTimes(BARE_RDKIT, ["x"]))[0]! };
}

async function main(): Promise<void> {
  const samples = { node: [] as number[], rdkit: [] as number[], list: [] as number[], call: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    const bare = await bareStarts();
    samples.node.push(bare.node);
    samples.rdkit.push(bare.rdkit);
    samples.list.push((await answerTimes([CLI], [initialize, list]))[1]!);
    samples.call.push((await answerTimes([CLI], [initialize, call]))[1]!);
  }
  const m = { node: median(samples.node), rdkit: median(samples.rdkit), list: median(samples.list), call: median(samples.call) };
  process.stdout.write(
    `cold start, medians of ${RUNS} runs: bare node ${m.node.toFixed(0)} ms, bare node + RDKit ${m.rdkit.toFixed(0)} ms, ` +
      `ours tools/list ${m.list.toFixed(0)} ms (${(m.list / m.node).toFixed(2)}x bare node), ` +
      `ours first canonical_smiles ${m.call.toFixed(0)} ms (${(m.call / m.rdkit).toFixed(2)}x bare node + RDKit)\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
