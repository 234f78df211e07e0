/**
 * stdio and Streamable HTTP give the same bytes: the same requests, sent to the CLI over stdio and to the
 * CLI over HTTP, must be answered by identical JSON-RPC lines, for every tool (a call built from its
 * inputSchema, a call with no arguments, a call with an invalid SMILES) and every error class (-32700,
 * -32600, -32601, -32602, -32022, -32603, INVALID_ARGUMENTS, INVALID_SMILES, TIMEOUT, BUSY), in the
 * 2026-07-28 dialect and in two legacy versions.
 *
 * Tools that reach the network (openWorldHint) are compared on their argument checks only, which answer
 * before any upstream call, so the comparison never depends on a remote service.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";
import { HttpServerProcess, httpSend, modernHeaders } from "../helpers/http.js";
import { exampleFor } from "../helpers/schema-example.js";

const ENV = { CHEMATIC_TEST_TOOLS: "1", CHEMATIC_WORKERS: "1", CHEMATIC_MAX_QUEUE: "0", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" };

type Schema = Record<string, unknown>;

let stdio: ServerProcess;
let http: HttpServerProcess;
let url: string;

/** Sends one raw frame over stdio and returns the next line (each request here gets exactly one). */
async function overStdio(server: ServerProcess, raw: string): Promise<string> {
  const before = server.lines.length;
  server.sendRaw(`${raw}\n`);
  await server.until(() => server.lines.length > before, `a stdio answer to ${raw.slice(0, 200)}`, 30_000);
  return server.lines[before]!;
}

async function overHttp(raw: string, headers: Record<string, string>): Promise<string> {
  return (await httpSend(url, raw, { headers, timeoutMs: 30_000 })).text;
}

function headersFor(raw: string): Record<string, string> {
  try {
    const message = JSON.parse(raw) as { method?: string; params?: Record<string, unknown> };
    const version = (message.params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/protocolVersion"];
    const headers = modernHeaders({ method: message.method ?? "", ...(message.params ? { params: message.params } : {}) });
    if (typeof version === "string") headers["MCP-Protocol-Version"] = version;
    return headers;
  } catch {
    return modernHeaders({ method: "tools/list" });
  }
}

/** A canvas id minted by the call (canvas_import makes a new canvas on each server), as the golden test masks it. */
const CANVAS_ID = /cv\\*_[a-z0-9]{1,16}\\*_[A-Za-z0-9]{28}/g;

/** Byte equality, reported as the first difference with some context (answers can be 100 KB); minted canvas ids aside. */
function assertSameBytes(httpRaw: string, stdioRaw: string, label: string): void {
  const http = httpRaw.replace(CANVAS_ID, "cv_<id>");
  const stdioLine = stdioRaw.replace(CANVAS_ID, "cv_<id>");
  if (http === stdioLine) return;
  let i = 0;
  while (i < http.length && i < stdioLine.length && http[i] === stdioLine[i]) i++;
  assert.fail(
    `${label}: HTTP and stdio differ at byte ${i} (lengths ${http.length} and ${stdioLine.length})\n` +
      `  http:  …${http.slice(Math.max(0, i - 120), i + 120)}\n  stdio: …${stdioLine.slice(Math.max(0, i - 120), i + 120)}`,
  );
}

/** The same frame both ways; the answers must be the same bytes. */
async function same(raw: string, label: string): Promise<string> {
  const a = await overStdio(stdio, raw);
  const b = await overHttp(raw, headersFor(raw));
  assertSameBytes(b, a, label);
  return a;
}

let nextId = 1;
const call = (name: string, args: unknown, meta: Record<string, unknown> = MODERN_META) =>
  JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { _meta: meta, name, arguments: args } });
const request = (method: string, params: Record<string, unknown> = { _meta: MODERN_META }) => JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params });

before(async () => {
  stdio = new ServerProcess(ENV);
  http = new HttpServerProcess([], ENV);
  url = await http.url;
});

