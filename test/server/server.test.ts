/**
 * server/server.ts: McpServer's dispatch for both eras (server/discover, initialize negotiation, the
 * tools/list flavours, unknown methods, cursors), tools/call through runTool in each era, and the
 * resources methods. Small service tools only: the lazy pool never starts a worker.
 */
import { hostInputSchema } from "../../src/server/host-schema.js";
import { withOverflowProperty } from "../../src/server/answer-cap.js";
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { INSTRUCTIONS, McpServer, REGISTRY_TTL_MS, ToolCallRefused, type CallContext } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { ToolError } from "../../src/domain/errors.js";
import { CancelledError } from "../../src/contract/errors.js";
import { withExtraContent, type ContentBlock, type ServiceTool } from "../../src/contract/tool.js";
import type { ResourceProvider } from "../../src/contract/resource.js";
import { RESOURCE_LIST_TTL_MS } from "../../src/server/resources.js";
import { createLogger, silentLogger, type Logger } from "../../src/logger.js";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  LEGACY_TOOL_ERROR,
  METHOD_NOT_FOUND,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  RpcError,
  type JsonObject,
  type JsonRpcRequest,
} from "../../src/protocol/jsonrpc.js";
import { LATEST_LEGACY_VERSION, LEGACY_VERSIONS, META_SERVER_INFO, type LegacyVersion } from "../../src/protocol/eras.js";
import { toolErrorOf } from "../../src/server/shape.js";

const info = { name: "chematic-test", version: "1.2.3" };
const serverInfo = { [META_SERVER_INFO]: info };
const image: ContentBlock = { type: "image", data: "iVBOR", mimeType: "image/png" };

const base = {
  kind: "service" as const,
  toolset: "chem" as const,
  title: "Test tool",
  description: "A test tool.",
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  inputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"], additionalProperties: false },
  outputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"], additionalProperties: false },
  errors: [],
  budgetMs: 2_000,
};

/** Signals the never-ending tools saw, so a test can check the work was told to stop. */
const seenSignals: AbortSignal[] = [];

const tools: ServiceTool[] = [
  {
    ...base,
    name: "echo",
    title: "Echo",
    async run(args) {
      return { x: args.x };
    },
  },
  {
    ...base,
    name: "fail",
    async run() {
      throw new ToolError("NOT_FOUND", "no such thing", { id: "X" });
    },
  },
  {
    ...base,
    name: "crash",
    async run() {
      throw new Error("kaboom");
    },
  },
  {
    ...base,
    name: "bad_output",
    async run() {
      return { x: 1 };
    },
  },
  {
    ...base,
    name: "bad_extra",
    async run(args) {
      return { x: args.x, _extra_content: [{ type: "video" }] };
    },
  },
  {
    ...base,
    name: "with_image",
    async run(args) {
      return withExtraContent({ x: String(args.x) }, [image]);
    },
  },
  {
    ...base,
    name: "needs_sampling",
    requiredClientCapabilities: ["sampling"],
    async run(args) {
      return { x: args.x };
    },
  },
  {
    ...base,
    name: "progress",
    async run(args, ctx) {
      ctx.progress(1, 2, "half");
      return { x: args.x };
    },
  },
  {
    ...base,
    name: "hang",
    budgetMs: 60,
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    run(_args, { signal }) {
      seenSignals.push(signal);
      return new Promise(() => {}); // never settles, ignores its signal: the budget must still end it
    },
  },
  {
    ...base,
    name: "wait",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    run(_args, { signal }) {
      seenSignals.push(signal);
      return new Promise(() => {}); // never settles: only a cancellation ends it, well within its budget
    },
  },
];

const pool = new WorkerPool({ size: 1, lazy: true });
after(() => pool.close());

/** What the shared server logged, one parsed JSON line each (cleared by the tests that read it). */
const logLines: Array<Record<string, unknown>> = [];
const recordingLogger: Logger = createLogger({ CHEMATIC_LOG_FORMAT: "json" }, (l) => logLines.push(JSON.parse(l) as Record<string, unknown>));

/**
 * A server with other options than the shared one. It gets only the echo tool: each server compiles its
 * validators in the background (ToolRegistry.warmUp), which would otherwise slow the budget test down.
 */
