/**
 * Mcp-Param-Canvas-Id over HTTP, in process against the real server and registry: every tool taking
 * canvas_id declares it with x-mcp-header Canvas-Id, so a 2026-07-28 tools/call must carry the header, equal
 * to the body's canvas_id once decoded (a load balancer routes canvas calls on it: the server must run the
 * body the header named). Missing, different, malformed, non-ASCII or repeated: 400 with -32020. A header
 * without a body value is refused too. Legacy requests need no such header (those clients send none), but
 * one they do send must match too (400, -32600); a tool that declares nothing ignores the header.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createApp, type App } from "../../src/app.js";
import { newCanvasId } from "../../src/domain/canvas/ids.js";
import { silentLogger } from "../../src/logger.js";
import { endpointOf } from "../../src/server/transport.js";
import { serveHttp, type HttpTransport } from "../../src/transport/http.js";
import { MODERN_META } from "../helpers/server-process.js";
import { httpSend, modernHeaders, type HttpReply } from "../helpers/http.js";

let app: App;
let http: HttpTransport;

before(async () => {
  app = createApp({ ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error", CHEMATIC_REPLICA_ID: "rt" });
  http = await serveHttp(endpointOf(app.server, silentLogger), { host: "127.0.0.1", port: 0 });
});

after(async () => {
  await http.close(1_000);
  await app.close();
});

/** A 2026-07-28 tools/call with the standard mirrored headers, and `param` as the Mcp-Param-Canvas-Id header (omitted when undefined). */
function call(name: string, args: Record<string, unknown>, param: string | string[] | undefined, headerName = "Mcp-Param-Canvas-Id"): Promise<HttpReply> {
  const message = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: MODERN_META, name, arguments: args } };
  const headers: Record<string, string | string[]> = modernHeaders({ method: "tools/call", params: { name } });
  if (param !== undefined) headers[headerName] = param;
  return httpSend(http.url, JSON.stringify(message), { headers });
}

function mismatch(reply: HttpReply, pattern: RegExp): void {
  assert.equal(reply.status, 400, reply.text);
  const body = JSON.parse(reply.text) as { id: number; error: { code: number; message: string } };
  assert.equal(body.error.code, -32020);
  assert.match(body.error.message, pattern);
}

/** The call reached the tool: a CANVAS_NOT_FOUND result (no such canvas), status 200. */
function reachedTool(reply: HttpReply): void {
  assert.equal(reply.status, 200, reply.text);
  const body = JSON.parse(reply.text) as { result: { isError?: boolean; content: Array<{ text: string }> } };
  assert.equal(body.result.isError, true);
  assert.match(body.result.content[0]!.text, /"code":"CANVAS_NOT_FOUND"/);
}

const id = () => newCanvasId({ replica: "rt", run: "AAAA" });
const b64 = (s: string) => `=?base64?${Buffer.from(s, "utf8").toString("base64")}?=`;

test("the header equal to the body's canvas_id passes, in any case of its name and in the Base64 form", async () => {
  const canvas = id();
  reachedTool(await call("chembl_dataframe_query", { canvas_id: canvas, sql: "SELECT 1" }, canvas));
  reachedTool(await call("chembl_dataframe_describe", { canvas_id: canvas }, canvas, "mcp-param-canvas-id"));
  reachedTool(await call("chembl_dataframe_describe", { canvas_id: canvas }, ` ${canvas} `));
  reachedTool(await call("chembl_dataframe_describe", { canvas_id: canvas }, b64(canvas)));
  // A canvas_id with surrounding blanks (the tools trim it) travels Base64-encoded, blanks included.
  reachedTool(await call("chembl_dataframe_describe", { canvas_id: ` ${canvas}\t` }, b64(` ${canvas}\t`)));
});

test("missing, different, malformed, non-ASCII or repeated: 400 and -32020", async () => {
  const canvas = id();
  mismatch(await call("chembl_dataframe_query", { canvas_id: canvas, sql: "SELECT 1" }, undefined), /Mcp-Param-Canvas-Id header is required/);
  mismatch(await call("chembl_dataframe_query", { canvas_id: canvas, sql: "SELECT 1" }, id()), /Mcp-Param-Canvas-Id header value .* does not match body value/);
  mismatch(await call("chembl_dataframe_describe", { canvas_id: canvas }, "=?base64?SGVsbG8?="), /malformed/);
  mismatch(await call("chembl_dataframe_describe", { canvas_id: canvas }, "=?base64?SGVs!!!bG8=?="), /malformed/);
  mismatch(await call("chembl_dataframe_describe", { canvas_id: canvas }, `${canvas}é`), /outside visible ASCII/);
  mismatch(await call("chembl_dataframe_describe", { canvas_id: canvas }, [canvas, canvas]), /appears 2 times/);
  // A value that only starts like the Base64 form is a literal: it does not equal the body.
  mismatch(await call("chembl_dataframe_describe", { canvas_id: canvas }, `=?base64?${canvas}`), /does not match/);
});

test("a header with no body value is refused; a null or absent parameter needs no header", async () => {
  mismatch(await call("chembl_get_bioactivities", { target_chembl_id: "CHEMBL235" }, id()), /no body value/);
  // chembl_dataframe_query requires canvas_id: without it (and without the header) the tool answers INVALID_ARGUMENTS.
  const reply = await call("chembl_dataframe_query", { sql: "SELECT 1" }, undefined);
  assert.equal(reply.status, 200);
  assert.match(reply.text, /INVALID_ARGUMENTS/);
});

test("every canvas tool is checked; a tool that declares nothing ignores the header", async () => {
  const canvas = id();
  for (const [name, args] of [
    ["canvas_annotate", { canvas_id: canvas, table: "t", columns: ["qed"] }],
    ["canvas_import", { canvas_id: canvas, smiles_list: ["CCO"] }],
    ["murcko_scaffold", { canvas_id: canvas, table: "t" }],
    ["cluster_molecules", { canvas_id: canvas, table: "t" }],
    ["depict", { canvas_id: canvas, sql: "SELECT 'C' AS smiles" }],
  ] as const) {
    mismatch(await call(name, args, undefined), /Mcp-Param-Canvas-Id header is required/);
  }
  const plain = await call("canonical_smiles", { smiles: "OCC" }, "anything");
  assert.equal(plain.status, 200);
  assert.match(plain.text, /"canonical":"CCO"/);
});

test("legacy requests need no Mcp-Param header, but one they send must name the body's value (400, -32600)", async () => {
  const canvas = id();
  const legacy = (param: string | undefined) => {
    const message = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "chembl_dataframe_describe", arguments: { canvas_id: canvas } } };
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    };
    if (param !== undefined) headers["Mcp-Param-Canvas-Id"] = param;
    return httpSend(http.url, JSON.stringify(message), { headers });
  };
  reachedTool(await legacy(undefined));
  reachedTool(await legacy(canvas));
  // nginx routed this one by the header: running the body's other canvas there would answer for the wrong one.
  const other = await legacy(id());
  assert.equal(other.status, 400, other.text);
  const body = JSON.parse(other.text) as { id: number; error: { code: number; message: string } };
  assert.equal(body.id, 7);
  assert.equal(body.error.code, -32600);
  assert.match(body.error.message, /header mismatch: Mcp-Param-Canvas-Id header value '.*' does not match body value/);
});
