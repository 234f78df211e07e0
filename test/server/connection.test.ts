/**
 * server/connection.ts: one connection over a stub server (handleModern / handleLegacy recorded), so each
 * rule of the Connection is seen on its own: era pinning, in-flight ids, cancellation, progress, the
 * response size limit, the era each answer reports, the transport's RequestEnvelope, and the failure log.
 * One test at the end drives a real McpServer to check that the stub's shape is the server's.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Connection, type Answer, type OutboundMessage, type RequestEnvelope } from "../../src/server/connection.js";
import { McpServer, type CallContext } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { toolFailure } from "../../src/server/shape.js";
import { ToolError } from "../../src/domain/errors.js";
import { CancelledError } from "../../src/contract/errors.js";
import { MAX_RESPONSE_BYTES } from "../../src/contract/limits.js";
import type { ServiceTool } from "../../src/contract/tool.js";
import { createLogger, silentLogger, type Logger } from "../../src/logger.js";
import {
  HEADER_MISMATCH,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RpcError,
  UNSUPPORTED_PROTOCOL_VERSION,
  decodeFrame,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcRequest,
} from "../../src/protocol/jsonrpc.js";
import { META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION, MODERN_VERSION, type LegacyVersion } from "../../src/protocol/eras.js";

type ModernHandler = (request: JsonRpcRequest, ctx: CallContext) => Promise<JsonObject>;
type LegacyHandler = (request: JsonRpcRequest, version: LegacyVersion, ctx: CallContext) => Promise<{ result: JsonObject; negotiated?: LegacyVersion }>;

interface Calls {
  modern: Array<{ request: JsonRpcRequest; ctx: CallContext }>;
  legacy: Array<{ request: JsonRpcRequest; version: LegacyVersion; ctx: CallContext }>;
}

/** A stand-in McpServer: records each call and answers {era} unless a handler is given. */
function stubServer(handlers: { modern?: ModernHandler; legacy?: LegacyHandler } = {}): { server: McpServer; calls: Calls } {
  const calls: Calls = { modern: [], legacy: [] };
  const server = {
    // The stand-in serves every method it is asked for (each then pins as a served one does).
    serves: () => true,
    handleModern(request: JsonRpcRequest, ctx: CallContext): Promise<JsonObject> {
      calls.modern.push({ request, ctx });
      return handlers.modern ? handlers.modern(request, ctx) : Promise.resolve({ era: "modern" });
    },
    handleLegacy(request: JsonRpcRequest, version: LegacyVersion, ctx: CallContext): Promise<{ result: JsonObject; negotiated?: LegacyVersion }> {
      calls.legacy.push({ request, version, ctx });
      return handlers.legacy ? handlers.legacy(request, version, ctx) : Promise.resolve({ result: { era: "legacy" } });
    },
  };
  return { server: server as unknown as McpServer, calls };
}

function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ CHEMATIC_LOG_FORMAT: "json", CHEMATIC_LOG_LEVEL: "debug" }, (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  return { logger, lines };
}

function open(server: McpServer, options: { legacyVersion?: LegacyVersion; logger?: Logger; logFailures?: boolean } = {}): Connection {
  return new Connection(server, { logger: silentLogger, ...options });
}

const frame = (message: unknown) => Buffer.from(typeof message === "string" ? message : JSON.stringify(message), "utf8");

function modern(id: JsonRpcId, method: string, params: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_CAPABILITIES]: {}, ...meta } } };
}

function legacy(id: JsonRpcId, method: string, params?: JsonObject): JsonObject {
  return params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}

function send(conn: Connection, message: unknown, notify?: (m: OutboundMessage) => void, envelope?: RequestEnvelope): Promise<Answer | null> {
  return conn.handleDecoded(decodeFrame(frame(message)), notify, envelope);
}

interface Wire {
  id: JsonRpcId | null;
  result?: JsonObject;
  error?: { code: number; message: string; data?: unknown };
}

