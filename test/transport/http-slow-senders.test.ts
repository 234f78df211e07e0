/**
 * Slow senders cannot lock others out of the HTTP transport: a withheld body holds no concurrency slot,
 * connections still sending a body are capped (the oldest is answered 408) and have their own deadline
 * (408), and open connections overall are capped (the oldest connection not serving a request is closed),
 * so a legitimate client is served while dozens of connections withhold bodies or hundreds sit idle.
 * bench/withheld-bodies.ts is the same scenario against the CLI.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { createApp, type App } from "../../src/app.js";
import { silentLogger } from "../../src/logger.js";
import { endpointOf } from "../../src/server/transport.js";
import { DEFAULT_MAX_READERS, serveHttp, type HttpOptions, type HttpTransport } from "../../src/transport/http.js";
import { modernHeaders, modernPost, parseRawResponse } from "../helpers/http.js";
import { within } from "../helpers/wait.js";

let app: App;

before(async () => {
  process.env.CHEMATIC_TEST_TOOLS = "1"; // test_sleep, read by the worker threads
  app = createApp({ ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error", CHEMATIC_OFFLINE: "1" });
  await app.pool.ready();
});

after(async () => {
  await app.close();
});

async function withServer(options: HttpOptions, run: (http: HttpTransport) => Promise<void>): Promise<void> {
  const http = await serveHttp(endpointOf(app.server, silentLogger), { host: "127.0.0.1", port: 0, ...options });
  try {
    await run(http);
  } finally {
    await http.close(500);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until the transport's counters (readers, connections, inFlight) say so: they change without an event, so they are asked every 5 ms. */
async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

interface RawSocket {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
  isClosed: () => boolean;
}

/** A socket that sends `data` (if any) and then nothing more; `closed` resolves with the time it closed. */
function rawSocket(port: number, data: string | null): RawSocket {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  let closedFlag = false;
  socket.setEncoding("latin1");
  socket.on("data", (d: string) => (text += d));
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => {
      closedFlag = true;
      resolve(Date.now());
    }),
  );
  if (data !== null) socket.write(data);
  return { socket, received: () => text, closed, isClosed: () => closedFlag };
}