function makeServer(options: { resources?: ResourceProvider[]; instructions?: string[] } = {}): McpServer {
  return new McpServer({ tools: tools.slice(0, 1), pool, info, logger: silentLogger, ...options });
}

const shared = new McpServer({ tools, pool, info, logger: recordingLogger });

const ctx = (extra: Partial<CallContext> = {}): CallContext => ({ signal: new AbortController().signal, ...extra });
const req = (method: string, params?: JsonObject): JsonRpcRequest =>
  params === undefined ? { jsonrpc: "2.0", id: 1, method } : { jsonrpc: "2.0", id: 1, method, params };

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof RpcError, `expected an RpcError, got ${String(e)}`);
    return e;
  }
  return assert.fail("expected a rejection");
}

async function legacyCall(server: McpServer, version: LegacyVersion, name: string, args?: unknown): Promise<JsonObject> {
  const { result } = await server.handleLegacy(req("tools/call", { name, arguments: args }), version, ctx());
  return result;
}

const demoProvider = (read: ResourceProvider["read"]): ResourceProvider => ({
  scheme: "demo",
  budgetMs: 500,
  readTtlMs: 1234,
  templates: () => [{ uriTemplate: "demo://item/{id}", name: "item", description: "An item.", mimeType: "application/json" }],
  list: () => [{ uri: "demo://item/1", name: "item 1", mimeType: "application/json" }],
  read,
});

