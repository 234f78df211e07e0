/**
 * The Streamable HTTP transport in process, against the real server, registry and worker pool: one test
 * per row of the status table, the DNS-rebinding cases, the mirrored headers, both dialects, keep-alive
 * and its idle timeout, per-request SSE and cancellation by closing the stream. Timeouts are shortened
 * (requestTimeoutMs) so that 408 and the idle timeout are seen within a second or two.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { createApp, type App } from "../../src/app.js";
import { silentLogger } from "../../src/logger.js";
import { endpointOf } from "../../src/server/transport.js";
import { McpServer } from "../../src/server/server.js";
import type { ServiceTool } from "../../src/contract/tool.js";
import { serveHttp, type HttpTransport } from "../../src/transport/http.js";
import { MODERN_META } from "../helpers/server-process.js";
import { Changes, within } from "../helpers/wait.js";
import { JSON_HEADERS, httpSend, modernHeaders, modernPost, parseRawResponse, rawExchange, type HttpReply } from "../helpers/http.js";

const REQUEST_TIMEOUT_MS = 800;

/** Calls of the probe tool, so a test can see its work start and be aborted (probeChanges tells of each). */
const probeCalls: Array<{ aborted: boolean }> = [];
const probeChanges = new Changes();

const probeTool: ServiceTool<{ hold_ms: number }> = {
  kind: "service",
  toolset: "chem",
  name: "probe_wait",
  title: "Probe: wait until cancelled",
  description: "Test probe: reports progress once, then waits up to hold_ms milliseconds or until the call is cancelled, recording which happened.",
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  inputSchema: {
    type: "object",
    properties: { hold_ms: { type: "integer", minimum: 0, maximum: 5000, description: "How long to wait." } },
    required: ["hold_ms"],
    additionalProperties: false,
  },
  outputSchema: { type: "object", properties: { waited: { type: "boolean", description: "Always true." } }, required: ["waited"], additionalProperties: false },
  errors: [],
  budgetMs: 10_000,
  testOnly: true,
  async run({ hold_ms }, { signal, progress }) {
    const call = { aborted: false };
    probeCalls.push(call);
    probeChanges.notify();
    progress(1, 2, "waiting");
    // The hold is the probe's work (a slow tool), not a wait in the test.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, hold_ms);
      signal.addEventListener("abort", () => {
        call.aborted = true;
        probeChanges.notify();
        clearTimeout(timer);
        resolve();
      });
    });
    return { waited: true };
  },
};

const needsSamplingTool: ServiceTool = {
  ...probeTool,
  name: "probe_needs_sampling",
  description: "Test probe: needs the client's sampling capability (a 2026-07-28 call without it gets -32021), then answers at once.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  requiredClientCapabilities: ["sampling"],
  async run() {
    return { waited: true };
  },
};

function assertCommonHeaders(reply: { headers: Record<string, unknown> }): void {
  assert.equal(reply.headers["cache-control"], "no-store");
  assert.equal(reply.headers["x-content-type-options"], "nosniff");
  for (const name of Object.keys(reply.headers)) assert.ok(!name.startsWith("access-control-"), `no CORS header: ${name}`);
  assert.equal(reply.headers["mcp-session-id"], undefined, "no session is ever issued");
}

