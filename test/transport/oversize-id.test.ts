/**
 * Every request gets its answer with its id: a message over the 1 MiB request limit is refused (-32600) with the
 * id its first bytes name, over stdio and HTTP, so the client's pending call ends instead of waiting out its own
 * timeout; an over-long argument of molecule or table text says where it is and what to send instead.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";
import { HttpServerProcess, httpSend, JSON_HEADERS, modernHeaders } from "../helpers/http.js";
import { idOfPrefix } from "../../src/protocol/jsonrpc.js";

/** A 1.2 MB SDF argument: what an agent pastes when it should have staged the file. */
const SDF = `mol\n  RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END\n$$$$\n`.repeat(12_000);

function call(id: string | number | null, raw?: string): string {
  const head = raw === undefined ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},` : `{"jsonrpc":"2.0","id":${raw},`;
  return `${head}"method":"tools/call","params":{"_meta":${JSON.stringify(MODERN_META)},"name":"calc_properties","arguments":{"sdf":${JSON.stringify(SDF)}}}}`;
}

test("the id is read from a prefix: strings, numbers with their digits, an id after the cut is not guessed", () => {
  assert.deepEqual(idOfPrefix(Buffer.from(call("big-1").slice(0, 100))), { id: "big-1" });
  assert.deepEqual(idOfPrefix(Buffer.from(call(null, "12345678901234567890123").slice(0, 100))), {
    id: Number("12345678901234567890123"),
    rawId: "12345678901234567890123",
  });
  assert.deepEqual(idOfPrefix(Buffer.from(`{"jsonrpc":"2.0","method":"tools/call","params":{"x":"${"a".repeat(70_000)}"},"id":9}`)), { id: null });
  assert.deepEqual(idOfPrefix(Buffer.from("not json")), { id: null });
  // A number cut at the end of the prefix may be longer in the whole message: "id":12 of "id":1234 is no id.
  assert.deepEqual(idOfPrefix(Buffer.from('{"jsonrpc":"2.0","id":12')), { id: null });
  assert.deepEqual(idOfPrefix(Buffer.from('{"jsonrpc":"2.0","id":1234 ,')), { id: 1234 });
  assert.deepEqual(idOfPrefix(Buffer.from('{"jsonrpc":"2.0","id":1234}')), { id: 1234 });
});

describe("over stdio", () => {
  let s: ServerProcess;
  before(() => (s = new ServerProcess({ CHEMATIC_WORKERS: "1" })));
  after(() => s.close());

  test("a 1.2 MB tools/call line is answered with its string id, then with a large numeric id's own digits, and the server keeps serving", async () => {
    assert.ok(Buffer.byteLength(call("big-1")) > 1_200_000);
    s.sendRaw(`${call("big-1")}\n`);
    const refused = await s.response("big-1");
    assert.equal(refused.error?.code, -32600);
    assert.match(refused.error.message, /maximum size of 1048576 bytes/);
    s.sendRaw(`${call(null, "12345678901234567890123")}\n`);
    await s.waitFor(() => s.lines.some((l) => l.startsWith('{"jsonrpc":"2.0","id":12345678901234567890123,')));
    const ok = await s.modernCall(3, "parse_smiles", { smiles: "CCO" });
    assert.equal((ok.result!.structuredContent as { atoms: number }).atoms, 3);
  });

  test("an sdf argument over the string limit names the argument and points to canvas_import with a path", async () => {
    const sdf = SDF.slice(0, 300_000);
    const answer = await s.modernCall(4, "calc_properties", { sdf });
    assert.equal(answer.error?.code, -32600);
    assert.match(answer.error.message, /string longer than 262144 bytes at params\.arguments\.sdf/);
    assert.match(answer.error.message, /canvas_import \{ path \}/);
  });
});

describe("over HTTP", () => {
  let server: HttpServerProcess;
  let url: string;
  before(async () => {
    server = new HttpServerProcess();
    url = await server.url;
  });
  after(() => server.stop());

  test("a 1.2 MB body is answered 413 with the JSON-RPC id its first bytes name", async () => {
    const body = call("big-http");
    const message = { method: "tools/call", params: { _meta: MODERN_META, name: "calc_properties", arguments: {} } };
    const reply = await httpSend(url, body, { headers: { ...JSON_HEADERS, ...modernHeaders(message) } });
    assert.equal(reply.status, 413);
    const parsed = JSON.parse(reply.text) as { id: unknown; error: { code: number; message: string } };
    assert.equal(parsed.id, "big-http");
    assert.equal(parsed.error.code, -32600);
    // The server still serves.
    const ping = await httpSend(url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: MODERN_META } }), {
      headers: { ...JSON_HEADERS, ...modernHeaders({ method: "server/discover", params: { _meta: MODERN_META } }) },
    });
    assert.equal(ping.status, 200);
  });
});