describe("handleModern", () => {
  test("server/discover without resources", async () => {
    const r = await shared.handleModern(req("server/discover"), ctx());
    assert.deepEqual(r, {
      resultType: "complete",
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      ttlMs: REGISTRY_TTL_MS,
      cacheScope: "public",
      _meta: serverInfo,
    });
    assert.equal(REGISTRY_TTL_MS, 86_400_000);
  });

  test("server/discover with resources and extra instructions", async () => {
    const server = makeServer({ resources: [demoProvider(async () => [])], instructions: ["First extra.", "Second extra."] });
    const r = await server.handleModern(req("server/discover"), ctx());
    assert.deepEqual(r.capabilities, { tools: {}, resources: {} });
    assert.equal(r.instructions, `${INSTRUCTIONS}\n\nFirst extra.\n\nSecond extra.`);
    assert.deepEqual(server.extraInstructions, ["First extra.", "Second extra."]);
  });

  test("tools/list: every tool in the full flavour, with the cache fields", async () => {
    const server = shared;
    const r = await server.handleModern(req("tools/list"), ctx());
    assert.deepEqual(Object.keys(r), ["resultType", "tools", "ttlMs", "cacheScope", "_meta"]);
    assert.equal(r.resultType, "complete");
    assert.equal(r.ttlMs, REGISTRY_TTL_MS);
    assert.equal(r.cacheScope, "public");
    assert.deepEqual(r._meta, serverInfo);
    const listed = r.tools as Array<JsonObject>;
    assert.deepEqual(
      listed.map((t) => t.name),
      tools.map((t) => t.name),
    );
    assert.deepEqual(listed[0], {
      name: "echo",
      title: "Echo",
      description: base.description,
      // The host's form of the input schema (host-schema.ts); answers may carry overflow (answer-cap.ts).
      inputSchema: hostInputSchema(base.inputSchema),
      outputSchema: withOverflowProperty(base.outputSchema),
      annotations: { title: "Echo", ...base.annotations },
    });
  });

  test("a cursor is -32602 (a single page)", async () => {
    const e = await rpcError(shared.handleModern(req("tools/list", { cursor: "next" }), ctx()));
    assert.equal(e.code, INVALID_PARAMS);
  });

  test("an unknown method is -32601, and so are the legacy-only initialize and ping", async () => {
    for (const method of ["nope", "initialize", "ping"]) {
      const e = await rpcError(shared.handleModern(req(method), ctx()));
      assert.equal(e.code, METHOD_NOT_FOUND);
      assert.equal(e.message, `Method not found: ${method}`);
    }
  });

  test("tools/call: the 2026-07-28 shape", async () => {
    const r = await shared.handleModern(req("tools/call", { name: "echo", arguments: { x: "hi" } }), ctx({ clientCapabilities: {} }));
    assert.deepEqual(r, { resultType: "complete", content: [{ type: "text", text: '{"x":"hi"}' }], structuredContent: { x: "hi" }, _meta: serverInfo });
  });

  test("tools/call: a missing capability is -32021 even when the context has no capabilities at all", async () => {
    const e = await rpcError(shared.handleModern(req("tools/call", { name: "needs_sampling", arguments: { x: "a" } }), ctx()));
    assert.equal(e.code, MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
  });
});

describe("handleLegacy", () => {
  test("initialize echoes a version it speaks, and negotiates it", async () => {
    const server = shared;
    for (const v of LEGACY_VERSIONS) {
      const { result, negotiated } = await server.handleLegacy(req("initialize", { protocolVersion: v }), "2024-11-05", ctx());
      assert.equal(negotiated, v);
      assert.equal(result.protocolVersion, v);
      assert.deepEqual(result.capabilities, { tools: {} });
      assert.deepEqual(result.serverInfo, info);
    }
  });

  test("initialize answers the latest legacy version to an unknown one", async () => {
    for (const requested of ["2099-01-01", "2026-07-28", undefined]) {
      const { result, negotiated } = await shared.handleLegacy(req("initialize", { protocolVersion: requested }), "2024-11-05", ctx());
      assert.equal(negotiated, LATEST_LEGACY_VERSION);
      assert.equal(result.protocolVersion, "2025-11-25");
    }
    const { negotiated } = await shared.handleLegacy(req("initialize"), "2025-06-18", ctx());
    assert.equal(negotiated, LATEST_LEGACY_VERSION, "no params at all");
  });

  test("2024-11-05's initialize has no instructions; later ones do", async () => {
    const server = makeServer({ instructions: ["More."] });
    const old = await server.handleLegacy(req("initialize", { protocolVersion: "2024-11-05" }), "2024-11-05", ctx());
    assert.deepEqual(Object.keys(old.result), ["protocolVersion", "capabilities", "serverInfo"]);
    for (const v of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
      const later = await server.handleLegacy(req("initialize", { protocolVersion: v }), "2024-11-05", ctx());
      assert.equal(later.result.instructions, `${INSTRUCTIONS}\n\nMore.`);
    }
  });

  test("initialize advertises resources when there are providers", async () => {
    const server = makeServer({ resources: [demoProvider(async () => [])] });
    const { result } = await server.handleLegacy(req("initialize", { protocolVersion: "2025-06-18" }), "2024-11-05", ctx());
    assert.deepEqual(result.capabilities, { tools: {}, resources: {} });
  });

  test("ping answers {} and negotiates nothing", async () => {
    assert.deepEqual(await shared.handleLegacy(req("ping"), "2025-06-18", ctx()), { result: {} });
  });

  test("tools/list flavours: 2024-11-05 bare, 2025-03-26 annotations, later titles too", async () => {
    const server = shared;
    const list = async (v: LegacyVersion) => {
      const { result, negotiated } = await server.handleLegacy(req("tools/list"), v, ctx());
      assert.equal(negotiated, undefined);
      assert.deepEqual(Object.keys(result), ["tools"]);
      return (result.tools as JsonObject[])[0];
    };
    const oldest = await list("2024-11-05");
    assert.deepEqual(Object.keys(oldest ?? {}), ["name", "description", "inputSchema", "outputSchema"]);
    const mid = await list("2025-03-26");
    assert.deepEqual(Object.keys(mid ?? {}), ["name", "description", "inputSchema", "outputSchema", "annotations"]);
    assert.deepEqual(mid?.annotations, { title: "Echo", ...base.annotations }, "the title travels inside annotations");
    for (const v of ["2025-06-18", "2025-11-25"] as const) {
      const full = await list(v);
      assert.equal(full?.title, "Echo");
      assert.ok(full?.annotations);
    }
  });

  test("a cursor is ignored on the legacy tools/list", async () => {
    const { result } = await shared.handleLegacy(req("tools/list", { cursor: "next" }), "2025-06-18", ctx());
    assert.equal((result.tools as unknown[]).length, tools.length);
  });

  test("an unknown method is -32601, and so is server/discover", async () => {
    for (const method of ["nope", "server/discover"]) {
      const e = await rpcError(shared.handleLegacy(req(method), "2025-06-18", ctx()));
      assert.equal(e.code, METHOD_NOT_FOUND);
    }
  });

  test("tools/call per version: text only up to 2025-03-26, structuredContent from 2025-06-18", async () => {
    const server = shared;
    const text = [{ type: "text", text: '{"x":"a"}' }];
    for (const v of ["2024-11-05", "2025-03-26"] as const) assert.deepEqual(await legacyCall(server, v, "echo", { x: "a" }), { content: text });
    for (const v of ["2025-06-18", "2025-11-25"] as const) {
      assert.deepEqual(await legacyCall(server, v, "echo", { x: "a" }), { content: text, structuredContent: { x: "a" } });
    }
  });

  test("tools/call ignores required capabilities in the legacy era", async () => {
    const r = await legacyCall(shared, "2025-06-18", "needs_sampling", { x: "a" });
    assert.deepEqual(r.structuredContent, { x: "a" });
  });
});

describe("tools/call refusals and failures", () => {
  test("an unknown tool, a missing name, non-object arguments: ToolCallRefused from runTool", async () => {
    const server = shared;
    await assert.rejects(server.runTool("nope", {}, ctx()), (e: unknown) => e instanceof ToolCallRefused && e.message === "Unknown tool: nope");
    for (const name of [undefined, "", 3]) await assert.rejects(server.runTool(name, {}, ctx()), ToolCallRefused);
    for (const args of ["x", [1], 5, true]) {
      await assert.rejects(
        server.runTool("echo", args, ctx()),
        (e: unknown) => e instanceof ToolCallRefused && /`arguments` must be an object/.test(e.message),
      );
    }
  });

  test("absent or null arguments count as {}", async () => {
    for (const args of [undefined, null]) {
      const outcome = await shared.runTool("echo", args, ctx());
      assert.equal(outcome.ok, false);
      assert.equal(!outcome.ok && outcome.error.code, "INVALID_ARGUMENTS", "{} lacks the required x");
    }
  });

  test("a refused call is -32000 on 2024-11-05 and -32602 on every other version", async () => {
    const server = shared;
    for (const [name, args] of [
      ["nope", {}],
      ["echo", "not an object"],
      [undefined, {}],
    ] as const) {
      const old = await rpcError(legacyCall(server, "2024-11-05", name as string, args));
      assert.equal(old.code, LEGACY_TOOL_ERROR);
      for (const v of ["2025-03-26", "2025-06-18", "2025-11-25"] as const)
        assert.equal((await rpcError(legacyCall(server, v, name as string, args))).code, INVALID_PARAMS);
      const modern = await rpcError(server.handleModern(req("tools/call", { name, arguments: args }), ctx({ clientCapabilities: {} })));
      assert.equal(modern.code, INVALID_PARAMS);
      assert.equal(modern.message, old.message);
    }
  });

  test("invalid arguments are an INVALID_ARGUMENTS outcome with details.path and details.issues", async () => {
    const outcome = await shared.runTool("echo", { x: 5, y: 1 }, ctx());
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.ok(outcome.error instanceof ToolError);
    assert.equal(outcome.error.code, "INVALID_ARGUMENTS");
    const issues = outcome.error.details.issues as Array<{ path: string; message: string }>;
    assert.deepEqual(
      issues.map((i) => i.path),
      ["/y", "/x"],
    );
    assert.equal(outcome.error.details.path, "/y");
    assert.equal(outcome.error.message, "Invalid arguments for echo: /y is not an allowed property");
  });

  test("invalid arguments per era: a failure result, or -32000 on 2024-11-05", async () => {
    const server = shared;
    const modern = await server.handleModern(req("tools/call", { name: "echo", arguments: {} }), ctx());
    assert.equal(modern.isError, true);
    assert.equal((modern.structuredContent as { error: { code: string } }).error.code, "INVALID_ARGUMENTS");
    const legacy = await legacyCall(server, "2025-06-18", "echo", {});
    assert.equal(legacy.isError, true);
    assert.equal(legacy.structuredContent, undefined);
    const old = await rpcError(legacyCall(server, "2024-11-05", "echo", {}));
    assert.equal(old.code, LEGACY_TOOL_ERROR);
    assert.equal(toolErrorOf(old)?.code, "INVALID_ARGUMENTS");
  });

  test("a ToolError thrown by a service tool is a failure outcome", async () => {
    const server = shared;
    const outcome = await server.runTool("fail", { x: "a" }, ctx());
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.error.code, "NOT_FOUND");
    const modern = await server.handleModern(req("tools/call", { name: "fail", arguments: { x: "a" } }), ctx());
    assert.deepEqual((modern.structuredContent as { error: JsonObject }).error, {
      code: "NOT_FOUND",
      message: "no such thing",
      hint: new ToolError("NOT_FOUND", "").hint,
      details: { id: "X" },
    });
    assert.equal((await rpcError(legacyCall(server, "2024-11-05", "fail", { x: "a" }))).message, "no such thing");
  });

  test("a plain Error from a tool is RpcError -32603 'Internal error', logged with its stack", async () => {
    logLines.length = 0;
    const lines = logLines;
    const e = await rpcError(shared.runTool("crash", { x: "a" }, ctx()));
    assert.equal(e.code, INTERNAL_ERROR);
    assert.equal(e.message, "Internal error");
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, "error");
    assert.equal(lines[0]?.msg, "tool crash failed unexpectedly");
    assert.match(String(lines[0]?.detail), /kaboom/);
  });

  test("an output that breaks its outputSchema is -32603, logged with the issues", async () => {
    logLines.length = 0;
    const lines = logLines;
    const e = await rpcError(shared.runTool("bad_output", { x: "a" }, ctx()));
    assert.equal(e.code, INTERNAL_ERROR);
    assert.equal(lines[0]?.msg, "tool bad_output produced output that breaks its outputSchema");
    assert.deepEqual(lines[0]?.issues, [{ path: "/x", message: "must be string" }]);
  });

  test("malformed extra content is -32603 too", async () => {
    logLines.length = 0;
    const lines = logLines;
    const e = await rpcError(shared.runTool("bad_extra", { x: "a" }, ctx()));
    assert.equal(e.code, INTERNAL_ERROR);
    assert.deepEqual(lines[0]?.issues, [{ path: "/_extra_content", message: "is not a list of content blocks" }]);
  });

  test("extra content blocks follow the text block; structuredContent is checked without them", async () => {
    const server = shared;
    const outcome = await server.runTool("with_image", { x: "a" }, ctx());
    assert.deepEqual(outcome, { ok: true, value: { x: "a" }, extra: [image] });
    const r = await server.handleModern(req("tools/call", { name: "with_image", arguments: { x: "a" } }), ctx());
    assert.deepEqual(r.content, [{ type: "text", text: '{"x":"a"}' }, image]);
    assert.deepEqual(r.structuredContent, { x: "a" });
  });

  test("required client capabilities: -32021 only when clientCapabilities is given, checked before the arguments", async () => {
    const server = shared;
    for (const caps of [{}, { sampling: true }, { roots: {} }]) {
      const e = await rpcError(server.runTool("needs_sampling", { x: "a" }, ctx({ clientCapabilities: caps })));
      assert.equal(e.code, MISSING_REQUIRED_CLIENT_CAPABILITY);
      assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
      assert.match(e.message, /sampling/);
    }
    assert.equal((await rpcError(server.runTool("needs_sampling", { bad: 1 }, ctx({ clientCapabilities: {} })))).code, MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert.deepEqual(await server.runTool("needs_sampling", { x: "a" }, ctx({ clientCapabilities: { sampling: {} } })), {
      ok: true,
      value: { x: "a" },
      extra: [],
    });
    assert.deepEqual(await server.runTool("needs_sampling", { x: "a" }, ctx()), { ok: true, value: { x: "a" }, extra: [] }, "not given: not checked");
  });

  test("progress reaches a service tool through the context", async () => {
    const seen: unknown[] = [];
    await shared.runTool("progress", { x: "a" }, ctx({ progress: (...args) => seen.push(args) }));
    assert.deepEqual(seen, [[1, 2, "half"]]);
    await shared.runTool("progress", { x: "a" }, ctx()); // no reporter: a no-op one is given
  });

  test("a service tool past its budgetMs is a TIMEOUT outcome, even when it ignores its signal", async () => {
    seenSignals.length = 0;
    const server = shared;
    for (const name of server.registry.names()) {
      const entry = server.registry.get(name);
      void entry?.validateInput; // compiled now, not while the budget runs
      void entry?.validateOutput;
    }
    const started = Date.now();
    const outcome = await server.runTool("hang", {}, ctx());
    const elapsed = Date.now() - started;
    // Ended by its 60 ms budget, not by anything else; the margin is for a loaded machine (a load average of 11
    // on 2 cores made it 1.2-1.8 s).
    assert.ok(elapsed >= 50 && elapsed < 10_000, `${elapsed} ms`);
    assert.equal(outcome.ok, false);
    if (outcome.ok) return;
    assert.equal(outcome.error.code, "TIMEOUT");
    assert.deepEqual(outcome.error.details, { budget_ms: 60 });
    assert.equal(seenSignals[0]?.aborted, true, "the work's signal fired at the budget");
  });

  test("cancellation via the signal is a CancelledError", async () => {
    const server = shared;
    seenSignals.length = 0;
    const controller = new AbortController();
    const pending = server.runTool("wait", {}, ctx({ signal: controller.signal }));
    await new Promise((r) => setImmediate(r));
    assert.equal(seenSignals[0]?.aborted, false);
    controller.abort();
    await assert.rejects(pending, CancelledError);
    assert.equal(seenSignals[0]?.aborted, true, "the work was told to stop");
    const aborted = AbortSignal.abort();
    await assert.rejects(server.runTool("wait", {}, ctx({ signal: aborted })), CancelledError);
    await assert.rejects(server.handleModern(req("tools/call", { name: "wait", arguments: {} }), ctx({ signal: aborted })), CancelledError);
  });
});