function rpc(reply: HttpReply): { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } {
  return JSON.parse(reply.text) as { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

let app: App;
let http: HttpTransport;
let url: string;
let port: number;

before(async () => {
  process.env.CHEMATIC_TEST_TOOLS = "1"; // the worker threads read it: test_sleep and test_crash
  app = createApp({ ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error" });
  const server = new McpServer({
    tools: [...app.server.registry.tools(), probeTool, needsSamplingTool],
    pool: app.pool,
    info: app.server.info,
    logger: silentLogger,
  });
  http = await serveHttp(endpointOf(server, silentLogger), {
    host: "127.0.0.1",
    port: 0,
    allowedOrigins: ["https://app.example.com"],
    maxConcurrency: 2,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  url = http.url;
  port = http.address.port;
  await app.pool.ready();
});

after(async () => {
  await http.close(1_000);
  await app.close();
});

describe("200 and 202", () => {
  test("200: a result, and a chemistry failure is a result too (isError)", async () => {
    const ok = await modernPost(url, 1, "tools/call", { name: "parse_smiles", arguments: { smiles: "c1ccccc1" } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["content-type"], "application/json");
    assertCommonHeaders(ok);
    assert.equal((rpc(ok).result!.structuredContent as { atoms: number }).atoms, 6);
    const bad = await modernPost(url, 2, "tools/call", { name: "parse_smiles", arguments: { smiles: "C1CC(" } });
    assert.equal(bad.status, 200);
    assert.equal(rpc(bad).result!.isError, true);
    const schema = await modernPost(url, 3, "tools/call", { name: "parse_smiles", arguments: { smiles: 5 } });
    assert.equal(schema.status, 200, "arguments that break the inputSchema are an INVALID_ARGUMENTS result, as on stdio");
    assert.equal((rpc(schema).result!.structuredContent as { error: { code: string } }).error.code, "INVALID_ARGUMENTS");
  });

  test("202: a notification, with an empty body", async () => {
    const r = await httpSend(url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { headers: JSON_HEADERS });
    assert.equal(r.status, 202);
    assert.equal(r.text, "");
    assert.equal(r.headers["content-type"], undefined);
    assertCommonHeaders(r);
  });
});

describe("400", () => {
  test("-32700: not JSON, and not UTF-8", async () => {
    for (const body of ["not json", Buffer.from([0x7b, 0xc3, 0x28, 0x7d])]) {
      const r = await httpSend(url, body, { headers: JSON_HEADERS });
      assert.equal(r.status, 400);
      assertCommonHeaders(r);
      assert.equal(rpc(r).error!.code, -32700);
      assert.equal(rpc(r).id, null);
    }
    const empty = await httpSend(url, "", { headers: JSON_HEADERS });
    assert.equal(empty.status, 400);
    assert.equal(rpc(empty).error!.code, -32700);
  });

  test("-32600: anything but one JSON-RPC object (a batch, a scalar, a response, a limit, a bad envelope)", async () => {
    const bodies = [
      JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]),
      "42",
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }),
      JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list" }),
      `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${"[".repeat(100)}${"]".repeat(100)}}}`,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { a: "b".repeat(256 * 1024 + 1) } }),
    ];
    for (const body of bodies) {
      const r = await httpSend(url, body, { headers: JSON_HEADERS });
      assert.equal(r.status, 400, body.slice(0, 60));
      assert.equal(rpc(r).error!.code, -32600, body.slice(0, 60));
    }
  });

  test("-32602: _meta without protocolVersion or capabilities, an unknown tool, a malformed call", async () => {
    const noVersion = { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } } };
    const r1 = await httpSend(url, JSON.stringify(noVersion), { headers: modernHeaders(noVersion) });
    assert.equal(r1.status, 400);
    assert.equal(rpc(r1).error!.code, -32602);
    assert.equal(rpc(r1).id, 7, "errors carry the request id");
    const noCaps = { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } };
    const r2 = await httpSend(url, JSON.stringify(noCaps), { headers: modernHeaders(noCaps) });
    assert.equal(rpc(r2).error!.code, -32602);
    assert.equal(r2.status, 400);
    // A modern header over a body that lacks _meta: a modern request without its _meta.
    const bare = { jsonrpc: "2.0", id: 9, method: "tools/list" };
    const r3 = await httpSend(url, JSON.stringify(bare), { headers: modernHeaders(bare) });
    assert.equal(r3.status, 400);
    assert.equal(rpc(r3).error!.code, -32602);
    const unknown = await modernPost(url, 10, "tools/call", { name: "no_such_tool", arguments: {} });
    assert.equal(unknown.status, 400);
    assert.equal(rpc(unknown).error!.code, -32602);
  });

  test("-32020: mirrored headers missing, repeated or different; Mcp-Name decoded and trimmed", async () => {
    const call = { jsonrpc: "2.0", id: 11, method: "tools/call", params: { _meta: MODERN_META, name: "canonical_smiles", arguments: { smiles: "OCC" } } };
    const body = JSON.stringify(call);
    const good = modernHeaders(call);
    const cases: Array<[string, Record<string, string | string[]>]> = [
      ["no MCP-Protocol-Version", { ...good, "MCP-Protocol-Version": "" }],
      ["different MCP-Protocol-Version", { ...good, "MCP-Protocol-Version": "2025-11-25" }],
      ["no Mcp-Method", { ...good, "Mcp-Method": "" }],
      ["different Mcp-Method", { ...good, "Mcp-Method": "tools/list" }],
      ["repeated Mcp-Method", { ...good, "Mcp-Method": ["tools/call", "tools/call"] }],
      ["no Mcp-Name", { ...good, "Mcp-Name": "" }],
      ["different Mcp-Name", { ...good, "Mcp-Name": "parse_smiles" }],
      ["case differs in Mcp-Name", { ...good, "Mcp-Name": "Canonical_Smiles" }],
      ["malformed base64", { ...good, "Mcp-Name": "=?base64?%%%?=" }],
    ];
    for (const [what, headers] of cases) {
      const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ""));
      const r = await httpSend(url, body, { headers: sent });
      assert.equal(r.status, 400, what);
      assert.equal(rpc(r).error!.code, -32020, what);
      assert.equal(rpc(r).id, 11, what);
    }
    const b64 = `=?base64?${Buffer.from("canonical_smiles").toString("base64")}?=`;
    for (const name of [b64, `  ${b64}  `, " canonical_smiles "]) {
      const r = await httpSend(url, body, { headers: { ...good, "Mcp-Name": name } });
      assert.equal(r.status, 200, name);
      assert.equal((rpc(r).result!.structuredContent as { canonical: string }).canonical, "CCO");
    }
    // Header names are case-insensitive.
    const lower = Object.fromEntries(Object.entries(good).map(([k, v]) => [k.toLowerCase(), v]));
    assert.equal((await httpSend(url, body, { headers: lower })).status, 200);
  });

  test("-32022: an unsupported version, with the supported list; header and body must agree first", async () => {
    const params = { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "v999.0.0" } };
    const same = { jsonrpc: "2.0", id: 12, method: "server/discover", params };
    const r = await httpSend(url, JSON.stringify(same), { headers: { ...modernHeaders(same), "MCP-Protocol-Version": "v999.0.0" } });
    assert.equal(r.status, 400);
    assert.equal(rpc(r).error!.code, -32022);
    assert.deepEqual(rpc(r).error!.data, { supported: ["2026-07-28"], requested: "v999.0.0" });
    const differ = await httpSend(url, JSON.stringify(same), { headers: modernHeaders(same) });
    assert.equal(rpc(differ).error!.code, -32020);
  });

  test("-32021: a tool that needs a client capability the request did not declare", async () => {
    const r = await modernPost(url, 13, "tools/call", { name: "probe_needs_sampling", arguments: {} });
    assert.equal(r.status, 400);
    assert.equal(rpc(r).error!.code, -32021);
    assert.deepEqual((rpc(r).error!.data as { requiredCapabilities: unknown }).requiredCapabilities, { sampling: {} });
    const declared = {
      jsonrpc: "2.0",
      id: 14,
      method: "tools/call",
      params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { sampling: {} } }, name: "probe_needs_sampling", arguments: {} },
    };
    assert.equal((await httpSend(url, JSON.stringify(declared), { headers: modernHeaders(declared) })).status, 200);
  });

  test("a request without a Host header", async () => {
    const r = parseRawResponse((await rawExchange(port, "POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", 2_000)).text);
    assert.equal(r.status, 400);
    assert.equal(r.headers["cache-control"], "no-store");
  });
});

