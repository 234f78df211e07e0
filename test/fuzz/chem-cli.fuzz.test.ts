/**
 * Fuzzing every registered tool through a real server process (the CLI over stdio, offline so networked
 * tools answer OFFLINE at once): batches of concurrent tools/call requests whose arguments come from each
 * tool's inputSchema as tools/list publishes it (random and mutated SMILES and SMARTS in the SMILES and
 * SMARTS slots), or are wrong on purpose (wrong types, unknown keys, not an object).
 *
 * Every request gets exactly one answer with its id; a successful result matches the tool's published
 * outputSchema; a tool failure carries a known error code in structuredContent and the same payload in
 * its text block; nothing is -32603 Internal error; every stdout line is JSON-RPC; the process lives.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ValidateFunction } from "ajv";
import { isErrorCode } from "../../src/domain/errors.js";
import { createAjv } from "../../src/server/registry.js";
import type { JsonSchema } from "../../src/contract/tool.js";
import { MODERN_META, ServerProcess, type Message } from "../helpers/server-process.js";
import { anySmarts, anySmiles, argsFor, fuzzParams, timeBox, wrongArgs } from "./arbitraries.js";

interface WireTool {
  name: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

describe("random tool calls through a real server process", () => {
  let server: ServerProcess;
  let tools: WireTool[] = [];
  const outputs = new Map<string, ValidateFunction>();
  let nextId = 1;

  before(async () => {
    server = new ServerProcess({ CHEMATIC_WORKERS: "2", CHEMATIC_OFFLINE: "1", CHEMATIC_LOG_LEVEL: "error" });
    const listed = await server.request("list", "tools/list", { _meta: MODERN_META });
    tools = listed.result!.tools as WireTool[];
    const ajv = createAjv();
    for (const t of tools) outputs.set(t.name, ajv.compile(t.outputSchema));
  });

  after(async () => {
    if (server.child.exitCode === null) server.kill();
  });

  function check(name: string, args: unknown, answer: Message): string {
    const where = `${name} ${JSON.stringify(args)?.slice(0, 300)}`;
    if (answer.error) {
      assert.notEqual(answer.error.code, -32603, `Internal error for ${where}: ${JSON.stringify(answer.error)}`);
      assert.equal(answer.error.code, -32602, `only invalid params may be a JSON-RPC error for ${where}: ${JSON.stringify(answer.error)}`);
      return "rpc -32602";
    }
    const result = answer.result!;
    const content = result.content as Array<{ type: string; text?: string }>;
    assert.ok(Array.isArray(content) && content.length > 0 && content[0]!.type === "text", `a text block first for ${where}`);
    const structured = result.structuredContent as Record<string, unknown>;
    if (result.isError) {
      const error = structured.error as { code: unknown; message: unknown };
      assert.ok(isErrorCode(error.code), `a known error code for ${where}: ${JSON.stringify(error)}`);
      assert.equal(typeof error.message, "string");
      assert.deepEqual(JSON.parse(content[0]!.text!), structured, `the text block carries the error for ${where}`);
      return String(error.code);
    }
    const validate = outputs.get(name)!;
    assert.ok(validate(structured), `result breaks ${name}'s published outputSchema for ${where}: ${JSON.stringify(validate.errors)}`);
    return "ok";
  }

  test("batches of concurrent calls to every tool: one valid answer each", { timeout: 150_000 }, async (t) => {
    assert.ok(tools.length >= 10, `${tools.length} tools listed`);
    const sources = { smiles: anySmiles(14), smarts: anySmarts() };
    const call = fc
      .constantFrom(...tools)
      .chain((tool) =>
        fc
          .oneof({ arbitrary: argsFor(tool.inputSchema, sources), weight: 5 }, { arbitrary: wrongArgs(), weight: 1 })
          .map((args) => ({ name: tool.name, args })),
      );
    const seen = new Map<string, number>();
    const box = timeBox(20_000);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 6 }), (calls) =>
        box(async () => {
          const sent = calls.map((c) => ({ ...c, id: `c-${nextId++}` }));
          for (const c of sent)
            server.send({ jsonrpc: "2.0", id: c.id, method: "tools/call", params: { _meta: MODERN_META, name: c.name, arguments: c.args } });
          const answers = await Promise.all(sent.map((c) => server.response(c.id, 60_000)));
          sent.forEach((c, i) => {
            const outcome = `${c.name}: ${check(c.name, c.args, answers[i]!)}`;
            seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
          });
          assert.equal(server.child.exitCode, null, "the server is alive");
        }),
      ),
      fuzzParams(300),
    );
    const byTool = new Map<string, string[]>();
    for (const [k, n] of seen) {
      const [tool, outcome] = k.split(": ");
      byTool.set(tool!, [...(byTool.get(tool!) ?? []), `${outcome} ${n}`]);
    }
    for (const [tool, outcomes] of [...byTool].sort()) t.diagnostic(`${tool}: ${outcomes.join(", ")}`);
  });

  test("every stdout line is JSON-RPC, every id was answered exactly once, and EOF exits 0", { timeout: 60_000 }, async () => {
    assert.equal(await server.close(), 0);
    const ids = new Map<unknown, number>();
    for (const line of server.lines) {
      const m = JSON.parse(line) as Message;
      assert.equal(m.jsonrpc, "2.0");
      if (m.method === undefined) ids.set(m.id, (ids.get(m.id) ?? 0) + 1);
    }
    for (const [id, n] of ids) assert.equal(n, 1, `id ${String(id)} answered ${n} times`);
    assert.equal(ids.size, nextId - 1 + 1, "every call and the tools/list were answered");
  });
});
