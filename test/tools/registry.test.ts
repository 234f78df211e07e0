/**
 * Every tool's metadata and schemas, checked with a real JSON Schema 2020-12 validator (ajv's 2020
 * meta-schema), plus the project's own rules: bounded strings and arrays, descriptions everywhere,
 * closed objects, annotations, declared error codes from the one vocabulary.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { allTools } from "../../src/tools/index.js";
import { ToolRegistry, createAjv } from "../../src/server/registry.js";
import { mirroredParams } from "../../src/server/mirrored-params.js";
import { ERROR_CODES, ERROR_HINTS, isErrorCode } from "../../src/domain/errors.js";
import { MAX_TOOL_BUDGET_MS } from "../../src/contract/limits.js";
import type { JsonSchema } from "../../src/contract/tool.js";
import { MODERN_VERSION } from "../../src/protocol/eras.js";

const tools = allTools({ CHEMATIC_TEST_TOOLS: "1" });

function walk(schema: JsonSchema, path: string, visit: (s: JsonSchema, path: string) => void): void {
  visit(schema, path);
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value && typeof value === "object") {
      for (const [name, sub] of Object.entries(value as Record<string, JsonSchema>)) walk(sub, `${path}/properties/${name}`, visit);
    } else if ((key === "items" || key === "additionalProperties" || key === "not") && value && typeof value === "object") {
      walk(value as JsonSchema, `${path}/${key}`, visit);
    } else if ((key === "anyOf" || key === "oneOf" || key === "allOf" || key === "prefixItems") && Array.isArray(value)) {
      value.forEach((sub, i) => walk(sub as JsonSchema, `${path}/${key}/${i}`, visit));
    } else if ((key === "$defs" || key === "definitions") && value && typeof value === "object") {
      for (const [name, sub] of Object.entries(value as Record<string, JsonSchema>)) walk(sub, `${path}/${key}/${name}`, visit);
    }
  }
}

test("tool names are unique snake_case; every tool has a title, a description and annotations", () => {
  const names = tools.map((t) => t.name);
  assert.equal(new Set(names).size, names.length);
  for (const t of tools) {
    assert.match(t.name, /^[a-z][a-z0-9_]{0,63}$/);
    assert.ok(t.title.length > 0 && t.title.length <= 64, t.name);
    assert.ok(t.description.length >= 60, `${t.name}: a description written for an agent`);
    for (const hint of ["readOnlyHint", "idempotentHint", "openWorldHint"] as const) assert.equal(typeof t.annotations[hint], "boolean", `${t.name}.${hint}`);
    assert.ok(t.budgetMs > 0 && t.budgetMs <= MAX_TOOL_BUDGET_MS, `${t.name}: budget within 55 s`);
    for (const code of t.errors) assert.ok(isErrorCode(code), `${t.name}: ${code} is in the vocabulary`);
  }
});

test("every input and output schema is valid JSON Schema 2020-12 and compiles in strict mode", () => {
  const ajv = createAjv();
  for (const t of tools) {
    for (const [which, schema] of [
      ["inputSchema", t.inputSchema],
      ["outputSchema", t.outputSchema],
    ] as const) {
      assert.equal(ajv.validateSchema(schema), true, `${t.name}.${which}: ${ajv.errorsText(ajv.errors)}`);
      assert.doesNotThrow(() => ajv.compile(schema), `${t.name}.${which} compiles`);
      assert.equal(schema.type, "object", `${t.name}.${which} is an object schema`);
      assert.ok(!JSON.stringify(schema).includes('"$ref"'), `${t.name}.${which}: no $ref at all`);
    }
  }
});

test("input schemas are closed, bounded and described", () => {
  for (const t of tools) {
    assert.equal(t.inputSchema.additionalProperties, false, `${t.name}: additionalProperties false`);
    walk(t.inputSchema, t.name, (s, path) => {
      if (path !== t.name && !/\/(anyOf|oneOf|allOf|items)(\/\d+)?$/.test(path)) assert.equal(typeof s.description, "string", `${path} has a description`);
      if (s.type === "string" && s.enum === undefined && s.const === undefined) assert.equal(typeof s.maxLength, "number", `${path} bounds its length`);
      if (s.type === "array") assert.equal(typeof s.maxItems, "number", `${path} bounds its items`);
      // An object node that declares properties is closed; one without (a MolJSON atom, checked by the domain) is a typed placeholder.
      if (s.type === "object" && path !== t.name && s.properties !== undefined) assert.equal(s.additionalProperties, false, `${path} is closed`);
    });
  }
});

test("SMILES arguments are named smiles or smiles_list", () => {
  for (const t of tools) {
    for (const name of Object.keys(t.inputSchema.properties ?? {})) {
      // smiles_column names a canvas column holding SMILES (canvas tools, and tools with a canvas form), not a molecule.
      const canvasForm = t.toolset === "canvas" || "canvas_id" in ((t.inputSchema.properties ?? {}) as Record<string, unknown>);
      if (/smiles/i.test(name))
        assert.ok(["smiles", "smiles_list"].includes(name) || /^smiles\d$/.test(name) || (canvasForm && name === "smiles_column"), `${t.name}.${name}`);
    }
  }
});

test("every error code has a recovery hint", () => {
  for (const code of ERROR_CODES) assert.ok(ERROR_HINTS[code].length > 20, code);
});

test("every tool taking canvas_id declares it x-mcp-header Canvas-Id on a top-level string property, and nothing else is mirrored", () => {
  // The wire form (list schemas included), as tools/list sends it: what a conforming client scans.
  const registry = new ToolRegistry(allTools({ CHEMATIC_TEST_TOOLS: "1" }, { dataframeDrop: true }));
  let canvasTools = 0;
  for (const t of registry.wire(MODERN_VERSION)) {
    const declared = mirroredParams(t.inputSchema); // throws on a declaration the spec makes invalid
    const properties = (t.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    if ("canvas_id" in properties) {
      canvasTools++;
      assert.equal(properties.canvas_id.type, "string", `${t.name}.canvas_id is a string`);
      assert.deepEqual(declared, [{ path: ["canvas_id"], name: "Canvas-Id", type: "string" }], t.name);
      assert.deepEqual(registry.mirroredParams(t.name), declared);
    } else {
      assert.deepEqual(declared, [], `${t.name} mirrors nothing`);
    }
    // canvas_id is never declared anywhere but at the top (under oneOf, items, ...), where no header could carry it.
    walk(t.inputSchema, "", (s, path) => {
      const props = s.properties as Record<string, unknown> | undefined;
      if (props && "canvas_id" in props) assert.equal(path, "", `${t.name}: canvas_id declared at ${path}`);
    });
  }
  assert.ok(canvasTools >= 9, `the canvas tools are there (${canvasTools})`);
});