describe("403: DNS-rebinding protection on a loopback bind", () => {
  const list = { jsonrpc: "2.0", id: 20, method: "tools/list", params: { _meta: MODERN_META } };
  const send = (extra: Record<string, string>) => httpSend(url, JSON.stringify(list), { headers: { ...modernHeaders(list), ...extra } });

  test("a Host that is not loopback (a rebound name) is refused", async () => {
    for (const host of ["evil.example", `evil.example:${port}`, "localhost.evil.example", "192.168.1.10"]) {
      const r = await send({ Host: host });
      assert.equal(r.status, 403, host);
      assertCommonHeaders(r);
    }
  });

  test("loopback Hosts are served", async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, "localhost"]) assert.equal((await send({ Host: host })).status, 200, host);
  });

  test("an Origin that is neither loopback nor listed is refused, with no CORS header", async () => {
    for (const origin of ["https://evil.example", "null", "http://app.example.com", "https://app.example.com.evil.example"]) {
      const r = await send({ Origin: origin });
      assert.equal(r.status, 403, origin);
      assertCommonHeaders(r);
    }
  });

  test("an allowed Origin (--allowed-origin) and loopback Origins are served, still without CORS headers", async () => {
    for (const origin of ["https://app.example.com", "https://app.example.com:443", "http://localhost:5173", `http://127.0.0.1:${port}`]) {
      const r = await send({ Origin: origin });
      assert.equal(r.status, 200, origin);
      assertCommonHeaders(r);
    }
  });
});