function wire(answer: Answer | null): Wire {
  assert.ok(answer, "expected an answer");
  return JSON.parse(answer.line) as Wire;
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("era pinning", () => {
  test("a first legacy request pins legacy; a modern one then gets -32600 {pinnedEra, requestEra}", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    assert.deepEqual(wire(await send(conn, legacy(1, "tools/list"))).result, { era: "legacy" });
    const refused = await send(conn, modern(2, "tools/list"));
    assert.equal(refused?.errorCode, INVALID_REQUEST);
    assert.deepEqual(wire(refused).error?.data, { pinnedEra: "legacy", requestEra: "modern" });
    assert.equal(refused?.era, "modern", "the refusal follows the request's era");
    assert.equal(calls.modern.length, 0);
    assert.deepEqual(wire(await send(conn, legacy(3, "ping"))).result, { era: "legacy" }, "still legacy");
  });

  test("a first modern request pins modern; a legacy one then gets -32600", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    assert.deepEqual(wire(await send(conn, modern(1, "server/discover"))).result, { era: "modern" });
    const refused = await send(conn, legacy(2, "initialize", { protocolVersion: "2025-06-18" }));
    assert.equal(refused?.errorCode, INVALID_REQUEST);
    assert.deepEqual(wire(refused).error?.data, { pinnedEra: "modern", requestEra: "legacy" });
    assert.equal(refused?.era, "legacy");
    assert.equal(calls.legacy.length, 0);
  });

  test("a refused modern probe (bad _meta) does not pin: the client can fall back to initialize", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    const noMeta = await send(conn, { jsonrpc: "2.0", id: 1, method: "server/discover" });
    assert.equal(noMeta?.errorCode, INVALID_PARAMS);
    assert.equal(noMeta?.era, "modern");
    const badVersion = await send(conn, modern(2, "server/discover", {}, { [META_PROTOCOL_VERSION]: "2099-01-01" }));
    assert.equal(badVersion?.errorCode, UNSUPPORTED_PROTOCOL_VERSION);
    const badMeta = await send(conn, { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: { [META_LOG_LEVEL]: "info" } } });
    assert.equal(badMeta?.errorCode, INVALID_PARAMS);
    assert.equal(calls.modern.length, 0);
    assert.deepEqual(wire(await send(conn, legacy(4, "initialize", { protocolVersion: "2025-06-18" }))).result, { era: "legacy" });
    assert.equal(calls.legacy.length, 1);
    assert.equal((await send(conn, modern(5, "tools/list")))?.errorCode, INVALID_REQUEST, "now pinned legacy");
  });

  test("a request that fails inside the server still pins its era", async () => {
    const { server } = stubServer({ modern: () => Promise.reject(new RpcError(METHOD_NOT_FOUND, "Method not found: x")) });
    const conn = open(server);
    assert.equal((await send(conn, modern(1, "x")))?.errorCode, METHOD_NOT_FOUND);
    assert.deepEqual(wire(await send(conn, legacy(2, "ping"))).error?.data, { pinnedEra: "modern", requestEra: "legacy" });
  });

  test("the modern handler gets the _meta clientCapabilities and the signal; the legacy one no capabilities", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    await send(conn, modern(1, "tools/call", { name: "t" }, { [META_CLIENT_CAPABILITIES]: { sampling: {} } }));
    assert.deepEqual(calls.modern[0]?.ctx.clientCapabilities, { sampling: {} });
    assert.ok(calls.modern[0]?.ctx.signal instanceof AbortSignal);
    assert.equal(calls.modern[0]?.ctx.progress, undefined, "no progressToken, no reporter");
    const other = stubServer();
    await send(open(other.server), legacy(1, "tools/list"));
    assert.equal(other.calls.legacy[0]?.ctx.clientCapabilities, undefined);
  });
});

