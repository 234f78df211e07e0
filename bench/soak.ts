/**
 * Soak (not in CI): our server under mixed calls for SOAK_MINUTES (default 30) over stdio and over
 * Streamable HTTP at once, with memory sampled every SOAK_SAMPLE_SECONDS (default 60): RSS of each server
 * process, the WASM heap of every RDKit worker and the workers' JS heap (through the test-only tool
 * test_memory), plus calls/s, p99 latency and failures over the interval. Prints one table row per sample
 * and a verdict at the end; exits 1 if a server died, a call failed unexpectedly, or the WASM heap grew
 * by more than SOAK_MAX_WASM_GROWTH_MIB (default 8) per worker after the first sample.
 *
 *   npm run build && node build/bench/soak.js
 *   SOAK_MINUTES=3 SOAK_SAMPLE_SECONDS=30 SOAK_OUT=- node build/bench/soak.js
 *
 * The table and the verdict also go to SOAK_OUT (default docs/soak.md; "-" writes no file), with the
 * machine, the commit and the settings.
 *
 * The calls: every chemistry tool whose only required argument is `smiles`, over ten drug-like molecules,
 * plus a share of invalid SMILES (the error paths must not leak either) and tools/list now and then.
 * Tools with a budget over 20 s (3D embedding) are called 20 times less often.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { HttpServerProcess, modernHeaders } from "../test/helpers/http.js";
import { fixed, mib, percentile, sortedCopy, table } from "./lib/stats.js";
import { StdioClient, rssOf, type RpcMessage } from "./lib/stdio-client.js";
import { MODERN_META, MOLECULES } from "./lib/workload.js";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 60);
const STDIO_IN_FLIGHT = Number(process.env.SOAK_STDIO_IN_FLIGHT ?? 8);
const HTTP_CLIENTS = Number(process.env.SOAK_HTTP_CLIENTS ?? 4);
const MAX_WASM_GROWTH_MIB = Number(process.env.SOAK_MAX_WASM_GROWTH_MIB ?? 8);
const WORKERS = Math.max(1, availableParallelism());
const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OUT = process.env.SOAK_OUT ?? `${ROOT}docs/soak.md`;
const INVALID = ["C1CC", "c1cccc1", "C(((", "[Xx]", "N(C)(C)(C)(C)C", "C=C=C=C=C=C=C=C1"];
const ENV = { CHEMATIC_TEST_TOOLS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error", CHEMATIC_WORKERS: String(WORKERS) };

interface Plan {
  tools: string[];
  slow: Set<string>;
}

interface Counters {
  calls: number;
  expectedErrors: number;
  unexpected: string[];
  latencies: number[];
}

const newCounters = (): Counters => ({ calls: 0, expectedErrors: 0, unexpected: [], latencies: [] });

/** Call number i: which tool, which arguments, and whether it must fail (an invalid SMILES). */
function callFor(plan: Plan, i: number): { method: string; params: Record<string, unknown>; mustFail: boolean } {
  if (i % 97 === 0) return { method: "tools/list", params: {}, mustFail: false };
  let tool = plan.tools[i % plan.tools.length]!;
  if (plan.slow.has(tool) && i % (20 * plan.tools.length) >= plan.tools.length) tool = "canonical_smiles";
  const invalid = i % 11 === 0;
  const smiles = invalid ? INVALID[i % INVALID.length]! : MOLECULES[Math.floor(i / plan.tools.length) % MOLECULES.length]!;
  return { method: "tools/call", params: { name: tool, arguments: { smiles } }, mustFail: invalid };
}

function record(counters: Counters, label: string, call: ReturnType<typeof callFor>, m: RpcMessage, ms: number): void {
  counters.calls++;
  counters.latencies.push(ms);
  const failed = m.error !== undefined || m.result?.isError === true;
  const code = (m.result?.structuredContent?.error as { code?: string } | undefined)?.code;
  if (failed && call.mustFail && (code === "INVALID_SMILES" || code === "MOLECULE_TOO_LARGE")) counters.expectedErrors++;
  else if (failed || call.mustFail) counters.unexpected.push(`${label} ${JSON.stringify(call.params).slice(0, 120)} -> ${JSON.stringify(m).slice(0, 300)}`);
}

async function stdioLoad(client: StdioClient, plan: Plan, counters: Counters, stop: () => boolean): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: STDIO_IN_FLIGHT }, async () => {
      while (!stop()) {
        const call = callFor(plan, i++);
        const t = performance.now();
        const m = await client.request(call.method, call.params);
        record(counters, "stdio", call, m, performance.now() - t);
      }
    }),
  );
}

async function httpPost(url: string, method: string, params: Record<string, unknown>, id: number): Promise<RpcMessage> {
  const message = { jsonrpc: "2.0", id, method, params: { _meta: MODERN_META, ...params } };
  const res = await fetch(url, { method: "POST", headers: modernHeaders(message), body: JSON.stringify(message) });
  const text = await res.text();
  try {
    return JSON.parse(text) as RpcMessage;
  } catch {
    return { jsonrpc: "2.0", id, error: { code: res.status, message: text.slice(0, 200) } };
  }
}

