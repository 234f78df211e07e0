/**
 * The written rules that agent hosts and model APIs apply to an MCP tool list, as checks on a tools/list
 * answer. A host turns each tool into a model API's function definition (name, description, input schema);
 * one tool that breaks a rule makes the API refuse the whole request, or the host drop or rewrite the tool.
 * Each rule cites where it is written; each check returns the breaches it finds (none: the tool passes).
 *
 * Sources:
 * - Anthropic Messages API, tool definitions (docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use):
 *   `name` must match ^[a-zA-Z0-9_-]{1,64}$; `input_schema` is a JSON Schema object. Its top level refuses
 *   combinators: "tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top
 *   level" (the API's own error, quoted in anthropics/claude-code#5319 and #5973, mobile-next/mobile-mcp#344,
 *   zereight/gitlab-mcp#551, kenn-io/kata#365).
 * - Claude Code names an MCP tool `mcp__<server>__<tool>` (code.claude.com/docs/en/mcp) and that name is what the
 *   API receives, so it too must fit the 64 characters above.
 * - OpenAI function tools, non-strict (platform.openai.com/docs/guides/function-calling): `name` ^[a-zA-Z0-9_-]{1,64}$;
 *   `parameters` "must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"
 *   (the API's error, quoted in openai/codex#13768).
 * - Gemini function declarations take an OpenAPI 3.0 subset (ai.google.dev/api/caching#Schema: type, format,
 *   title, description, nullable, enum, maxItems, minItems, properties, required, minProperties, maxProperties,
 *   minLength, maxLength, pattern, example, anyOf, propertyOrdering, default, items, minimum, maximum). Hosts
 *   strip the rest (google-gemini/gemini-cli's MCP discovery removes $schema and additionalProperties), and many
 *   host sanitisers also strip anyOf/oneOf/allOf. The checks here
 *   take the strict reading: after stripping everything outside the subset and every combinator, no node may be
 *   left without a `type` (the API answers "parameters.properties[x].type: must be specified"), `type` is one
 *   OpenAPI type (not a list), `enum` only on strings ("enum: only allowed for STRING type"), and `required`
 *   names only properties the node declares ("property is not defined"), never on an empty `properties`.
 */

type Schema = Record<string, unknown>;

export interface WireToolLike {
  name: string;
  description?: string;
  inputSchema: Schema;
  outputSchema?: Schema;
}

/** Keys of the Gemini Schema object (see the module comment), without the combinator anyOf. */
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);
const OPENAPI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

/** Top-level keys a model-facing input schema may carry (issue 30: what every one of the APIs above accepts). */
const ALLOWED_TOP_LEVEL = new Set(["type", "properties", "required", "additionalProperties", "description", "title", "$schema"]);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function isSchema(v: unknown): v is Schema {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Anthropic Messages API: tool name and the top of input_schema. */
function anthropicBreaches(tool: WireToolLike, serverName = "chematic"): string[] {
  const out: string[] = [];
  if (!TOOL_NAME.test(tool.name)) out.push(`name ${JSON.stringify(tool.name)} does not match ^[a-zA-Z0-9_-]{1,64}$`);
  const prefixed = `mcp__${serverName}__${tool.name}`;
  if (prefixed.length > 64) out.push(`Claude Code's name ${prefixed} is ${prefixed.length} characters (at most 64)`);
  const s = tool.inputSchema;
  if (!isSchema(s) || s.type !== "object") out.push("input_schema is not type: object");
  for (const k of ["oneOf", "allOf", "anyOf"]) if (isSchema(s) && k in s) out.push(`input_schema has ${k} at the top level`);
  return out;
}

/** OpenAI function tools (non-strict): name and the top of parameters. */
function openaiBreaches(tool: WireToolLike): string[] {
  const out: string[] = [];
  if (!TOOL_NAME.test(tool.name)) out.push(`name ${JSON.stringify(tool.name)} does not match ^[a-zA-Z0-9_-]{1,64}$`);
  const s = tool.inputSchema;
  if (!isSchema(s) || s.type !== "object") out.push("parameters is not type: object");
  for (const k of ["oneOf", "anyOf", "allOf", "enum", "not"]) if (isSchema(s) && k in s) out.push(`parameters has ${k} at the top level`);
  return out;
}

/** What a strict Gemini-style sanitiser leaves of a schema: only the subset's keys, recursively, no combinators. */
function geminiSanitise(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!GEMINI_KEYS.has(k)) continue;
    if (k === "properties" && isSchema(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, isSchema(p) ? geminiSanitise(p) : p]));
    else if (k === "items" && isSchema(v)) out[k] = geminiSanitise(v);
    else out[k] = v;
  }
  return out;
}