/** A complete request head announcing 100 bytes of body, then 10 of them, then nothing. */
function withheldHead(port: number): string {
  const head = Object.entries(modernHeaders({ method: "tools/call", params: { name: "canonical_smiles" } }))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${head}Content-Length: 100\r\n\r\n{"jsonrpc"`;
}

const call = (url: string, id: number) => modernPost(url, id, "tools/call", { name: "canonical_smiles", arguments: { smiles: "OCC" } });

describe("withheld bodies hold no concurrency slot", () => {
  test("20 connections withholding their bodies (more than --max-concurrency 16) do not get a legitimate call 503", async () => {
    await withServer({ maxConcurrency: 16 }, async (http) => {
      const port = http.address.port;
      const withheld = Array.from({ length: 20 }, () => rawSocket(port, withheldHead(port)));
      try {
        await until("every head to be in", () => http.readers === 20);
        assert.equal(http.inFlight, 0, "a request whose body is not in takes no slot");
        for (let i = 1; i <= 5; i++) {
          const r = await call(http.url, i);
          assert.equal(r.status, 200, `call ${i}: ${r.status} ${r.text}`);
        }
        assert.equal(http.readers, 20);
      } finally {
        for (const w of withheld) w.socket.destroy();
      }
    });
  });

  test("64 connections withholding bodies, reopened as soon as they are closed, while a client makes 50 calls: all 50 answered 200 (default limits)", async (t) => {
    await withServer({}, async (http) => {
      const port = http.address.port;
      let stopping = false;
      let reopened = 0;
      const open = new Set<Socket>();
      const withhold = (first: boolean) => {
        if (stopping) return;
        if (!first) reopened++;
        const w = rawSocket(port, withheldHead(port));
        open.add(w.socket);
        void w.closed.then(() => {
          open.delete(w.socket);
          withhold(false);
        });
      };
      try {
        for (let i = 0; i < 64; i++) withhold(true);
        // Every head is in once the 32 over the reader cap have each closed the oldest reader (and been reopened).
        await until("every head to be in", () => reopened >= 64 - DEFAULT_MAX_READERS);
        const statuses: number[] = [];
        for (let i = 1; i <= 50; i++) statuses.push((await call(http.url, i)).status);
        assert.deepEqual(
          statuses.filter((s) => s !== 200),
          [],
          `statuses: ${statuses.join(",")}`,
        );
        assert.ok(http.readers > 0 && http.readers <= 32, `readers ${http.readers}: the withholding connections are readers, at most 32 at once`);
        t.diagnostic(`50 of 50 answered 200; the withholding connections were closed and reopened ${reopened} times`);
      } finally {
        stopping = true;
        for (const s of open) s.destroy();
      }
    });
  });
});

describe("connections still sending a body", () => {
  test("at the reader cap the oldest reader is answered 408 and closed; the newer ones stay", async () => {
    await withServer({ maxReaders: 4 }, async (http) => {
      const port = http.address.port;
      const readers: RawSocket[] = [];
      try {
        for (let i = 0; i < 4; i++) {
          readers.push(rawSocket(port, withheldHead(port)));
          await until(`reader ${i + 1}`, () => http.readers === i + 1);
        }
        readers.push(rawSocket(port, withheldHead(port)));
        await readers[0]!.closed;
        const r = parseRawResponse(readers[0]!.received());
        assert.equal(r.status, 408);
        assert.equal(r.headers.connection, "close");
        assert.equal(r.headers["cache-control"], "no-store");
        assert.match((JSON.parse(r.body) as { error: { message: string } }).error.message, /4 connections were still sending their bodies/);
        await until("the fifth reader", () => http.readers === 4);
        // A check that nothing else happens needs a window, not an event: 50 ms for a wrong close to reach us.
        await sleep(50);
        for (const later of readers.slice(1)) assert.equal(later.isClosed(), false, "only the oldest reader is closed");
        // A complete request is still served, evicting the oldest withholding reader in passing.
        assert.equal((await call(http.url, 1)).status, 200);
        await readers[1]!.closed;
        assert.equal(parseRawResponse(readers[1]!.received()).status, 408);
      } finally {
        for (const r of readers) r.socket.destroy();
      }
    });
  });

  test("a reader past its own deadline gets 408, well before the request timeout", async () => {
    await withServer({ bodyTimeoutMs: 300, requestTimeoutMs: 10_000 }, async (http) => {
      const port = http.address.port;
      const started = Date.now();
      const reader = rawSocket(port, withheldHead(port));
      try {
        const closedAt = await reader.closed;
        const r = parseRawResponse(reader.received());
        assert.equal(r.status, 408);
        assert.equal(r.headers.connection, "close");
        assert.match((JSON.parse(r.body) as { error: { message: string } }).error.message, /body was not received within 300 ms/);
        assert.ok(closedAt - started >= 250 && closedAt - started < 3_000, `closed after ${closedAt - started} ms`);
        assert.equal(http.readers, 0);
      } finally {
        reader.socket.destroy();
      }
    });
  });

  test("a body that arrives slowly but within the deadline is served", async () => {
    await withServer({ bodyTimeoutMs: 2_000 }, async (http) => {
      const port = http.address.port;
      const message = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      });
      const head = Object.entries(modernHeaders({ method: "tools/list" }))
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      const s = rawSocket(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n${head}Content-Length: ${message.length}\r\n\r\n`);
      try {
        for (let i = 0; i < message.length; i += Math.ceil(message.length / 4)) {
          await sleep(100); // the slow sender itself: the pause between chunks is what the test is about
          s.socket.write(message.slice(i, i + Math.ceil(message.length / 4)));
        }
        await s.closed;
        assert.equal(parseRawResponse(s.received()).status, 200);
      } finally {
        s.socket.destroy();
      }
    });
  });
});

describe("open connections overall", () => {
  test("300 idle sockets and 100 dripping headers, past a cap of 50 connections, do not stop a legitimate client; the oldest are closed", async () => {
    await withServer({ maxConnections: 50 }, async (http) => {
      const port = http.address.port;
      const idle = Array.from({ length: 300 }, () => rawSocket(port, null));
      const dripping = Array.from({ length: 100 }, () => rawSocket(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `));
      try {
        await until("the cap to be reached", () => http.connections === 50 && idle[0]!.isClosed());
        for (let i = 1; i <= 10; i++) {
          const r = await call(http.url, i);
          assert.equal(r.status, 200, `call ${i}: ${r.status}`);
        }
        assert.ok(http.connections <= 50, `${http.connections} open`);
        // The oldest went first: the first idle sockets were closed (their closes are waited on), the newest dripping ones survive.
        await within(Promise.all(idle.slice(0, 250).map((s) => s.closed)), 5_000, "the oldest idle sockets to close").catch(() => {});
        assert.equal(idle.slice(0, 250).filter((s) => !s.isClosed()).length, 0, "the oldest idle sockets were closed");
        assert.ok(
          dripping.slice(-30).every((s) => !s.isClosed()),
          "the newest connections stay open",
        );
      } finally {
        for (const s of [...idle, ...dripping]) s.socket.destroy();
      }
    });
  });

  test("at the connection cap a connection serving a request is never the one closed", async () => {
    await withServer({ maxConnections: 10 }, async (http) => {
      const port = http.address.port;
      const busy = modernPost(http.url, 1, "tools/call", { name: "test_sleep", arguments: { ms: 400 } });
      await until("the call in flight", () => http.inFlight === 1);
      const flood = Array.from({ length: 60 }, () => rawSocket(port, null));
      try {
        const r = await busy;
        assert.equal(r.status, 200, r.text);
        assert.equal((JSON.parse(r.text) as { result: { isError?: boolean } }).result.isError, undefined);
        assert.ok(http.connections <= 10, `${http.connections} open`);
      } finally {
        for (const s of flood) s.socket.destroy();
      }
    });
  });
});