async function httpLoad(url: string, plan: Plan, counters: Counters, stop: () => boolean): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: HTTP_CLIENTS }, async () => {
      while (!stop()) {
        const n = i++;
        const call = callFor(plan, n + 5);
        const t = performance.now();
        const m = await httpPost(url, call.method, call.params, n + 1).catch((e: Error): RpcMessage => ({
          jsonrpc: "2.0",
          id: n + 1,
          error: { code: -1, message: e.message },
        }));
        record(counters, "http", call, m, performance.now() - t);
      }
    }),
  );
}

interface Memory {
  rss: number;
  wasm: number[];
  jsHeap: number[];
}

/** Every worker's memory: WORKERS concurrent test_memory calls, each holding its worker for 300 ms. */
async function memoryOf(call: () => Promise<RpcMessage>, pid: number): Promise<Memory> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const answers = await Promise.all(Array.from({ length: WORKERS }, call));
    const byThread = new Map<number, Record<string, unknown>>();
    for (const a of answers) {
      const s = a.result?.structuredContent;
      if (s && typeof s.thread_id === "number") byThread.set(s.thread_id, s);
    }
    if (byThread.size === WORKERS) {
      const rows = [...byThread.values()];
      return { rss: rssOf(pid), wasm: rows.map((r) => r.wasm_heap_bytes as number), jsHeap: rows.map((r) => r.js_heap_used_bytes as number) };
    }
  }
  return { rss: rssOf(pid), wasm: [], jsHeap: [] };
}

async function main(): Promise<number> {
  const stdio = new StdioClient("soak-stdio", [CLI], ENV);
  const http = new HttpServerProcess([], ENV);
  const url = await http.url;
  const listed = await stdio.request("tools/list");
  const wire = (listed.result?.tools ?? []) as Array<{
    name: string;
    inputSchema: { required?: string[]; properties?: Record<string, unknown>; oneOf?: Array<{ required?: string[] }> };
  }>;
  // Callable with `smiles` alone: it is the only required argument, or (a tool that also takes lists) one
  // form of the top-level oneOf requires just it.
  const smilesAlone = (schema: (typeof wire)[number]["inputSchema"]) => {
    const required = JSON.stringify(schema.required ?? []);
    if (required === '["smiles"]') return true;
    return required === "[]" && (schema.oneOf ?? []).some((form) => JSON.stringify(form.required ?? []) === '["smiles"]');
  };
  const { allTools } = await import("../src/tools/index.js");
  const budgets = new Map(allTools({}).map((t) => [t.name, { budget: t.budgetMs, kind: t.kind, testOnly: t.testOnly === true }]));
  const tools = wire.filter((t) => smilesAlone(t.inputSchema) && budgets.get(t.name)?.kind === "chem" && !budgets.get(t.name)?.testOnly).map((t) => t.name);
  const plan: Plan = { tools, slow: new Set(tools.filter((t) => (budgets.get(t)?.budget ?? 0) > 20_000)) };
  process.stderr.write(
    `soak: ${MINUTES} min, ${WORKERS} workers per server, ${tools.length} tools (${[...plan.slow].join(", ") || "none"} rarely), stdio ${STDIO_IN_FLIGHT} in flight, HTTP ${HTTP_CLIENTS} clients at ${url}\n`,
  );

  const end = Date.now() + MINUTES * 60_000;
  let stopping = false;
  const stop = () => stopping || Date.now() >= end;
  const stdioCounters = newCounters();
  const httpCounters = newCounters();
  const loads = Promise.all([stdioLoad(stdio, plan, stdioCounters, stop), httpLoad(url, plan, httpCounters, stop)]);

  const header = [
    "min",
    "stdio calls/s",
    "stdio p99 ms",
    "HTTP calls/s",
    "HTTP p99 ms",
    "failed",
    "stdio RSS MiB",
    "stdio WASM MiB (per worker)",
    "stdio worker JS heap MiB",
    "HTTP RSS MiB",
    "HTTP WASM MiB (per worker)",
  ];
  const rows: string[][] = [];
  const samples: Array<{ stdio: Memory; http: Memory }> = [];
  let lastStdio = 0;
  let lastHttp = 0;
  let lastAt = performance.now();
  let httpId = 1_000_000_000;
  const started = Date.now();
  let alive = true;
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg();
  /** Everything printed on stdout, for SOAK_OUT. */
  const printed: string[] = [];
  const print = (text: string) => {
    printed.push(text);
    process.stdout.write(text);
  };
  print(`${table(header, [])}\n`);
  while (!stop()) {
    await new Promise((r) => setTimeout(r, Math.min(SAMPLE_SECONDS * 1000, Math.max(0, end - Date.now()))));
    const seconds = (performance.now() - lastAt) / 1000;
    lastAt = performance.now();
    const stdioLat = sortedCopy(stdioCounters.latencies.splice(0));
    const httpLat = sortedCopy(httpCounters.latencies.splice(0));
    const memory = {
      stdio: await memoryOf(() => stdio.call("test_memory", { hold_ms: 300 }), stdio.pid),
      http: await memoryOf(() => httpPost(url, "tools/call", { name: "test_memory", arguments: { hold_ms: 300 } }, httpId++), http.child.pid ?? -1),
    };
    samples.push(memory);
    alive = stdio.child.exitCode === null && http.child.exitCode === null;
    const row = [
      fixed((Date.now() - started) / 60_000, 1),
      fixed((stdioCounters.calls - lastStdio) / seconds, 0),
      fixed(percentile(stdioLat, 99), 1),
      fixed((httpCounters.calls - lastHttp) / seconds, 0),
      fixed(percentile(httpLat, 99), 1),
      String(stdioCounters.unexpected.length + httpCounters.unexpected.length),
      mib(memory.stdio.rss),
      memory.stdio.wasm.map(mib).join(", "),
      memory.stdio.jsHeap.map(mib).join(", "),
      mib(memory.http.rss),
      memory.http.wasm.map(mib).join(", "),
    ];
    lastStdio = stdioCounters.calls;
    lastHttp = httpCounters.calls;
    rows.push(row);
    print(`| ${row.join(" | ")} |\n`);
    if (!alive) break;
  }
  stopping = true;
  await loads;
  await stdio.close();
  await http.stop();

  const growth = (pick: (s: { stdio: Memory; http: Memory }) => Memory) => {
    if (samples.length < 2) return [];
    const first = pick(samples[0]!).wasm;
    const last = pick(samples[samples.length - 1]!).wasm;
    return last.map((b, i) => (b - (first[i] ?? b)) / 2 ** 20);
  };
  const wasmGrowth = [...growth((s) => s.stdio), ...growth((s) => s.http)];
  const unexpected = [...stdioCounters.unexpected, ...httpCounters.unexpected];
  print(
    `\n${stdioCounters.calls} stdio and ${httpCounters.calls} HTTP calls in ${fixed((Date.now() - started) / 60_000, 1)} min; ` +
      `${stdioCounters.expectedErrors + httpCounters.expectedErrors} expected INVALID_SMILES answers; ${unexpected.length} unexpected failures; ` +
      `WASM heap growth since the first sample (MiB per worker): ${wasmGrowth.map((g) => fixed(g, 1)).join(", ") || "n/a"}; ` +
      `servers ${alive ? "alive throughout" : "DIED"}.\n`,
  );
  for (const u of unexpected.slice(0, 10)) print(`  unexpected: ${u}\n`);
  const ok = alive && unexpected.length === 0 && wasmGrowth.every((g) => g <= MAX_WASM_GROWTH_MIB);
  print(ok ? "\nsoak: PASS\n" : "\nsoak: FAIL\n");
  if (OUT !== "-") {
    writeFileSync(OUT, soakReport(printed.join(""), { startedAt, loadAtStart, tools: plan.tools, slow: [...plan.slow] }));
    process.stderr.write(`soak: wrote ${OUT}\n`);
  }
  return ok ? 0 : 1;
}

