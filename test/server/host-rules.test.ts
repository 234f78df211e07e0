/**
 * The tool list as agent hosts see it: for every tool set and both protocol eras, tools/list from the real
 * server (over stdio) checked against the written rules of the Anthropic Messages API, OpenAI function tools
 * (non-strict) and a strict Gemini-style sanitiser (test/helpers/host-rules.ts cites each rule), and the
 * model-facing part of the list (name, description, input schema) held under its byte budget.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";
import { allBreaches, geminiNodeBreaches, type WireToolLike } from "../helpers/host-rules.js";
import { TOOLSETS } from "../../src/contract/tool.js";
import { MODEL_FACING_BUDGET_BYTES, modelFacingBytes } from "../../src/server/registry.js";

const servers: ServerProcess[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

const SETS: readonly (string | undefined)[] = [undefined, ...TOOLSETS];

async function listed(set: string | undefined, era: "2026-07-28" | "2025-11-25" | "2024-11-05"): Promise<WireToolLike[]> {
  const env: Record<string, string> = { CHEMATIC_WORKERS: "1", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" };
  if (set !== undefined) env.CHEMATIC_TOOLSETS = set;
  const server = new ServerProcess(env);
  servers.push(server);
  if (era === "2026-07-28") {
    const answer = await server.request(1, "tools/list", { _meta: MODERN_META });
    return (answer.result as { tools: WireToolLike[] }).tools;
  }
  await server.request(1, "initialize", { protocolVersion: era, capabilities: {}, clientInfo: { name: "host-rules", version: "1" } });
  server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const answer = await server.request(2, "tools/list");
  return (answer.result as { tools: WireToolLike[] }).tools;
}

for (const era of ["2026-07-28", "2025-11-25", "2024-11-05"] as const) {
  describe(`tools/list in ${era}`, () => {
    for (const set of SETS) {
      test(`${set ?? "every set"}: every tool passes the Anthropic, OpenAI and Gemini rules`, async () => {
        const tools = await listed(set, era);
        assert.ok(tools.length > 0);
        const breaches = tools.flatMap((t) => allBreaches(t).map((b) => `${t.name}: ${b}`));
        assert.deepEqual(breaches, [], breaches.join("\n"));
      });
    }
  });
}

test(`the model-facing tool list (name, description, input schema) is at most ${MODEL_FACING_BUDGET_BYTES} bytes`, async () => {
  const tools = await listed(undefined, "2026-07-28");
  const total = modelFacingBytes(tools);
  assert.ok(total <= MODEL_FACING_BUDGET_BYTES, `${total} bytes for ${tools.length} tools`);
});

/**
 * A maintained conversion, run as a host runs it: the Vercel AI SDK's Google provider (@ai-sdk/google) turns an
 * MCP tool's input schema into a Gemini function declaration (its convertJSONSchemaToOpenAPISchema) when it builds
 * the request. The request is captured by a fetch that never reaches the network, and each declaration is checked
 * against the strict Gemini rules.
 */
test("every tool's input schema converts through @ai-sdk/google into a Gemini declaration that passes the strict rules", async () => {
  const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
  const tools = await listed(undefined, "2026-07-28");
  let body: { tools?: Array<{ functionDeclarations: Array<{ name: string; parameters?: Record<string, unknown> }> }> } = {};
  const google = createGoogleGenerativeAI({
    apiKey: "not-a-key",
    fetch: (_url, init) => {
      body = JSON.parse(String(init?.body)) as typeof body;
      const answer = {
        candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      };
      return Promise.resolve(new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } }));
    },
  });
  await google("gemini-2.5-flash").doGenerate({
    prompt: [{ role: "user", content: [{ type: "text", text: "list" }] }],
    tools: tools.map((t) => ({ type: "function" as const, name: t.name, description: t.description ?? "", inputSchema: t.inputSchema as never })),
  });
  const declarations = body.tools?.[0]?.functionDeclarations ?? [];
  assert.equal(declarations.length, tools.length, "one declaration per tool");
  const breaches = declarations.flatMap((d) => (d.parameters ? geminiNodeBreaches(d.parameters).map((b) => `${d.name}: ${b}`) : []));
  assert.deepEqual(breaches, [], breaches.join("\n"));
});