describe("404, 405, 406, 411, 413, 415", () => {
  test("404: another path", async () => {
    for (const path of ["/", "/mcp/", "/sse", "/MCP"]) {
      const r = await httpSend(url, "{}", { headers: JSON_HEADERS, path });
      assert.equal(r.status, 404, path);
      assertCommonHeaders(r);
    }
    assert.equal((await httpSend(`${url}?x=1`, JSON.stringify(list()), { headers: modernHeaders(list()) })).status, 200, "a query string is ignored");
    function list() {
      return { jsonrpc: "2.0", id: 30, method: "tools/list", params: { _meta: MODERN_META } };
    }
  });

  test("404: a method this server does not serve (-32601), id kept", async () => {
    for (const method of ["resources/list", "prompts/list", "initialize", "ping", "logging/setLevel", "unknown/method"]) {
      const r = await modernPost(url, 31, method);
      assert.equal(r.status, 404, method);
      assert.equal(rpc(r).error!.code, -32601, method);
      assert.equal(rpc(r).id, 31);
    }
  });

  test("405: every method but POST, with Allow: POST", async () => {
    for (const method of ["GET", "DELETE", "OPTIONS", "PUT", "PATCH", "HEAD"]) {
      const r = await httpSend(url, null, { method, headers: { Accept: "application/json, text/event-stream", Origin: "https://app.example.com" } });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, "POST");
      assertCommonHeaders(r);
    }
  });

  test("406: an Accept that does not admit application/json", async () => {
    for (const accept of ["text/html", "text/event-stream", "application/json;q=0"]) {
      const r = await httpSend(url, "{}", { headers: { "Content-Type": "application/json", Accept: accept } });
      assert.equal(r.status, 406, accept);
      assertCommonHeaders(r);
    }
  });

  test("411: no Content-Length, or a chunked body (not read)", async () => {
    const raw = await rawExchange(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n\r\n`, 2_000);
    const r = parseRawResponse(raw.text);
    assert.equal(r.status, 411);
    assert.equal(r.headers["cache-control"], "no-store");
    const chunked = await httpSend(url, "{}", { headers: { ...JSON_HEADERS, "Transfer-Encoding": "chunked" } });
    assert.equal(chunked.status, 411);
    assertCommonHeaders(chunked);
  });

  test("413: a body over 1 MiB, refused before it is read", async () => {
    const raw = await rawExchange(
      port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{`,
      2_000,
    );
    const r = parseRawResponse(raw.text);
    assert.equal(r.status, 413);
    assert.equal(r.headers.connection, "close");
    assert.equal(raw.closed, true);
    const whole = await httpSend(url, `{"a":"${"x".repeat(1024 * 1024)}"}`, { headers: JSON_HEADERS });
    assert.equal(whole.status, 413, "a client that sends the whole body still reads the 413");
  });

  test("415: a Content-Type other than application/json", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"]) {
      const r = await httpSend(url, "{}", { headers: { "Content-Type": type, Accept: "application/json" } });
      assert.equal(r.status, 415, type);
    }
    const none = await httpSend(url, "{}", { headers: { Accept: "application/json" } });
    assert.equal(none.status, 415);
  });
});

describe("-32603 keeps its body", () => {
  test("an internal error (-32603) in the 2026-07-28 dialect is answered 200 with its JSON-RPC body; the details stay in the server log", async () => {
    const r = await modernPost(url, 35, "tools/call", { name: "test_crash", arguments: { mode: "throw" } });
    assert.equal(r.status, 200);
    assertCommonHeaders(r);
    assert.deepEqual(rpc(r).error, { code: -32603, message: "Internal error" });
    assert.equal(rpc(r).id, 35);
  });
});