function soakReport(body: string, run: { startedAt: string; loadAtStart: number[]; tools: string[]; slow: string[] }): string {
  const git = (...args: string[]) => {
    try {
      return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
    } catch {
      return "unknown";
    }
  };
  const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(", ");
  return [
    "# Soak",
    "",
    `Written by \`node build/bench/soak.js\` (bench/soak.ts; not in CI): ${MINUTES} minutes of mixed calls over stdio and Streamable HTTP at once, ` +
      `memory sampled every ${SAMPLE_SECONDS} s. Each server runs ${WORKERS} worker(s) with CHEMATIC_TEST_TOOLS=1 (for \`test_memory\`, which reads each worker's WASM and JS heap) ` +
      `and CHEMATIC_OFFLINE=1. Load: stdio ${STDIO_IN_FLIGHT} calls in flight, HTTP ${HTTP_CLIENTS} clients each with one call in flight; the calls cycle through ` +
      `${run.tools.length} tools (${run.tools.map((t) => `\`${t}\``).join(", ")}; ${run.slow.length > 0 ? `${run.slow.join(", ")} 20 times less often` : "none rarer"}) ` +
      "over ten drug-like molecules, one call in 11 with an invalid SMILES (it must fail with INVALID_SMILES), and tools/list now and then.",
    "",
    `Pass: no server exits, no unexpected failure, and each worker's WASM heap grows by at most ${MAX_WASM_GROWTH_MIB} MiB after the first sample (the WASM heap never shrinks, so a leak shows as growth).`,
    "",
    `- Run: ${run.startedAt}; commit ${git("rev-parse", "--short", "HEAD")}${dirty ? " + uncommitted changes" : ""}`,
    `- Machine: ${cpus()[0]?.model ?? "unknown CPU"}, ${availableParallelism()} logical cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; ${platform()} ${release()}; Node ${process.version}`,
    `- Load average (1, 5, 15 min) at start: ${load(run.loadAtStart)}; at end: ${load(loadavg())}`,
    "",
    body.trimEnd(),
    "",
  ].join("\n");
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`soak: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