describe("in-flight requests and cancellation", () => {
  test("an id already in flight is -32600; the same id as another type is not a duplicate", async () => {
    const gate = deferred();
    const { server, calls } = stubServer({
      legacy: async () => {
        await gate.promise;
        return { result: { done: true } };
      },
    });
    const conn = open(server);
    const first = send(conn, legacy(1, "tools/call"));
    const dup = await send(conn, legacy(1, "tools/list"));
    assert.equal(dup?.errorCode, INVALID_REQUEST);
    assert.equal(wire(dup).id, 1);
    assert.match(wire(dup).error?.message ?? "", /already in flight/);
    assert.equal(dup?.era, undefined, "refused before the era decision");
    const stringId = send(conn, legacy("1", "tools/list"));
    gate.resolve();
    assert.deepEqual(wire(await first).result, { done: true });
    assert.deepEqual(wire(await stringId).result, { done: true });
    assert.equal(calls.legacy.length, 2);
    assert.deepEqual(wire(await send(conn, legacy(1, "tools/list"))).result, { done: true }, "an answered id can be used again");
  });

  test("cancel(id) aborts the work and the request gets no answer", async () => {
    const started = deferred();
    let aborted = false;
    const { server } = stubServer({
      modern: (_req, ctx) =>
        new Promise((_, reject) => {
          started.resolve();
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new CancelledError());
          });
        }),
    });
    const conn = open(server);
    const pending = send(conn, modern(7, "tools/call"));
    await started.promise;
    assert.equal(conn.cancel("7"), false, "a string id is another request");
    assert.equal(conn.cancel(7), true);
    assert.equal(conn.cancel(7), false, "already cancelled");
    assert.equal(await pending, null);
    assert.equal(aborted, true);
    assert.equal(conn.cancel(7), false, "no longer in flight");
    assert.equal(conn.cancel(99), false, "never in flight");
  });

  test("a cancelled request gets no answer even when its work finishes or fails anyway", async () => {
    for (const outcome of ["resolve", "reject"] as const) {
      const gate = deferred();
      const { server } = stubServer({
        legacy: async () => {
          await gate.promise;
          if (outcome === "reject") throw new RpcError(INTERNAL_ERROR, "late failure");
          return { result: { late: true } };
        },
      });
      const conn = open(server);
      const pending = send(conn, legacy(1, "tools/call"));
      assert.equal(conn.cancel(1), true);
      gate.resolve();
      assert.equal(await pending, null, outcome);
    }
  });

  test("a CancelledError from the server is no answer", async () => {
    const { server } = stubServer({ legacy: () => Promise.reject(new CancelledError()) });
    assert.equal(await send(open(server), legacy(1, "tools/call")), null);
  });

  test("notifications/cancelled cancels by requestId and is itself not answered", async () => {
    const started = deferred();
    let signal: AbortSignal | undefined;
    const { server } = stubServer({
      legacy: (_req, _version, ctx) =>
        new Promise((resolve) => {
          signal = ctx.signal;
          started.resolve();
          ctx.signal.addEventListener("abort", () => resolve({ result: { ignored: true } }));
        }),
    });
    const conn = open(server);
    const pending = conn.handleFrame(frame(legacy("abc", "tools/call")));
    await started.promise;
    assert.equal(await conn.handleFrame(frame({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })), null);
    assert.equal(signal?.aborted, false, "another id: nothing cancelled");
    assert.equal(await conn.handleFrame(frame({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "abc" } })), null);
    assert.equal(signal?.aborted, true);
    assert.equal(await pending, null);
  });

  test("other notifications are ignored and not answered", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    assert.equal(await conn.handleFrame(frame({ jsonrpc: "2.0", method: "notifications/initialized" })), null);
    assert.equal(await conn.handleFrame(frame({ jsonrpc: "2.0", method: "notifications/whatever", params: { x: 1 } })), null);
    assert.equal(await conn.handleFrame(frame({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } })), null);
    assert.equal(calls.legacy.length + calls.modern.length, 0);
  });
});