describe("408, 431, 503", () => {
  test("408: request headers not received in time", async () => {
    const raw = await rawExchange(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, 5_000);
    const r = parseRawResponse(raw.text);
    assert.equal(r.status, 408);
    assert.equal(r.headers["cache-control"], "no-store");
    assert.equal(r.headers["x-content-type-options"], "nosniff");
    assert.equal(raw.closed, true);
    assert.ok(raw.ms >= REQUEST_TIMEOUT_MS - 50 && raw.ms < REQUEST_TIMEOUT_MS + 2_000, `answered after ${raw.ms} ms`);
  });

  test("408: a body that does not arrive in time", async () => {
    const raw = await rawExchange(
      port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
      5_000,
    );
    assert.equal(parseRawResponse(raw.text).status, 408);
    assert.equal(raw.closed, true);
  });

  test("408: a connection that sends nothing is closed", async () => {
    const raw = await rawExchange(port, null, 5_000);
    assert.equal(raw.closed, true);
    assert.equal(parseRawResponse(raw.text).status, 408);
  });

  test("the time limit is on receiving the request, not on the tool", async () => {
    const r = await modernPost(url, 40, "tools/call", { name: "probe_wait", arguments: { hold_ms: REQUEST_TIMEOUT_MS * 2 } });
    assert.equal(r.status, 200);
    assert.deepEqual(rpc(r).result!.structuredContent, { waited: true });
  });

  test("431: request line over 8 KiB, headers over 32 KiB, more than 100 fields", async () => {
    const long = await httpSend(`${url}?q=${"a".repeat(9 * 1024)}`, "{}", { headers: JSON_HEADERS });
    assert.equal(long.status, 431);
    assertCommonHeaders(long);
    const big = await httpSend(url, "{}", { headers: { ...JSON_HEADERS, "X-Big": "a".repeat(33 * 1024) } });
    assert.equal(big.status, 431);
    const many: Record<string, string> = { ...JSON_HEADERS };
    for (let i = 0; i < 101; i++) many[`X-F${i}`] = "1";
    const fields = await httpSend(url, "{}", { headers: many });
    assert.equal(fields.status, 431);
    // Past the parser's own bound the parser answers, with the same headers.
    const raw = await rawExchange(port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ${"a".repeat(48 * 1024)}\r\n\r\n`, 2_000);
    const r = parseRawResponse(raw.text);
    assert.equal(r.status, 431);
    assert.equal(r.headers["cache-control"], "no-store");
    // Just under every limit is served.
    const under: Record<string, string> = { ...modernHeaders({ method: "tools/list" }) };
    for (let i = 0; i < 90; i++) under[`X-F${i}`] = "1";
    under["X-Big"] = "a".repeat(30 * 1024);
    const ok = await httpSend(
      `${url}?q=${"a".repeat(7 * 1024)}`,
      JSON.stringify({ jsonrpc: "2.0", id: 41, method: "tools/list", params: { _meta: MODERN_META } }),
      { headers: under },
    );
    assert.equal(ok.status, 200);
  });

  test("503 with Retry-After: 1 past the concurrency limit; served again once requests finish", async () => {
    const before = probeCalls.length;
    const slow = [0, 1].map((i) => modernPost(url, 50 + i, "tools/call", { name: "probe_wait", arguments: { hold_ms: 600 } }));
    await probeChanges.until(() => probeCalls.length === before + 2, "both slow calls to be running", 5_000);
    assert.equal(http.inFlight, 2);
    const refused = await modernPost(url, 52, "tools/list");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers["retry-after"], "1");
    assertCommonHeaders(refused);
    for (const r of await Promise.all(slow)) assert.equal(r.status, 200);
    assert.equal((await modernPost(url, 53, "tools/list")).status, 200);
    assert.equal(http.inFlight, 0);
  });
});

describe("keep-alive", () => {
  test("requests reuse one connection; an idle connection is closed after the timeout", async () => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let closedAt = 0;
    const arrived = new Changes();
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      received += d;
      arrived.notify();
    });
    const closed = new Promise<void>((resolve) => socket.on("close", () => ((closedAt = Date.now()), resolve())));
    const responses = () => received.split("HTTP/1.1 ").filter(Boolean);
    for (let i = 0; i < 3; i++) {
      const message = JSON.stringify({ jsonrpc: "2.0", id: 60 + i, method: "tools/list", params: { _meta: MODERN_META } });
      const head = Object.entries(modernHeaders({ method: "tools/list" }))
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${head}Content-Length: ${message.length}\r\n\r\n${message}`);
      await arrived.until(() => responses().length >= i + 1, `response ${i + 1}`, 5_000).catch(() => {});
      assert.match(responses()[i] ?? "", /^200 OK\r\n[\s\S]*Connection: keep-alive/, `response ${i + 1} on the same connection`);
    }
    const idleFrom = Date.now();
    await within(closed, 5_000, "the server to close the idle connection").catch(() => {});
    assert.ok(closedAt > 0, "the idle connection was closed by the server");
    assert.ok(closedAt - idleFrom >= REQUEST_TIMEOUT_MS - 50, `closed after ${closedAt - idleFrom} ms idle`);
    socket.destroy();
  });
});

