/**
 * Withheld bodies (not in CI; the regression tests are in test/transport/http-slow-senders.test.ts): starts
 * the server (`--transport streamable-http --port 0`), opens WITHHELD_SOCKETS (default 64) connections that
 * each send a complete request head announcing a body and then withhold it, reopening any connection the
 * server closes so the pressure never lets up, plus IDLE_SOCKETS (default 0) connections that send nothing
 * (slowloris). Meanwhile one client makes CALLS (default 50) tools/call requests one after another, each on
 * a fresh connection, and the script prints how many were answered 200. Exits 1 unless all were.
 *
 *   npm run build && node build/bench/withheld-bodies.js
 *   WITHHELD_SOCKETS=128 IDLE_SOCKETS=400 node build/bench/withheld-bodies.js
 */
import { connect, type Socket } from "node:net";
import { HttpServerProcess, modernHeaders, modernPost } from "../test/helpers/http.js";

const WITHHELD = Number(process.env.WITHHELD_SOCKETS ?? 64);
const IDLE = Number(process.env.IDLE_SOCKETS ?? 0);
const CALLS = Number(process.env.CALLS ?? 50);

async function main(): Promise<number> {
  const server = new HttpServerProcess([], { CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
  const url = await server.url;
  const port = await server.port();
  // Warm the worker, so the first timed call does not pay RDKit's start.
  await modernPost(url, 0, "tools/call", { name: "canonical_smiles", arguments: { smiles: "C" } });

  let stopping = false;
  const sockets = new Set<Socket>();
  let reopened = 0;
  const head = Object.entries(modernHeaders({ method: "tools/call", params: { name: "canonical_smiles" } }))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  const open = (withhold: boolean, first: boolean) => {
    if (stopping) return;
    if (!first) reopened++;
    const socket = connect(port, "127.0.0.1");
    sockets.add(socket);
    socket.on("error", () => {});
    socket.resume();
    socket.once("close", () => {
      sockets.delete(socket);
      open(withhold, false);
    });
    // A head that announces 100 bytes, then 10 of them, then nothing.
    if (withhold) socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${head}Content-Length: 100\r\n\r\n{"jsonrpc"`);
  };
  for (let i = 0; i < WITHHELD; i++) open(true, true);
  for (let i = 0; i < IDLE; i++) open(false, true);
  // Let every withholding head reach the server before the client starts.
  await new Promise((r) => setTimeout(r, 500));

  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  const started = Date.now();
  for (let i = 1; i <= CALLS; i++) {
    const t0 = Date.now();
    let status: number;
    try {
      status = (await modernPost(url, i, "tools/call", { name: "canonical_smiles", arguments: { smiles: "OCC" } })).status;
    } catch {
      status = 0; // no answer (reset or timed out)
    }
    latencies.push(Date.now() - t0);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const elapsed = Date.now() - started;
  stopping = true;
  for (const s of sockets) s.destroy();
  await server.stop();

  const ok = statuses.get(200) ?? 0;
  latencies.sort((a, b) => a - b);
  const summary = [...statuses.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${n}x ${s === 0 ? "no answer" : s}`)
    .join(", ");
  console.log(
    `withheld-bodies: ${WITHHELD} withholding + ${IDLE} idle connections (${reopened} reopened after the server closed them); ` +
      `${ok}/${CALLS} calls answered 200 (${summary}) in ${elapsed} ms, p50 ${latencies[Math.floor(latencies.length / 2)] ?? 0} ms, max ${latencies.at(-1) ?? 0} ms`,
  );
  return ok === CALLS ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(2);
  },
);
