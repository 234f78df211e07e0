/**
 * A schema failure's answer stays small whatever the input: 20,000 unknown keys, or one key of 200 KB,
 * give an INVALID_ARGUMENTS answer of a few KB that names the first issues and counts them all.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { silentLogger } from "../../src/logger.js";
import { McpServer, MAX_REPORTED_ISSUES } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { allTools } from "../../src/tools/index.js";
import { MODERN_VERSION } from "../../src/protocol/eras.js";

// A lazy pool spawns no worker: input validation answers before any chemistry runs.
const pool = new WorkerPool({ size: 1, lazy: true });
const server = new McpServer({ tools: allTools({}), pool, info: { name: "chematic-mcp", version: "0" }, logger: silentLogger });
after(() => pool.close());

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function answerFor(args: Record<string, unknown>): Promise<{ bytes: number; details: Record<string, unknown> }> {
  const result = await server.handleModern(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: MODERN_META, name: "canonical_smiles", arguments: args } },
    { signal: new AbortController().signal },
  );
  const error = (result.structuredContent as { error: { code: string; details: Record<string, unknown> } }).error;
  assert.equal(error.code, "INVALID_ARGUMENTS");
  return { bytes: Buffer.byteLength(JSON.stringify(result)), details: error.details };
}

test("20,000 unknown keys: the first issues and their count, in a few KB", async () => {
  const args: Record<string, unknown> = { smiles: "CCO" };
  for (let i = 0; i < 20_000; i++) args[`k${i}`] = 1;
  const { bytes, details } = await answerFor(args);
  assert.equal((details.issues as unknown[]).length, MAX_REPORTED_ISSUES);
  assert.equal(details.issues_total, 20_000);
  assert.ok(bytes < 8_192, `the answer is ${bytes} bytes`);
});

test("one unknown key of 200 KB is clipped in the answer", async () => {
  const { bytes, details } = await answerFor({ smiles: "CCO", ["x".repeat(200_000)]: 1 });
  assert.equal((details.issues as unknown[]).length, 1);
  assert.equal(details.issues_total, undefined, "no count when every issue is listed");
  assert.ok(bytes < 8_192, `the answer is ${bytes} bytes`);
});