/** Reads an SSE response until the server ends it or `stopAfter` events; returns the events' data. */
function sse(
  message: Record<string, unknown>,
  accept: string,
  stopAfter = Infinity,
): Promise<{ status: number; headers: Record<string, unknown>; events: Array<Record<string, unknown>>; raw: string }> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent: false, headers: { ...modernHeaders(message as { method: string }), Accept: accept, "Content-Length": Buffer.byteLength(body) } },
      (res) => {
        let raw = "";
        const events: Array<Record<string, unknown>> = [];
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          raw += d;
          // Complete events only (each ends with a blank line).
          events.length = 0;
          for (const m of raw.matchAll(/^data: (.*)\n\n/gm)) events.push(JSON.parse(m[1]!) as Record<string, unknown>);
          if (events.length >= stopAfter) {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, events, raw });
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events, raw }));
        res.on("error", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events, raw }));
      },
    );
    req.on("error", (e) => (stopAfter === Infinity ? reject(e) : undefined));
    req.end(body);
  });
}

describe("per-request SSE", () => {
  test("a progressToken and an Accept that admits text/event-stream: progress notifications, then the result", async () => {
    const message = {
      jsonrpc: "2.0",
      id: 70,
      method: "tools/call",
      params: { _meta: { ...MODERN_META, progressToken: "p-70" }, name: "test_sleep", arguments: { ms: 600 } },
    };
    const r = await sse(message, "application/json, text/event-stream");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/event-stream");
    assert.equal(r.headers["x-accel-buffering"], "no");
    assertCommonHeaders(r);
    const progress = r.events.filter((e) => e.method === "notifications/progress");
    assert.ok(progress.length >= 2, `progress events: ${r.raw}`);
    for (const p of progress) assert.equal((p.params as { progressToken: string }).progressToken, "p-70");
    const values = progress.map((p) => (p.params as { progress: number }).progress);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => a - b),
    );
    const last = r.events.at(-1)!;
    assert.equal(last.id, 70);
    assert.equal(((last.result as Record<string, unknown>).structuredContent as { slept_ms: number }).slept_ms >= 600, true);
    assert.match(r.raw, /^event: message\ndata: /);
  });

  test("without text/event-stream in Accept, or without progress, the answer is plain JSON", async () => {
    const message = {
      jsonrpc: "2.0",
      id: 71,
      method: "tools/call",
      params: { _meta: { ...MODERN_META, progressToken: 71 }, name: "test_sleep", arguments: { ms: 300 } },
    };
    const plain = await httpSend(url, JSON.stringify(message), { headers: { ...modernHeaders(message), Accept: "application/json" } });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-type"], "application/json");
    assert.equal(rpc(plain).id, 71);
    const quick = {
      jsonrpc: "2.0",
      id: 72,
      method: "tools/call",
      params: { _meta: { ...MODERN_META, progressToken: 72 }, name: "parse_smiles", arguments: { smiles: "CCO" } },
    };
    const r = await httpSend(url, JSON.stringify(quick), { headers: modernHeaders(quick) });
    assert.equal(r.headers["content-type"], "application/json");
  });

  test("closing the stream cancels the call", async () => {
    const before = probeCalls.length;
    const message = {
      jsonrpc: "2.0",
      id: 73,
      method: "tools/call",
      params: { _meta: { ...MODERN_META, progressToken: "p-73" }, name: "probe_wait", arguments: { hold_ms: 4000 } },
    };
    const r = await sse(message, "application/json, text/event-stream", 1);
    assert.equal(r.events[0]!.method, "notifications/progress");
    await probeChanges.until(() => probeCalls[before]?.aborted === true, "the tool to see the cancellation", 2_000).catch(() => {});
    assert.equal(probeCalls[before]!.aborted, true, "the tool saw the cancellation");
    // The transport tells of no request's end, only its count: asked until it reaches 0 (a bounded poll, not a pause).
    const deadline = Date.now() + 2_000;
    while (http.inFlight > 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    assert.equal(http.inFlight, 0);
  });

  test("a client that drops a plain JSON request cancels it too", async () => {
    const before = probeCalls.length;
    const message = { jsonrpc: "2.0", id: 74, method: "tools/call", params: { _meta: MODERN_META, name: "probe_wait", arguments: { hold_ms: 4000 } } };
    const pending = httpSend(url, JSON.stringify(message), { headers: modernHeaders(message), timeoutMs: 300 });
    await assert.rejects(pending);
    await probeChanges.until(() => probeCalls[before]?.aborted === true, "the tool to see the cancellation", 2_000).catch(() => {});
    assert.equal(probeCalls[before]?.aborted, true);
  });
});