describe("progress", () => {
  test("only with a progressToken; strictly increasing; none after the answer", async () => {
    let saved: CallContext["progress"];
    const { server } = stubServer({
      modern: async (_req, ctx) => {
        saved = ctx.progress;
        ctx.progress?.(1);
        ctx.progress?.(1);
        ctx.progress?.(0.5);
        ctx.progress?.(3, 10, "three");
        ctx.progress?.(4, 10);
        return { done: true };
      },
    });
    const sent: OutboundMessage[] = [];
    const conn = open(server);
    const answer = await send(conn, modern(1, "tools/call", {}, { progressToken: "tok" }), (m) => sent.push(m));
    assert.deepEqual(wire(answer).result, { done: true });
    assert.deepEqual(sent, [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 1 } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 3, total: 10, message: "three" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 4, total: 10 } },
    ]);
    saved?.(100);
    assert.equal(sent.length, 3, "nothing once answered");
  });

  test("without a progressToken there is no reporter and nothing is sent", async () => {
    let reporter: CallContext["progress"] | "unset" = "unset";
    const { server } = stubServer({
      legacy: async (_req, _v, ctx) => {
        reporter = ctx.progress;
        return { result: {} };
      },
    });
    const sent: OutboundMessage[] = [];
    await send(open(server), legacy(1, "tools/call", { _meta: { progressToken: { bad: true } } }), (m) => sent.push(m));
    assert.equal(reporter, undefined);
    assert.deepEqual(sent, []);
  });

  test("legacy requests report progress too (numeric token), and none after a cancel", async () => {
    const started = deferred();
    let saved: CallContext["progress"];
    const { server } = stubServer({
      legacy: (_req, _v, ctx) =>
        new Promise((_, reject) => {
          saved = ctx.progress;
          ctx.progress?.(1, 2);
          started.resolve();
          ctx.signal.addEventListener("abort", () => reject(new CancelledError()));
        }),
    });
    const sent: OutboundMessage[] = [];
    const conn = open(server);
    const pending = send(conn, legacy(1, "tools/call", { _meta: { progressToken: 42 } }), (m) => sent.push(m));
    await started.promise;
    conn.cancel(1);
    saved?.(2, 2);
    assert.equal(await pending, null);
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 42, progress: 1, total: 2 } }]);
  });
});

describe("answers", () => {
  test("a response over MAX_RESPONSE_BYTES becomes -32603 with the same id, and is logged", async () => {
    const { logger, lines } = recordingLogger();
    const { server } = stubServer({ legacy: async () => ({ result: { big: "a".repeat(MAX_RESPONSE_BYTES) } }) });
    const answer = await send(open(server, { logger }), legacy("big", "tools/call", { name: "huge" }));
    assert.equal(answer?.errorCode, INTERNAL_ERROR);
    assert.equal(answer?.era, "legacy");
    assert.ok(Buffer.byteLength(answer?.line ?? "") < 1000);
    const w = wire(answer);
    assert.equal(w.id, "big");
    assert.equal(w.error?.code, INTERNAL_ERROR);
    assert.match(w.error?.message ?? "", new RegExp(`exceeds the maximum size of ${MAX_RESPONSE_BYTES} bytes`));
    const failed = lines.filter((l) => l.msg === "call failed");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.code, INTERNAL_ERROR);
    assert.equal(failed[0]?.tool, "huge");
    assert.equal(failed[0]?.level, "error");
  });

  test("a response just at the limit is sent as it is", async () => {
    const skeleton = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { big: "" } });
    const { server } = stubServer({ legacy: async () => ({ result: { big: "a".repeat(MAX_RESPONSE_BYTES - skeleton.length) } }) });
    const answer = await send(open(server), legacy(1, "tools/call"));
    assert.equal(answer?.errorCode, undefined);
    assert.equal(Buffer.byteLength(answer?.line ?? ""), MAX_RESPONSE_BYTES);
  });

  test("Answer.era: modern, legacy, and modern for a refused version hint", async () => {
    const { server } = stubServer();
    assert.equal((await send(open(server), modern(1, "tools/list")))?.era, "modern");
    assert.equal((await send(open(server), legacy(1, "tools/list")))?.era, "legacy");
    const unknown = await send(open(server), legacy(1, "tools/list"), undefined, { versionHint: { value: "1999-01-01" } });
    assert.equal(unknown?.errorCode, UNSUPPORTED_PROTOCOL_VERSION);
    assert.equal(unknown?.era, "modern");
    const mismatch = await send(open(server), legacy(1, "tools/list"), undefined, { versionHint: { error: "repeated" } });
    assert.equal(mismatch?.errorCode, HEADER_MISMATCH);
    assert.equal(mismatch?.era, "modern");
  });

  test("a refused version hint does not pin", async () => {
    const { server } = stubServer();
    const conn = open(server);
    assert.equal((await send(conn, legacy(1, "tools/list"), undefined, { versionHint: { value: "1999-01-01" } }))?.errorCode, UNSUPPORTED_PROTOCOL_VERSION);
    assert.equal((await send(conn, modern(2, "tools/list")))?.errorCode, undefined);
  });

  test("a plain Error from the server is -32603 Internal error, logged with its stack", async () => {
    const { logger, lines } = recordingLogger();
    const { server } = stubServer({ legacy: () => Promise.reject(new Error("secret detail")) });
    const answer = await send(open(server, { logger }), legacy(1, "tools/list"));
    assert.equal(answer?.errorCode, INTERNAL_ERROR);
    assert.equal(answer?.era, "legacy");
    assert.deepEqual(wire(answer).error, { code: INTERNAL_ERROR, message: "Internal error" });
    const unexpected = lines.find((l) => l.msg === "unexpected failure while handling a request");
    assert.match(String(unexpected?.detail), /secret detail/);
  });

  test("an RpcError from the server is answered with its code, message and data", async () => {
    const { server } = stubServer({ modern: () => Promise.reject(new RpcError(INVALID_PARAMS, "bad", { why: 1 })) });
    const answer = await send(open(server), modern(5, "tools/list"));
    assert.deepEqual(wire(answer), { jsonrpc: "2.0", id: 5, error: { code: INVALID_PARAMS, message: "bad", data: { why: 1 } } } as unknown as Wire);
    assert.equal(answer?.errorCode, INVALID_PARAMS);
  });

  test("client JSON-RPC responses are dropped", async () => {
    const { logger, lines } = recordingLogger();
    const { server, calls } = stubServer();
    const conn = open(server, { logger });
    assert.equal(await conn.handleFrame(frame({ jsonrpc: "2.0", id: 1, result: {} })), null);
    assert.equal(await send(conn, { jsonrpc: "2.0", id: 2, error: { code: -1, message: "x" } }), null);
    assert.equal(calls.legacy.length + calls.modern.length, 0);
    assert.equal(lines.filter((l) => l.level === "debug" && String(l.msg).startsWith("dropped a JSON-RPC response")).length, 2);
  });

  test("a parse error is answered with id null (and no era)", async () => {
    const { server } = stubServer();
    const conn = open(server);
    const line = await conn.handleFrame(frame('{"jsonrpc":"2.0","id":1,'));
    assert.ok(line);
    const w = JSON.parse(line) as Wire;
    assert.equal(w.id, null);
    assert.equal(w.error?.code, PARSE_ERROR);
    const answer = await conn.handleDecoded(decodeFrame(frame("not json")));
    assert.equal(answer?.errorCode, PARSE_ERROR);
    assert.equal(answer?.era, undefined);
  });
});