/** The breaches of a sanitised Gemini schema (see the module comment), with the path of each node. */
export function geminiNodeBreaches(node: Schema, path = ""): string[] {
  const out: string[] = [];
  const where = path || "/";
  if (!("type" in node)) out.push(`${where}: no type`);
  else if (typeof node.type !== "string" || !OPENAPI_TYPES.has(node.type)) out.push(`${where}: type ${JSON.stringify(node.type)} is not one OpenAPI type`);
  if ("enum" in node && node.type !== "string") out.push(`${where}: enum on a ${String(node.type)} (only strings take enum)`);
  if (node.type === "array" && !isSchema(node.items)) out.push(`${where}: array without items`);
  const properties = isSchema(node.properties) ? node.properties : undefined;
  if (Array.isArray(node.required)) {
    if (!properties || Object.keys(properties).length === 0) out.push(`${where}: required with no properties`);
    else for (const r of node.required) if (typeof r !== "string" || !(r in properties)) out.push(`${where}: required names ${String(r)}, not a property`);
  }
  if (properties)
    for (const [name, p] of Object.entries(properties))
      out.push(...(isSchema(p) ? geminiNodeBreaches(p, `${path}/${name}`) : [`${path}/${name}: not a schema`]));
  if (isSchema(node.items)) out.push(...geminiNodeBreaches(node.items, `${path}/items`));
  return out;
}

/** A strict Gemini-style host: sanitise the input schema, then check every node. */
function geminiBreaches(tool: WireToolLike): string[] {
  const out: string[] = [];
  if (!/^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/.test(tool.name)) out.push(`name ${JSON.stringify(tool.name)} is not a Gemini function name`);
  return [...out, ...geminiNodeBreaches(geminiSanitise(tool.inputSchema))];
}

/** The issue's own rule for our input schemas: nothing at the top but the allowed keys; every property typed. */
function plainObjectBreaches(tool: WireToolLike): string[] {
  const s = tool.inputSchema;
  const out: string[] = [];
  if (s.type !== "object" || !isSchema(s.properties)) out.push("input schema is not type: object with properties");
  for (const k of Object.keys(s)) if (!ALLOWED_TOP_LEVEL.has(k)) out.push(`input schema has ${k} at the top level`);
  if (isSchema(s.properties)) {
    for (const [name, p] of Object.entries(s.properties)) if (!isSchema(p) || !("type" in p || "enum" in p)) out.push(`property ${name} has no type`);
  }
  // The official SDK's rule for output schemas: an object at the top.
  if (tool.outputSchema !== undefined && tool.outputSchema.type !== "object") out.push("output schema is not type: object at the top");
  return out;
}

/** Every host's breaches of one tool, each prefixed by the host's name. */
export function allBreaches(tool: WireToolLike): string[] {
  return [
    ...plainObjectBreaches(tool).map((b) => `plain: ${b}`),
    ...anthropicBreaches(tool).map((b) => `anthropic: ${b}`),
    ...openaiBreaches(tool).map((b) => `openai: ${b}`),
    ...geminiBreaches(tool).map((b) => `gemini: ${b}`),
  ];
}
