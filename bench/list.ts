/**
 * A 10,000-entry calc_properties list (one call) against the same 10,000 molecules as single calls over one
 * stdio connection with 64 in flight, same server, same run (issue 14, item 2). Prints both and the ratio.
 * The list is run twice: with full results (the answer is cut at the 1 MiB response limit, every entry is
 * still computed) and with fields: ["mw", "logp", "tpsa", "qed"] (the whole list fits the answer).
 *
 *   npm run build && node build/bench/list.js        (BENCH_LIST_N, BENCH_LIST_ROUNDS to change the size)
 */
import { fileURLToPath } from "node:url";
import { availableParallelism } from "node:os";
import { StdioClient } from "./lib/stdio-client.js";
import { MOLECULES } from "./lib/workload.js";

const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const N = Number(process.env.BENCH_LIST_N ?? 10_000);
const ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 1);
const smiles = (i: number) => MOLECULES[i % MOLECULES.length]!;
const list = Array.from({ length: N }, (_, i) => smiles(i));

async function timeList(client: StdioClient, extra: Record<string, unknown>): Promise<{ seconds: number; returned: number; succeeded: number }> {
  const start = performance.now();
  const value = await client.callOk("calc_properties", { smiles_list: list, ...extra });
  const seconds = (performance.now() - start) / 1000;
  const summary = value.summary as { succeeded: number; returned?: number };
  return { seconds, returned: summary.returned ?? N, succeeded: summary.succeeded };
}

const client = new StdioClient("chematic-mcp", [CLI], { CHEMATIC_OFFLINE: "1" });
try {
  await client.callOk("calc_properties", { smiles: "CCO" }); // workers loaded
  await client.load("calc_properties", (i) => ({ smiles: smiles(i) }), 2_000, 64); // warm-up
  process.stdout.write(`calc_properties, ${N} molecules, ${availableParallelism()} cores, ${ROUNDS} rounds (best of each)\n`);
  let single = Infinity;
  let full = Infinity;
  let trimmed = Infinity;
  let fullReturned = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const load = await client.load("calc_properties", (i) => ({ smiles: smiles(i) }), N, 64);
    if (load.errors > 0) throw new Error(`${load.errors} single calls failed`);
    single = Math.min(single, load.seconds);
    const a = await timeList(client, {});
    // Entries past the list's budget answer TIMEOUT: say so rather than compare unequal work silently.
    if (a.succeeded !== N) process.stdout.write(`note: the full-results list did ${a.succeeded} of ${N} within its budget\n`);
    full = Math.min(full, a.seconds);
    fullReturned = a.returned;
    const b = await timeList(client, { fields: ["mw", "logp", "tpsa", "qed"] });
    if (b.succeeded !== N) process.stdout.write(`note: the fields list did ${b.succeeded} of ${N} within its budget\n`);
    trimmed = Math.min(trimmed, b.seconds);
  }
  const row = (label: string, s: number) =>
    `${label.padEnd(52)} ${s.toFixed(2).padStart(7)} s  ${(N / s).toFixed(0).padStart(6)} molecules/s  ${(single / s).toFixed(2)}x single calls\n`;
  process.stdout.write(row(`${N} single calls, 64 in flight`, single));
  process.stdout.write(row(`one list call, full results (${fullReturned} returned)`, full));
  process.stdout.write(row("one list call, fields mw/logp/tpsa/qed", trimmed));
} finally {
  await client.close();
}