describe("RequestEnvelope", () => {
  test("without an envelope a legacy request speaks the connection's version: 2024-11-05 unless given", async () => {
    const a = stubServer();
    await send(open(a.server), legacy(1, "tools/list"));
    assert.equal(a.calls.legacy[0]?.version, "2024-11-05");
    const b = stubServer();
    await send(open(b.server, { legacyVersion: "2025-06-18" }), legacy(1, "tools/list"));
    assert.equal(b.calls.legacy[0]?.version, "2025-06-18");
  });

  test("initialize's negotiated version becomes the connection's", async () => {
    const { server, calls } = stubServer({
      legacy: async (req) => (req.method === "initialize" ? { result: {}, negotiated: "2025-11-25" } : { result: {} }),
    });
    const conn = open(server);
    await send(conn, legacy(1, "initialize", { protocolVersion: "2025-11-25" }));
    await send(conn, legacy(2, "tools/list"));
    assert.deepEqual(
      calls.legacy.map((c) => c.version),
      ["2024-11-05", "2025-11-25"],
    );
  });

  test("versionHint names the legacy version of one request; defaultLegacyVersion applies when it is absent", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    await send(conn, legacy(1, "tools/list"), undefined, { versionHint: { value: "2025-06-18" }, defaultLegacyVersion: "2025-03-26" });
    await send(conn, legacy(2, "tools/list"), undefined, { versionHint: {}, defaultLegacyVersion: "2025-03-26" });
    await send(conn, legacy(3, "tools/list"), undefined, { versionHint: {} });
    await send(conn, legacy(4, "tools/list"), undefined, { defaultLegacyVersion: "2025-03-26" });
    assert.deepEqual(
      calls.legacy.map((c) => c.version),
      ["2025-06-18", "2025-03-26", "2024-11-05", "2024-11-05"],
      "without a hint (stdio) defaultLegacyVersion is not consulted",
    );
  });

  test("a modern version hint over a body without _meta is modern, refused -32602 by parseClientMeta", async () => {
    const { server, calls } = stubServer();
    const answer = await send(open(server), legacy(1, "tools/list"), undefined, { versionHint: { value: MODERN_VERSION } });
    assert.equal(answer?.errorCode, INVALID_PARAMS);
    assert.equal(answer?.era, "modern");
    assert.equal(calls.modern.length + calls.legacy.length, 0);
  });

  test("checkModern is called only for a modern body with a protocolVersion, with that version", async () => {
    const seen: Array<{ id: JsonRpcId; bodyVersion: string }> = [];
    const envelope: RequestEnvelope = {
      checkModern: (request, bodyVersion) => {
        seen.push({ id: request.id, bodyVersion });
        return undefined;
      },
    };
    const { server, calls } = stubServer();
    const conn = open(server);
    assert.equal((await send(conn, { jsonrpc: "2.0", id: 1, method: "server/discover" }, undefined, envelope))?.errorCode, INVALID_PARAMS);
    const noVersion = { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { [META_PROTOCOL_VERSION]: "", [META_CLIENT_CAPABILITIES]: {} } } };
    assert.equal((await send(conn, noVersion, undefined, envelope))?.errorCode, INVALID_PARAMS);
    assert.deepEqual(seen, []);
    const unsupported = await send(conn, modern(3, "tools/list", {}, { [META_PROTOCOL_VERSION]: "2099-01-01" }), undefined, envelope);
    assert.equal(unsupported?.errorCode, UNSUPPORTED_PROTOCOL_VERSION, "checked before parseClientMeta judges the version");
    assert.equal((await send(conn, modern(4, "tools/list"), undefined, envelope))?.errorCode, undefined);
    assert.deepEqual(seen, [
      { id: 3, bodyVersion: "2099-01-01" },
      { id: 4, bodyVersion: MODERN_VERSION },
    ]);
    assert.equal(calls.modern.length, 1);
  });

  test("checkModern is not called for a legacy request", async () => {
    let called = false;
    const { server } = stubServer();
    await send(open(server), legacy(1, "tools/list", { _meta: { progressToken: 1 } }), undefined, {
      checkModern: () => {
        called = true;
        return new RpcError(HEADER_MISMATCH, "no");
      },
    });
    assert.equal(called, false);
  });

  test("the RpcError checkModern returns is answered (modern era) and does not pin", async () => {
    const { server, calls } = stubServer();
    const conn = open(server);
    const envelope: RequestEnvelope = { checkModern: () => new RpcError(HEADER_MISMATCH, "Header mismatch: method", { header: "Mcp-Method" }) };
    const answer = await send(conn, modern(1, "tools/list"), undefined, envelope);
    assert.equal(answer?.errorCode, HEADER_MISMATCH);
    assert.equal(answer?.era, "modern");
    assert.deepEqual(wire(answer).error, { code: HEADER_MISMATCH, message: "Header mismatch: method", data: { header: "Mcp-Method" } });
    assert.equal(calls.modern.length, 0);
    assert.equal((await send(conn, legacy(2, "tools/list")))?.errorCode, undefined, "not pinned");
  });
});

