/**
 * The official MCP clients against the CLI over Streamable HTTP: the v1 SDK (legacy initialize, stateless:
 * no Mcp-Session-Id) and the v2 client, pinned to 2026-07-28 and in auto mode. Both validate our answers
 * with their own schemas; the v2 client also receives progress over the per-request SSE stream.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { HttpServerProcess } from "../helpers/http.js";

let server: HttpServerProcess;
let url: URL;

before(async () => {
  server = new HttpServerProcess([], { CHEMATIC_TEST_TOOLS: "1", CHEMATIC_WORKERS: "2" });
  url = new URL(await server.url);
});

after(async () => {
  assert.equal(await server.stop(), 0);
});

test("@modelcontextprotocol/sdk 1.x over HTTP: initialize, list, call, a typed failure, no session", async () => {
  const client = new LegacyClient({ name: "legacy-http-test", version: "1.0.0" });
  const transport = new LegacyHttp(url);
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "chematic-mcp");
    assert.equal(transport.sessionId, undefined, "no Mcp-Session-Id is issued");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "parse_smiles"));
    const result = await client.callTool({ name: "canonical_smiles", arguments: { smiles: "OCC" } });
    assert.equal((result.structuredContent as { canonical: string }).canonical, "CCO");
    const failed = await client.callTool({ name: "parse_smiles", arguments: { smiles: "C1CC" } });
    assert.equal(failed.isError, true);
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), /Unknown tool/);
    const progress: number[] = [];
    const slept = await client.callTool({ name: "test_sleep", arguments: { ms: 500 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    assert.ok((slept.structuredContent as { slept_ms: number }).slept_ms >= 500);
    assert.ok(progress.length >= 2, `progress over SSE: ${progress.join(",")}`);
  } finally {
    await client.close();
  }
});

test("@modelcontextprotocol/client 2.x pinned to 2026-07-28 over HTTP, with progress", async () => {
  const client = new ModernClient({ name: "modern-http-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernHttp(url));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    const { tools } = await client.listTools();
    const parse = tools.find((t) => t.name === "parse_smiles");
    assert.ok(parse?.outputSchema && parse.title);
    const result = await client.callTool({ name: "parse_smiles", arguments: { smiles: "c1ccccc1O" } });
    assert.equal((result.structuredContent as { atoms: number }).atoms, 7);
    const failed = await client.callTool({ name: "parse_smiles", arguments: { smiles: "c1cc" } });
    assert.equal((failed.structuredContent as { error: { code: string } }).error.code, "INVALID_SMILES");
    const progress: number[] = [];
    const slept = await client.callTool({ name: "test_sleep", arguments: { ms: 500 } }, { onprogress: (p: { progress: number }) => progress.push(p.progress) });
    assert.ok((slept.structuredContent as { slept_ms: number }).slept_ms >= 500);
    assert.ok(progress.length >= 2, `progress over SSE: ${progress.join(",")}`);
  } finally {
    await client.close();
  }
});

test("@modelcontextprotocol/client 2.x in auto mode negotiates the modern era over HTTP", async () => {
  const client = new ModernClient({ name: "auto-http-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new ModernHttp(url));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    const result = await client.callTool({ name: "canonical_smiles", arguments: { smiles: "C(C)O" } });
    assert.equal((result.structuredContent as { canonical: string }).canonical, "CCO");
  } finally {
    await client.close();
  }
});

test("@modelcontextprotocol/client 2.x reads a failed resources/read as a typed JSON-RPC error, not an HTTP failure", async () => {
  const offline = new HttpServerProcess([], { CHEMATIC_OFFLINE: "1", CHEMATIC_WORKERS: "1" });
  const client = new ModernClient({ name: "resource-failure-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  try {
    await client.connect(new ModernHttp(new URL(await offline.url)));
    const failure = await client.readResource({ uri: "chembl://molecule/CHEMBL25" }).then(
      () => assert.fail("an offline read must fail"),
      (e: unknown) => e as { code?: number; data?: { code?: string; hint?: string } },
    );
    assert.equal(failure.code, -32603, `a JSON-RPC error reached the client: ${JSON.stringify(failure)}`);
    assert.equal(failure.data?.code, "OFFLINE");
    assert.ok(failure.data?.hint, "the recovery hint travels with it");
  } finally {
    await client.close();
    assert.equal(await offline.stop(), 0);
  }
});
