/**
 * The ChEMBL upstream of the spill benchmark, run as its own process so its CPU is not ours: the test
 * suite's fake ChEMBL (test/fixtures/chembl/fake-server.ts) with BENCH_ROWS extra ranked activities on one
 * target and BENCH_LATENCY_MS added before every answer. Prints one JSON line {"baseUrl", "target"} on
 * stdout when it listens; exits when stdin closes.
 *
 * The fake filters, sorts, shapes and serialises its whole table on every request (fine for tests; with
 * 20,000 rows a page costs it ~100 ms of CPU, serially, on its one thread). A real ChEMBL answers from an
 * index and the benchmark is about our client, so this process memoises each answer by URL: once a page
 * has been served (the benchmark walks the view once, untimed, first), serving it again costs the fake
 * only the write, and the added latency stands for the upstream's time.
 */
import type { ServerResponse } from "node:http";
import { FakeChembl } from "../test/fixtures/chembl/fake-server.js";
import { ACTIVITIES, type Rec } from "../test/fixtures/chembl/world.js";

export const BENCH_TARGET = "CHEMBL9999001";

const rows = Number(process.env.BENCH_ROWS ?? 20_000);
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 50);

const template = ACTIVITIES.find((r) => r.target_chembl_id === "CHEMBL235" && typeof r.pchembl_value === "string");
if (!template) throw new Error("the fake world has no ranked PPARgamma activity to copy");
for (let i = 0; i < rows; i++) {
  const pchembl = (4 + (i % 600) / 100).toFixed(2); // 4.00 to 9.99, many ties: the activity_id order matters
  ACTIVITIES.push({
    ...template,
    activity_id: 9_000_000 + i,
    record_id: 9_000_000 + i,
    target_chembl_id: BENCH_TARGET,
    pchembl_value: pchembl,
    standard_value: (10 ** (9 - Number(pchembl))).toPrecision(4),
    value: (10 ** (9 - Number(pchembl))).toPrecision(4),
  } satisfies Rec);
}

const fake = await new FakeChembl().start();
fake.delayMs = latencyMs;
interface Internals {
  route(path: string, q: URLSearchParams): { status: number; body: unknown };
  send(res: ServerResponse, status: number, body: unknown): void;
}
const internals = fake as unknown as Internals;
const route = internals.route.bind(fake);
const send = internals.send.bind(fake);
const answers = new Map<string, { status: number; body: unknown }>();
const texts = new WeakMap<object, string>();
internals.route = (path, q) => {
  const key = `${path}?${q.toString()}`;
  let hit = answers.get(key);
  if (!hit) answers.set(key, (hit = route(path, q)));
  return hit;
};
internals.send = (res, status, body) => {
  if (status !== 200 || typeof body !== "object" || body === null) return send(res, status, body);
  let text = texts.get(body);
  if (text === undefined) texts.set(body, (text = JSON.stringify(body)));
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
};

process.stdout.write(`${JSON.stringify({ baseUrl: fake.baseUrl, target: BENCH_TARGET, rows, latencyMs })}\n`);
process.stdin.resume();
process.stdin.on("end", () => void fake.stop().then(() => process.exit(0)));