describe("the failure log", () => {
  async function failures(logFailures: boolean | undefined): Promise<Array<Record<string, unknown>>> {
    const { logger, lines } = recordingLogger();
    const { server } = stubServer({
      legacy: async (req) => {
        if (req.method === "tools/call" && req.params?.name === "slow") {
          return { result: toolFailure("2025-06-18", new ToolError("TIMEOUT", "too slow"), { name: "n", version: "v" }) };
        }
        if (req.method === "tools/call") throw new RpcError(INVALID_PARAMS, "Unknown tool: nope");
        if (req.method === "boom") throw new Error("boom");
        return { result: {} };
      },
    });
    const conn = open(server, logFailures === undefined ? { logger } : { logger, logFailures });
    await conn.handleFrame(frame("not json"));
    await send(conn, legacy(1, "tools/call", { name: "slow" }));
    await send(conn, legacy(2, "tools/call", { name: "nope" }));
    await send(conn, legacy(3, "boom"));
    await send(conn, legacy(4, "tools/list"));
    return lines;
  }

  test("by default one line per failed request: id, method, tool, code, level by kind", async () => {
    const lines = await failures(undefined);
    const failed = lines.filter((l) => l.msg === "call failed");
    assert.deepEqual(
      failed.map((l) => [l.level, l.id, l.method, l.tool, l.code, l.rpc_code]),
      [
        ["info", null, undefined, undefined, PARSE_ERROR, PARSE_ERROR],
        ["warn", 1, "tools/call", "slow", "TIMEOUT", undefined],
        ["info", 2, "tools/call", "nope", INVALID_PARAMS, INVALID_PARAMS],
        ["error", 3, "boom", undefined, INTERNAL_ERROR, INTERNAL_ERROR],
      ],
    );
    for (const l of failed.slice(1)) assert.equal(typeof l.ms, "number");
  });

  test("logFailures: false silences the failure lines (the unexpected-failure line stays)", async () => {
    const lines = await failures(false);
    assert.deepEqual(
      lines.filter((l) => l.msg === "call failed"),
      [],
    );
    assert.equal(lines.filter((l) => l.msg === "unexpected failure while handling a request").length, 1);
  });
});

