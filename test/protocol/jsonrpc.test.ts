import { test } from "node:test";
import assert from "node:assert/strict";
import {
  INVALID_REQUEST,
  PARSE_ERROR,
  decodeFrame,
  findSizeViolation,
  jsonDepthExceeds,
  scanTopLevelId,
  serializeResponse,
  success,
} from "../../src/protocol/jsonrpc.js";
import { MAX_REQUEST_BYTES, MAX_STRING_BYTES } from "../../src/contract/limits.js";

const enc = (s: string) => Buffer.from(s, "utf8");

function errorOf(text: string | Buffer) {
  const d = decodeFrame(typeof text === "string" ? enc(text) : text);
  assert.equal(d.kind, "error", `expected an error for ${String(text).slice(0, 60)}`);
  return d.kind === "error" ? d.response : assert.fail();
}

test("a valid request and a notification decode", () => {
  const r = decodeFrame(enc('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}'));
  assert.equal(r.kind, "request");
  const n = decodeFrame(enc('{"jsonrpc":"2.0","method":"notifications/initialized"}'));
  assert.equal(n.kind, "notification");
  const resp = decodeFrame(enc('{"jsonrpc":"2.0","id":1,"result":{}}'));
  assert.equal(resp.kind, "response");
});

test("malformed JSON is -32700 with id null", () => {
  const e = errorOf('{"jsonrpc":"2.0","id":1,');
  assert.equal(e.error.code, PARSE_ERROR);
  assert.equal(e.id, null);
});

test("invalid UTF-8 is -32700", () => {
  const bad = Buffer.concat([enc('{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"'), Buffer.from([0xff, 0xfe]), enc('"}}')]);
  assert.equal(errorOf(bad).error.code, PARSE_ERROR);
});

test("a frame over 1 MiB is -32600 with id null", () => {
  const big = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"${"a".repeat(MAX_REQUEST_BYTES)}"}}`;
  const e = errorOf(big);
  assert.equal(e.error.code, INVALID_REQUEST);
  assert.equal(e.id, null);
});

test("nesting deeper than 64 is -32600; 64 is fine", () => {
  const nest = (n: number) => `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${"[".repeat(n)}${"]".repeat(n)}}}`;
  assert.equal(decodeFrame(enc(nest(62))).kind, "request"); // 62 + the two enclosing objects = 64
  assert.equal(errorOf(nest(63)).error.code, INVALID_REQUEST);
  assert.equal(jsonDepthExceeds('{"a":"[[[[[[[[[[[["}', 2), false, "brackets inside strings do not count");
});

test("an array over 10,000 items or a string over 256 KiB is -32600, keeping the id", () => {
  const arr = `{"jsonrpc":"2.0","id":"a","method":"x","params":{"a":[${Array(10_001).fill(0).join(",")}]}}`;
  const e = errorOf(arr);
  assert.equal(e.error.code, INVALID_REQUEST);
  assert.equal(e.id, "a");
  const ok = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[${Array(10_000).fill(0).join(",")}]}}`;
  assert.equal(decodeFrame(enc(ok)).kind, "request");
  const str = `{"jsonrpc":"2.0","id":2,"method":"x","params":{"s":"${"é".repeat(MAX_STRING_BYTES / 2 + 1)}"}}`;
  assert.equal(errorOf(str).error.code, INVALID_REQUEST);
  assert.equal(findSizeViolation({ k: "x".repeat(MAX_STRING_BYTES) }), null, "exactly the limit is allowed");
});

test("a size refusal points to canvas_import only for a tool call's molecule argument, and never echoes a long key", () => {
  const big = "C".repeat(MAX_STRING_BYTES + 1);
  const call = findSizeViolation({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "calc_properties", arguments: { sdf: big } } })!;
  assert.match(call, /at params\.arguments\.sdf: too large to send inline.*canvas_import \{ path \}/);
  const other = findSizeViolation({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "x", arguments: { sdf: big } } })!;
  assert.equal(other, `string longer than ${MAX_STRING_BYTES} bytes at params.arguments.sdf`, "no tool, no canvas_import");
  const longKey = "k".repeat(100_000);
  const keyed = findSizeViolation({ jsonrpc: "2.0", id: 1, method: "x", params: { [longKey]: big } })!;
  assert.ok(keyed.length < 300, `the key is clipped in the message (${keyed.length} characters)`);
  assert.match(keyed, /at params\.k{64}\.\.\.$/);
});

test("envelope errors: batch, non-object, bad jsonrpc, missing method, null id, params not an object", () => {
  assert.equal(errorOf('[{"jsonrpc":"2.0","id":1,"method":"x"}]').error.code, INVALID_REQUEST);
  assert.equal(errorOf("42").error.code, INVALID_REQUEST);
  assert.equal(errorOf('{"jsonrpc":"1.0","id":1,"method":"x"}').id, 1);
  assert.equal(errorOf('{"jsonrpc":"2.0","id":1}').error.message, "Invalid request: missing method");
  assert.equal(errorOf('{"jsonrpc":"2.0","id":null,"method":"x"}').error.code, INVALID_REQUEST);
  assert.equal(errorOf('{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}').error.code, INVALID_REQUEST);
});

test("scanTopLevelId reads the top-level id on the raw text: strings, big integers, the last one, not nested ones", () => {
  assert.deepEqual(scanTopLevelId('{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"}'), { value: 12345678901234567000, raw: "12345678901234567890" });
  assert.deepEqual(scanTopLevelId('{"params":{"id":1},"id":"a\\"b"}'), { value: 'a"b', raw: '"a\\"b"' });
  assert.deepEqual(scanTopLevelId('{"id":1,"id":2}'), { value: 2, raw: "2" });
  assert.equal(scanTopLevelId('{"params":{"id":1}}'), undefined);
  assert.equal(scanTopLevelId('[{"id":1}]'), undefined);
  assert.equal(scanTopLevelId('{"x":"id","y":["id",{"id":3}]}'), undefined);
});

test("an integer id past 2^53 is echoed as its own characters", () => {
  const d = decodeFrame(enc('{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/list"}'));
  assert.equal(d.kind, "request");
  const message = d.kind === "request" ? d.message : assert.fail();
  assert.equal(message.rawId, "12345678901234567890");
  assert.equal(serializeResponse(success(message.id, {}), message.rawId), '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
  // A safe integer needs no raw text.
  const small = decodeFrame(enc('{"jsonrpc":"2.0","id":42,"method":"tools/list"}'));
  assert.equal(small.kind === "request" ? small.message.rawId : "x", undefined);
});

test("an over-deep request whose top-level id is readable is answered with that id", () => {
  const deep = `{"jsonrpc":"2.0","id":"deep-1","method":"tools/call","params":{"x":${"[".repeat(100)}${"]".repeat(100)}}}`;
  const e = errorOf(deep);
  assert.equal(e.error.code, INVALID_REQUEST);
  assert.equal(e.id, "deep-1");
  const big = decodeFrame(enc(`{"id":98765432109876543210,"jsonrpc":"2.0","method":"x","params":{"x":${"[".repeat(100)}${"]".repeat(100)}}}`));
  assert.equal(big.kind, "error");
  if (big.kind === "error") assert.match(serializeResponse(big.response, big.rawId), /"id":98765432109876543210,/);
});
