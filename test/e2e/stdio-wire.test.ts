/**
 * The wire over a real child process: the seed's examples in both eras, version negotiation, the era
 * rules, and the framing limits. Every stdout line must be a JSON-RPC 2.0 message.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_META, ServerProcess, type Message } from "../helpers/server-process.js";

function assertProtocolOnly(server: ServerProcess): void {
  for (const line of server.lines) {
    const m = JSON.parse(line) as Message;
    assert.equal(m.jsonrpc, "2.0", `not JSON-RPC: ${line.slice(0, 200)}`);
  }
}

describe("legacy 2024-11-05 (the seed's example, byte-compatible with the reference)", () => {
  let s: ServerProcess;
  before(() => (s = new ServerProcess()));
  after(async () => {
    assert.equal(await s.close(), 0);
    assertProtocolOnly(s);
  });

  test("initialize answers 2024-11-05 as the reference (plus the resources and prompts capabilities it lacked)", async () => {
    s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {} } });
    s.send({ jsonrpc: "2.0", method: "notifications/initialized", params: {} });
    await s.response(1);
    const line = s.lines.find((l) => l.includes('"id":1'));
    assert.match(
      line!,
      /^\{"jsonrpc":"2\.0","id":1,"result":\{"protocolVersion":"2024-11-05","capabilities":\{"tools":\{\},"resources":\{\},"prompts":\{\}\},"serverInfo":\{"name":"chematic-mcp","version":"[^"]+"\}\}\}$/,
    );
  });

  test("tools/list lists tools with input and output schemas", async () => {
    const r = await s.request(2, "tools/list");
    const tools = r.result!.tools as Array<Record<string, unknown>>;
    assert.ok(tools.some((t) => t.name === "parse_smiles"));
    for (const t of tools) assert.deepEqual(Object.keys(t).sort(), ["description", "inputSchema", "name", "outputSchema"]);
  });

  test("tools/call parse_smiles answers a text block only", async () => {
    const r = await s.request(3, "tools/call", { name: "parse_smiles", arguments: { smiles: "c1ccccc1" } });
    assert.deepEqual(Object.keys(r.result!), ["content"]);
    const content = r.result!.content as Array<{ type: string; text: string }>;
    assert.equal(content.length, 1);
    assert.equal(content[0]!.type, "text");
    const payload = JSON.parse(content[0]!.text) as Record<string, unknown>;
    assert.equal(payload.valid, true);
    assert.equal(payload.atoms, 6);
    assert.equal(payload.bonds, 6);
    assert.equal(payload.mol_weight, 78.114);
  });

  test("every tool failure is JSON-RPC -32000: chemistry, bad arguments, unknown tool", async () => {
    const bad = await s.request(4, "tools/call", { name: "parse_smiles", arguments: { smiles: "C1CC(" } });
    assert.equal(bad.error!.code, -32000);
    assert.match(bad.error!.message, /^Invalid SMILES 'C1CC\(':/);
    const missing = await s.request(5, "tools/call", { name: "parse_smiles", arguments: {} });
    assert.equal(missing.error!.code, -32000);
    assert.match(missing.error!.message, /needs one of smiles, smiles_list or sdf/);
    const unknown = await s.request(6, "tools/call", { name: "no_such_tool", arguments: {} });
    assert.equal(unknown.error!.code, -32000);
    assert.equal((await s.request(7, "ping")).result !== undefined, true);
  });
});

describe("legacy negotiation", () => {
  for (const [asked, answered] of [
    ["2025-03-26", "2025-03-26"],
    ["2025-06-18", "2025-06-18"],
    ["2025-11-25", "2025-11-25"],
    ["2099-01-01", "2025-11-25"],
  ] as const) {
    test(`initialize ${asked} answers ${answered}, and tool results follow that version`, async () => {
      const s = new ServerProcess();
      try {
        const init = await s.request(1, "initialize", { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } });
        assert.equal(init.result!.protocolVersion, answered);
        assert.equal(typeof init.result!.instructions, "string");
        const ok = await s.request(2, "tools/call", { name: "parse_smiles", arguments: { smiles: "CCO" } });
        const bad = await s.request(3, "tools/call", { name: "parse_smiles", arguments: { smiles: "C(" } });
        const badArgs = await s.request(4, "tools/call", { name: "parse_smiles", arguments: { smiles: 5 } });
        const unknown = await s.request(5, "tools/call", { name: "nope", arguments: {} });
        assert.equal(bad.result!.isError, true);
        assert.equal(badArgs.result!.isError, true);
        assert.equal(unknown.error!.code, -32602);
        // Legacy failures carry the error in the text block only (the v1 SDK client validates
        // structuredContent against outputSchema even on isError; see src/server/shape.ts).
        assert.equal(bad.result!.structuredContent, undefined);
        const errorOf = (m: typeof bad) =>
          (JSON.parse((m.result!.content as Array<{ text: string }>)[0]!.text) as { error: { code: string; details: { path?: string } } }).error;
        assert.equal(errorOf(bad).code, "INVALID_SMILES");
        assert.equal(errorOf(badArgs).code, "INVALID_ARGUMENTS");
        assert.equal(errorOf(badArgs).details.path, "/smiles");
        if (answered === "2025-03-26") {
          assert.equal(ok.result!.structuredContent, undefined);
        } else {
          assert.equal((ok.result!.structuredContent as { atoms: number }).atoms, 3);
        }
        const list = await s.request(6, "tools/list");
        const tool = (list.result!.tools as Array<Record<string, unknown>>)[0]!;
        assert.ok(tool.annotations, "annotations exist from 2025-03-26");
        assert.equal("title" in tool, answered !== "2025-03-26");
      } finally {
        await s.close();
      }
    });
  }
});

describe("modern 2026-07-28 (the seed's example)", () => {
  let s: ServerProcess;
  before(() => (s = new ServerProcess()));
  after(async () => {
    assert.equal(await s.close(), 0);
    assertProtocolOnly(s);
  });

  test("server/discover", async () => {
    const r = await s.request(1, "server/discover", { _meta: MODERN_META });
    const res = r.result!;
    assert.equal(res.resultType, "complete");
    assert.deepEqual(res.supportedVersions, ["2026-07-28"]);
    assert.deepEqual(res.capabilities, { tools: {}, resources: {}, prompts: {} });
    assert.equal(typeof res.instructions, "string");
    assert.equal(res.ttlMs, 86_400_000);
    assert.equal(res.cacheScope, "public");
    assert.deepEqual((res._meta as Record<string, { name: string }>)["io.modelcontextprotocol/serverInfo"]!.name, "chematic-mcp");
  });

  test("tools/list carries cache hints and a deterministic order", async () => {
    const a = await s.request(2, "tools/list", { _meta: MODERN_META });
    const b = await s.request(3, "tools/list", { _meta: MODERN_META });
    assert.equal(a.result!.ttlMs, 86_400_000);
    assert.equal(a.result!.cacheScope, "public");
    assert.equal(a.result!.resultType, "complete");
    assert.deepEqual(a.result!.tools, b.result!.tools);
    const bad = await s.request(4, "tools/list", { _meta: MODERN_META, cursor: "abc" });
    assert.equal(bad.error!.code, -32602);
  });

  test("tools/call parse_smiles: resultType, text JSON and structuredContent", async () => {
    const r = await s.modernCall(5, "parse_smiles", { smiles: "c1ccccc1" });
    const res = r.result!;
    assert.equal(res.resultType, "complete");
    assert.equal(res.isError, undefined);
    const text = (res.content as Array<{ type: string; text: string }>)[0]!;
    assert.deepEqual(JSON.parse(text.text), res.structuredContent);
    assert.equal((res.structuredContent as { atoms: number }).atoms, 6);
    assert.ok((res._meta as Record<string, unknown>)["io.modelcontextprotocol/serverInfo"]);
  });

  test("chemistry failure: isError with structuredContent.error", async () => {
    const r = await s.modernCall(6, "parse_smiles", { smiles: "c1ccc" });
    assert.equal(r.result!.isError, true);
    const err = (r.result!.structuredContent as { error: { code: string; message: string; hint: string; details: Record<string, unknown> } }).error;
    assert.equal(err.code, "INVALID_SMILES");
    assert.match(err.message, /unclosed ring/);
    assert.ok(err.hint.length > 10);
  });

  test("schema failure: isError INVALID_ARGUMENTS naming the path", async () => {
    const r = await s.modernCall(7, "parse_smiles", { smiles: "CCO", extra: 1 });
    const err = (r.result!.structuredContent as { error: { code: string; details: { path: string } } }).error;
    assert.equal(err.code, "INVALID_ARGUMENTS");
    assert.equal(err.details.path, "/extra");
    const tooLong = await s.modernCall(8, "parse_smiles", { smiles: "C".repeat(100_001) });
    assert.equal((tooLong.result!.structuredContent as { error: { code: string } }).error.code, "INVALID_ARGUMENTS");
  });

  test("unknown tool and malformed CallToolRequest are -32602", async () => {
    assert.equal((await s.modernCall(9, "nope", {})).error!.code, -32602);
    assert.equal((await s.request(10, "tools/call", { _meta: MODERN_META, name: 5 })).error!.code, -32602);
    assert.equal((await s.request(11, "tools/call", { _meta: MODERN_META, name: "parse_smiles", arguments: [] })).error!.code, -32602);
  });

  test("initialize and ping are -32601 in the modern era", async () => {
    assert.equal((await s.request(12, "ping", { _meta: MODERN_META })).error!.code, -32601);
    assert.equal((await s.request(13, "initialize", { _meta: MODERN_META, protocolVersion: "2025-11-25" })).error!.code, -32601);
    assert.equal((await s.request(14, "completion/complete", { _meta: MODERN_META })).error!.code, -32601);
  });

  test("_meta rules: required fields, clientInfo optional but checked, extensions and logLevel tolerated", async () => {
    const base = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    assert.ok((await s.request(15, "tools/list", { _meta: base })).result, "clientInfo is optional");
    const noCaps = await s.request(16, "tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
    assert.equal(noCaps.error!.code, -32602);
    const badInfo = await s.request(17, "tools/list", { _meta: { ...base, "io.modelcontextprotocol/clientInfo": { name: 1 } } });
    assert.equal(badInfo.error!.code, -32602);
    const extras = await s.request(18, "tools/list", {
      _meta: {
        ...base,
        "io.modelcontextprotocol/clientCapabilities": {
          roots: { listChanged: true },
          extensions: { "io.modelcontextprotocol/tasks": {}, "x.example/y": { a: 1 } },
        },
        "io.modelcontextprotocol/logLevel": "debug",
      },
    });
    assert.ok(extras.result);
    const version = await s.request(19, "tools/list", { _meta: { ...base, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } });
    assert.equal(version.error!.code, -32022);
    assert.deepEqual(version.error!.data, { supported: ["2026-07-28"], requested: "2099-01-01" });
  });

  test("a legacy request on the modern-pinned connection is -32600 with the eras", async () => {
    const r = await s.request(20, "initialize", { protocolVersion: "2025-11-25", capabilities: {} });
    assert.equal(r.error!.code, -32600);
    assert.deepEqual(r.error!.data, { pinnedEra: "modern", requestEra: "legacy" });
  });
});

describe("era pinning", () => {
  test("a refused modern probe does not pin: the client can fall back to initialize", async () => {
    const s = new ServerProcess();
    try {
      const probe = await s.request(1, "server/discover", { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2030-01-01" } });
      assert.equal(probe.error!.code, -32022);
      const noMeta = await s.request(2, "server/discover", {});
      assert.equal(noMeta.error!.code, -32602);
      const init = await s.request(3, "initialize", { protocolVersion: "2025-06-18", capabilities: {} });
      assert.equal(init.result!.protocolVersion, "2025-06-18");
      const modern = await s.request(4, "tools/list", { _meta: MODERN_META });
      assert.deepEqual(modern.error!.data, { pinnedEra: "legacy", requestEra: "modern" });
    } finally {
      await s.close();
    }
  });

  test("notifications never pin", async () => {
    const s = new ServerProcess();
    try {
      s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const r = await s.request(1, "server/discover", { _meta: MODERN_META });
      assert.equal(r.result!.resultType, "complete");
    } finally {
      await s.close();
    }
  });
});

describe("framing limits over stdio: errors are answered and the server keeps serving", () => {
  let s: ServerProcess;
  before(() => (s = new ServerProcess()));
  after(async () => {
    assert.equal(await s.close(), 0);
    assertProtocolOnly(s);
  });

  test("a line over 1 MiB", async () => {
    s.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"${"a".repeat(1024 * 1024 + 10)}"}}\n`);
    // Answered with the id its first bytes name, so the caller's pending call ends.
    const e = await s.waitFor((m) => m.id === 1 && m.error?.code === -32600);
    assert.match(e.error!.message, /maximum size/);
    assert.ok(await s.request(2, "server/discover", { _meta: MODERN_META }));
  });

  test("invalid UTF-8, deep nesting, a long array, a long string, garbage, a batch", async () => {
    const before = s.messages.length;
    s.sendRaw(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":3,"method":"x","params":{"s":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}\n')]));
    s.sendRaw(`{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":${"[".repeat(100)}${"]".repeat(100)}}}\n`);
    s.sendRaw(`{"jsonrpc":"2.0","id":5,"method":"x","params":{"a":[${Array(10_001).fill(1).join(",")}]}}\n`);
    s.sendRaw(`{"jsonrpc":"2.0","id":6,"method":"x","params":{"a":"${"b".repeat(256 * 1024 + 1)}"}}\n`);
    s.sendRaw("not json at all\n");
    s.sendRaw('[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]\n');
    const ok = await s.modernCall(8, "parse_smiles", { smiles: "CCO" });
    assert.equal((ok.result!.structuredContent as { atoms: number }).atoms, 3);
    await s.waitFor(() => s.messages.length >= before + 7);
    const errors = s.messages
      .slice(before)
      .filter((m) => m.error)
      .map((m) => [m.id, m.error!.code]);
    assert.deepEqual(
      errors.sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        // The over-deep request names its id at the top level: it is answered with it.
        [4, -32600],
        [5, -32600],
        [6, -32600],
        [null, -32700],
        [null, -32700],
        [null, -32600],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });
});

test("request ids are echoed exactly over stdio: an integer past 2^53 keeps its digits", async () => {
  const s = new ServerProcess({ CHEMATIC_WORKERS: "1" });
  try {
    s.sendRaw(
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n',
    );
    s.sendRaw('{"jsonrpc":"2.0","id":-98765432109876543210,"method":"tools/list"}\n');
    await s.until(() => s.lines.length >= 2, "two answers");
    assert.ok(
      s.lines.some((l) => l.startsWith('{"jsonrpc":"2.0","id":12345678901234567890,"result":')),
      s.lines.join("\n").slice(0, 300),
    );
    assert.ok(s.lines.some((l) => l.startsWith('{"jsonrpc":"2.0","id":-98765432109876543210,"result":')));
  } finally {
    await s.close();
  }
});