after(async () => {
  await stdio.close();
  await http.stop();
});

describe("2026-07-28: the same bytes over stdio and HTTP", () => {
  let tools: Array<{ name: string; inputSchema: Schema; annotations?: { openWorldHint?: boolean } }> = [];

  test("server/discover and tools/list", async () => {
    await same(request("server/discover"), "server/discover");
    const list = JSON.parse(await same(request("tools/list"), "tools/list")) as { result: { tools: typeof tools } };
    tools = list.result.tools;
    assert.ok(tools.length >= 4);
  });

  test("every tool: a call built from its schema, a call without arguments, an invalid SMILES", async () => {
    const seen: string[] = [];
    for (const tool of tools) {
      // test_memory reports live memory figures, which differ between two processes by nature.
      if (tool.name === "test_memory") continue;
      const offline = tool.annotations?.openWorldHint === true;
      if (!offline && tool.name !== "test_sleep" && tool.name !== "test_crash") {
        const answer = await same(call(tool.name, exampleFor(tool.inputSchema, tool.name)), `${tool.name} example`);
        assert.match(answer, /"result":/, `${tool.name}: the example call is answered with a result`);
      }
      const empty = await same(call(tool.name, {}), `${tool.name} {}`);
      if (((tool.inputSchema.required ?? []) as string[]).length > 0) assert.match(empty, /INVALID_ARGUMENTS/, `${tool.name}: a missing argument`);
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      if (!offline && properties.smiles) {
        const args = { ...(exampleFor(tool.inputSchema, tool.name) as Record<string, unknown>), smiles: "C1CC(" };
        assert.match(await same(call(tool.name, args), `${tool.name} bad SMILES`), /INVALID_SMILES|INVALID_ARGUMENTS/);
      }
      seen.push(tool.name);
    }
    assert.deepEqual(
      seen,
      tools.map((t) => t.name).filter((name) => name !== "test_memory"),
    );
  });

  test("error classes: -32700, -32600, -32601, -32602, -32022, -32603", async () => {
    assert.match(await same("not json at all", "parse error"), /"code":-32700/);
    assert.match(await same('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', "batch"), /"code":-32600/);
    assert.match(
      await same(JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/list", params: { _meta: MODERN_META, s: "x".repeat(300_000) } }), "long string"),
      /"code":-32600/,
    );
    assert.match(await same(JSON.stringify({ jsonrpc: "1.0", id: nextId++, method: "tools/list" }), "bad envelope"), /"code":-32600/);
    assert.match(await same(request("completion/complete"), "unknown method"), /"code":-32601/);
    // Prompts: the list, a rendered prompt and a missing argument answer the same bytes on both transports.
    assert.match(await same(request("prompts/list"), "prompts/list"), /"ttlMs":86400000/);
    assert.match(
      await same(request("prompts/get", { _meta: MODERN_META, name: "profile_molecule", arguments: { smiles: "CCO" } }), "prompts/get"),
      /"messages"/,
    );
    assert.match(await same(request("prompts/get", { _meta: MODERN_META, name: "profile_molecule", arguments: {} }), "prompts/get missing"), /"code":-32602/);
    assert.match(await same(request("ping"), "ping is legacy"), /"code":-32601/);
    assert.match(await same(call("no_such_tool", {}), "unknown tool"), /"code":-32602/);
    assert.match(await same(request("tools/call", { _meta: MODERN_META, name: 5 }), "malformed call"), /"code":-32602/);
    assert.match(await same(request("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }), "no capabilities"), /"code":-32602/);
    assert.match(await same(request("tools/list", { _meta: MODERN_META, cursor: "x" }), "cursor"), /"code":-32602/);
    const v2099 = { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    assert.match(await same(request("server/discover", { _meta: v2099 }), "unsupported version"), /"code":-32022/);
    assert.match(await same(call("test_crash", { mode: "throw" }), "handler crash"), /"code":-32603/);
    assert.match(await same(call("test_crash", { mode: "bad_output" }), "output breaks its schema"), /"code":-32603/);
  });

  test("TIMEOUT and BUSY", async () => {
    assert.match(await same(call("test_sleep", { ms: 3000 }), "past the budget"), /"code":"TIMEOUT"/);
    // One worker, no queue: a call while the worker sleeps is refused at once. The TIMEOUT above replaced
    // each server's worker; a call answered on each first means the sleep below starts at once instead of
    // waiting for the new worker (on a loaded machine that took longer than the 300 ms pause).
    const warmId = nextId;
    const warm = call("parse_smiles", { smiles: "C" });
    stdio.sendRaw(`${warm}\n`);
    await stdio.response(warmId);
    await overHttp(warm, headersFor(warm));
    const sleepId = nextId;
    const sleep = call("test_sleep", { ms: 900 });
    const busyId = nextId;
    const busy = call("parse_smiles", { smiles: "CCO" });
    const rawLine = (id: number) => stdio.lines.find((l) => (JSON.parse(l) as { id?: unknown }).id === id)!;
    stdio.sendRaw(`${sleep}\n`);
    // Kept pauses (here and below): nothing observable says the sleep has reached the worker without changing the
    // requests compared (a progress token would add notifications, and make the HTTP answer a stream); the pause only
    // lets the sleep arrive first.
    await new Promise((r) => setTimeout(r, 300));
    stdio.sendRaw(`${busy}\n`);
    await Promise.all([stdio.response(sleepId), stdio.response(busyId)]);
    const httpSleep = overHttp(sleep, headersFor(sleep));
    await new Promise((r) => setTimeout(r, 300));
    const httpBusy = await overHttp(busy, headersFor(busy));
    assert.match(rawLine(busyId), /"code":"BUSY"/);
    assertSameBytes(httpBusy, rawLine(busyId), "BUSY");
    // test_sleep reports the time it actually slept, which differs between two runs by nature.
    const elapsed = (line: string) => line.replace(/"slept_ms\\?":\d+/g, (m) => m.replace(/\d+$/, "N"));
    assertSameBytes(elapsed(await httpSleep), elapsed(rawLine(sleepId)), "the sleeping call");
  });
});

for (const version of ["2025-11-25", "2024-11-05"] as const) {
  describe(`legacy ${version}: stdio after initialize, HTTP with the MCP-Protocol-Version header`, () => {
    let legacy: ServerProcess;
    before(() => (legacy = new ServerProcess(ENV)));
    after(async () => {
      await legacy.close();
    });

    test("initialize, tools/list, tool results and failures", async () => {
      const sameLegacy = async (raw: string, label: string) => {
        const a = await overStdio(legacy, raw);
        const b = await overHttp(raw, { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": version });
        assertSameBytes(b, a, `${version} ${label}`);
        return a;
      };
      const init = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      assert.match(await sameLegacy(init, "initialize"), new RegExp(`"protocolVersion":"${version}"`));
      await sameLegacy(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }), "tools/list");
      const legacyCall = (id: number, name: string, args: unknown) =>
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
      await sameLegacy(legacyCall(3, "parse_smiles", { smiles: "c1ccccc1" }), "success");
      await sameLegacy(legacyCall(4, "parse_smiles", { smiles: "C1CC(" }), "INVALID_SMILES");
      await sameLegacy(legacyCall(5, "parse_smiles", { smiles: 5 }), "INVALID_ARGUMENTS");
      await sameLegacy(legacyCall(6, "nope", {}), "unknown tool");
      await sameLegacy(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping", params: {} }), "ping");
      await sameLegacy(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "completion/complete", params: {} }), "unknown method");
      await sameLegacy(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "prompts/list", params: {} }), "prompts/list");
    });
  });
}