describe("legacy dialect over HTTP, stateless", () => {
  const legacy = (id: number, method: string, params: Record<string, unknown>, version?: string) =>
    httpSend(url, JSON.stringify({ jsonrpc: "2.0", id, method, params }), {
      headers: { ...JSON_HEADERS, ...(version ? { "MCP-Protocol-Version": version } : {}) },
    });

  test("initialize negotiates from the body; no Mcp-Session-Id is issued", async () => {
    const r = await legacy(80, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    assert.equal(r.status, 200);
    assertCommonHeaders(r);
    assert.equal(rpc(r).result!.protocolVersion, "2025-11-25");
    const old = await legacy(81, "initialize", { protocolVersion: "2024-11-05", capabilities: {} });
    assert.equal(rpc(old).result!.protocolVersion, "2024-11-05");
  });

  test("the version comes from MCP-Protocol-Version, 2025-03-26 without it", async () => {
    const none = await legacy(82, "tools/call", { name: "parse_smiles", arguments: { smiles: "CCO" } });
    assert.equal(none.status, 200);
    assert.equal(rpc(none).result!.structuredContent, undefined, "2025-03-26 has no structuredContent");
    const v2025 = await legacy(83, "tools/call", { name: "parse_smiles", arguments: { smiles: "CCO" } }, "2025-11-25");
    assert.equal((rpc(v2025).result!.structuredContent as { atoms: number }).atoms, 3);
    const list = await legacy(84, "tools/list", {}, "2025-06-18");
    assert.equal(typeof (rpc(list).result!.tools as Array<{ title?: string }>)[0]!.title, "string");
    const listOld = await legacy(85, "tools/list", {});
    assert.equal((rpc(listOld).result!.tools as Array<{ title?: string }>)[0]!.title, undefined);
    const ancient = await legacy(86, "tools/call", { name: "parse_smiles", arguments: { smiles: "C1CC(" } }, "2024-11-05");
    assert.equal(ancient.status, 200, "legacy JSON-RPC errors travel in a 200");
    assert.equal(rpc(ancient).error!.code, -32000);
    const ping = await legacy(87, "ping", {}, "2025-11-25");
    assert.deepEqual(rpc(ping).result, {});
  });

  test("legacy errors: unknown method -32601 in a 200; an unknown header version is 400 -32022", async () => {
    const r = await legacy(88, "resources/list", {}, "2025-11-25");
    assert.equal(r.status, 200);
    assert.equal(rpc(r).error!.code, -32601);
    const bad = await legacy(89, "tools/list", {}, "1999-01-01");
    assert.equal(bad.status, 400);
    assert.equal(rpc(bad).error!.code, -32022);
    assert.deepEqual((rpc(bad).error!.data as { supported: string[] }).supported, ["2026-07-28"], "the same list as a refused _meta version");
  });

  test("an Mcp-Session-Id sent by an older client is ignored", async () => {
    const r = await httpSend(url, JSON.stringify({ jsonrpc: "2.0", id: 90, method: "tools/list", params: {} }), {
      headers: { ...JSON_HEADERS, "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "abc" },
    });
    assert.equal(r.status, 200);
    assert.ok(Array.isArray(rpc(r).result!.tools));
  });
});