describe("over a real McpServer", () => {
  test("server/discover, then a modern tools/call with progress, through the Connection", async () => {
    const tool: ServiceTool<{ n: number }> = {
      kind: "service",
      toolset: "chem",
      name: "count",
      title: "Count",
      description: "Reports progress n times, then answers n.",
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 0, maximum: 10 } }, required: ["n"], additionalProperties: false },
      outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
      errors: [],
      budgetMs: 1_000,
      async run({ n }, { progress }) {
        for (let i = 1; i <= n; i++) progress(i, n);
        return { n };
      },
    };
    const pool = new WorkerPool({ size: 1, lazy: true });
    try {
      const server = new McpServer({ tools: [tool], pool, info: { name: "test", version: "0" }, logger: silentLogger });
      const conn = open(server);
      const discover = wire(await send(conn, modern(1, "server/discover")));
      assert.deepEqual(discover.result?.supportedVersions, [MODERN_VERSION]);
      const sent: OutboundMessage[] = [];
      const call = await send(conn, modern(2, "tools/call", { name: "count", arguments: { n: 2 } }, { progressToken: "p" }), (m) => sent.push(m));
      assert.equal(call?.era, "modern");
      assert.deepEqual(wire(call).result?.structuredContent, { n: 2 });
      assert.equal(sent.length, 2);
      assert.equal((await send(conn, legacy(3, "ping")))?.errorCode, INVALID_REQUEST, "pinned modern");
      assert.equal(pool.startedWorkers, 0, "no chemistry tool, no worker");
    } finally {
      await pool.close();
    }
  });
});

const MODERN_META_FOR_PIN = { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_CAPABILITIES]: {} };

/** A real McpServer without tools (a lazy pool starts no worker). */
function realServer(): McpServer {
  return new McpServer({ tools: [], pool: new WorkerPool({ size: 1, lazy: true }), info: { name: "test", version: "0" }, logger: silentLogger });
}

describe("refusals that pin nothing, and initialize once", () => {
  test("a first request for an unknown method does not pin: the other era is still served", async () => {
    const c = new Connection(realServer(), { logger: silentLogger });
    const unknown = JSON.parse((await c.handleFrame(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "prompts/list", params: {} }))))!) as {
      error: { code: number };
    };
    assert.equal(unknown.error.code, -32601);
    const modern = JSON.parse(
      (await c.handleFrame(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: MODERN_META_FOR_PIN } }))))!,
    ) as { result?: unknown; error?: unknown };
    assert.ok(modern.result, `served after the unknown method: ${JSON.stringify(modern)}`);
  });

  test("a second initialize on a legacy connection is -32600", async () => {
    const c = new Connection(realServer(), { logger: silentLogger });
    const init = (id: number) =>
      c.handleFrame(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {} } })));
    assert.ok((JSON.parse((await init(1))!) as { result?: unknown }).result);
    const again = JSON.parse((await init(2))!) as { error: { code: number; message: string } };
    assert.equal(again.error.code, -32600);
    assert.match(again.error.message, /already initialized/);
  });
});