describe("resources", () => {
  test("without providers every resources method is -32601, in both eras", async () => {
    const server = shared;
    for (const method of ["resources/list", "resources/templates/list", "resources/read"]) {
      assert.equal((await rpcError(server.handleModern(req(method, { uri: "demo://item/1" }), ctx()))).code, METHOD_NOT_FOUND);
      assert.equal((await rpcError(server.handleLegacy(req(method, { uri: "demo://item/1" }), "2025-06-18", ctx()))).code, METHOD_NOT_FOUND);
    }
  });

  test("with a provider: modern answers carry ttlMs and the cache fields, legacy ones drop ttlMs", async () => {
    const contents = [{ uri: "demo://item/1", mimeType: "application/json", text: "{}" }];
    const server = makeServer({ resources: [demoProvider(async () => contents)] });
    assert.deepEqual(await server.handleModern(req("resources/list"), ctx()), {
      resultType: "complete",
      resources: [{ uri: "demo://item/1", name: "item 1", mimeType: "application/json" }],
      ttlMs: RESOURCE_LIST_TTL_MS,
      cacheScope: "public",
      _meta: serverInfo,
    });
    const read = await server.handleModern(req("resources/read", { uri: "demo://item/1" }), ctx());
    assert.deepEqual(read.contents, contents);
    assert.equal(read.ttlMs, 1234);
    const legacy = await server.handleLegacy(req("resources/templates/list"), "2025-06-18", ctx());
    assert.deepEqual(Object.keys(legacy.result), ["resourceTemplates"]);
    assert.equal((await rpcError(server.handleModern(req("resources/list", { cursor: "c" }), ctx()))).code, INVALID_PARAMS);
  });

  test("a read's ToolError is -32603 carrying the sanitised payload and the uri", async () => {
    const server = makeServer({
      resources: [
        demoProvider(async () => {
          throw new ToolError("UPSTREAM_UNAVAILABLE", "upstream down", { status: 503 });
        }),
      ],
    });
    const e = await rpcError(server.handleLegacy(req("resources/read", { uri: "demo://item/1" }), "2025-06-18", ctx()));
    assert.equal(e.code, INTERNAL_ERROR);
    assert.equal(e.message, "UPSTREAM_UNAVAILABLE: upstream down");
    assert.deepEqual(e.data, {
      code: "UPSTREAM_UNAVAILABLE",
      message: "upstream down",
      hint: new ToolError("UPSTREAM_UNAVAILABLE", "").hint,
      details: { status: 503 },
      uri: "demo://item/1",
    });
  });
});

test("no worker was started: every tool here is a service tool", () => {
  assert.equal(pool.startedWorkers, 0);
  assert.equal(pool.liveWorkers, 0);
});
