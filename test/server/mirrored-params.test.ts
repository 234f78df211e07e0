/**
 * The x-mcp-header declarations of an inputSchema, with the constraints of MCP 2026-07-28 (Streamable HTTP,
 * "Schema Extension"): a declaration anywhere but on a property reached through `properties` alone, on a
 * type other than string, integer or boolean, with a name that is not an RFC 9110 token, or repeating
 * another name case-insensitively makes the tool invalid (a conforming client drops it), so the registry
 * refuses such a tool at start-up.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MirroredParamError, headerText, mirroredParams, valueAt } from "../../src/server/mirrored-params.js";
import { ToolRegistry } from "../../src/server/registry.js";
import { allTools } from "../../src/tools/index.js";

const str = (name: string) => ({ type: "string", "x-mcp-header": name });

test("declarations reached through properties only, nested objects included", () => {
  assert.deepEqual(mirroredParams({ type: "object", properties: { a: str("A"), b: { type: "string" } } }), [{ path: ["a"], name: "A", type: "string" }]);
  assert.deepEqual(
    mirroredParams({
      type: "object",
      properties: { outer: { type: "object", properties: { n: { type: "integer", "x-mcp-header": "N" }, f: { type: "boolean", "x-mcp-header": "F" } } } },
    }),
    [
      { path: ["outer", "n"], name: "N", type: "integer" },
      { path: ["outer", "f"], name: "F", type: "boolean" },
    ],
  );
  assert.deepEqual(mirroredParams({ type: "object" }), []);
});

test("a declaration under oneOf, anyOf, allOf, not, if/then/else, items, additionalProperties or $defs is refused", () => {
  const placements: Array<[string, unknown]> = [
    ["oneOf", { type: "object", oneOf: [{ properties: { a: str("A") } }] }],
    ["anyOf", { type: "object", anyOf: [{ properties: { a: str("A") } }] }],
    ["allOf", { type: "object", allOf: [{ properties: { a: str("A") } }] }],
    ["not", { type: "object", not: { properties: { a: str("A") } } }],
    ["if", { type: "object", if: { properties: { a: str("A") } } }],
    ["then", { type: "object", then: { properties: { a: str("A") } } }],
    ["else", { type: "object", else: { properties: { a: str("A") } } }],
    ["items", { type: "object", properties: { list: { type: "array", items: str("A") } } }],
    ["additionalProperties", { type: "object", additionalProperties: str("A") }],
    ["$defs", { type: "object", $defs: { x: str("A") }, properties: { a: { $ref: "#/$defs/x" } } }],
    ["root", { type: "object", "x-mcp-header": "A" }],
  ];
  for (const [where, schema] of placements) assert.throws(() => mirroredParams(schema), MirroredParamError, where);
});

test("types, names and uniqueness", () => {
  assert.throws(() => mirroredParams({ type: "object", properties: { a: { type: "number", "x-mcp-header": "A" } } }), /type string, integer or boolean/);
  assert.throws(() => mirroredParams({ type: "object", properties: { a: { type: "object", "x-mcp-header": "A" } } }), MirroredParamError);
  assert.throws(() => mirroredParams({ type: "object", properties: { a: { "x-mcp-header": "A" } } }), MirroredParamError, "no type");
  for (const name of ["", "Canvas Id", "Canvas:Id", "Ca\r\nnvas", 5]) {
    assert.throws(() => mirroredParams({ type: "object", properties: { a: { type: "string", "x-mcp-header": name } } }), /RFC 9110 token/, String(name));
  }
  assert.throws(() => mirroredParams({ type: "object", properties: { a: str("Canvas-Id"), b: str("canvas-id") } }), /case-insensitive/);
});

test("the registry refuses a tool whose declaration is invalid, naming it", () => {
  const [base] = allTools({});
  const bad = { ...base!, name: "bad_header_tool", inputSchema: { type: "object", oneOf: [{ properties: { a: str("A") } }] } };
  assert.throws(() => new ToolRegistry([bad]), /tool bad_header_tool: .*x-mcp-header/);
});

test("header text of a body value, and the value at a path", () => {
  assert.equal(headerText("cv_r1_x"), "cv_r1_x");
  assert.equal(headerText(42), "42");
  assert.equal(headerText(true), "true");
  assert.equal(headerText(null), undefined);
  assert.equal(headerText(undefined), undefined);
  assert.equal(valueAt({ a: { b: 1 } }, ["a", "b"]), 1);
  assert.equal(valueAt({ a: 1 }, ["a", "b"]), undefined);
  assert.equal(valueAt(null, ["a"]), undefined);
});
