/**
 * The input schema a host is shown, derived from the one the server validates with.
 *
 * A tool declares its whole input contract as JSON Schema 2020-12 (the choice between smiles, smiles_list and
 * sdf as a top-level oneOf, "fields only with a list" as dependentSchemas, an ID that is a string or a list as
 * anyOf), and the server validates every call against it (registry.ts). But an agent's host turns tools/list
 * into a model API's function definitions, and those APIs refuse a top-level oneOf/anyOf/allOf/not/enum/if
 * (Anthropic and OpenAI refuse the whole request) or strip what their OpenAPI-3.0 subset lacks and then refuse
 * a node without a type (Gemini). So tools/list carries this projection instead: a plain `type: object` whose
 * every node has one type, the rules it leaves out stated in the descriptions and the server's instructions,
 * and still enforced by the server as INVALID_ARGUMENTS (test/server/host-rules.test.ts holds it to the rules).
 *
 * The projection, node by node:
 * - at the top, only type, properties, required, additionalProperties, description, title and $schema;
 * - a node that is a choice (anyOf/oneOf without a type of its own) shows its first alternative, under the
 *   node's own description, which names the other forms (a tool lists first the form a model should use);
 * - a list of types shows its first non-null type;
 * - enum and const stay on strings only (the allowed numbers are said in the description);
 * - what only validation needs is left out, since every byte here is read by the model on every request: string
 *   lengths and patterns, minItems, uniqueItems, examples (the server still refuses a call that breaks them, naming the
 *   argument and the rule);
 * - a boolean's `default: false` is left out too: an absent flag is off, so it tells the model nothing (a flag
 *   that defaults to true keeps its default).
 */
import type { JsonSchema } from "../contract/tool.js";

/** Keywords the server validates but the model does not need to read (see the module comment). */
const VALIDATION_ONLY_KEYS = new Set(["minLength", "maxLength", "minItems", "pattern", "uniqueItems", "examples"]);

const TOP_LEVEL_KEYS = new Set(["type", "properties", "required", "additionalProperties", "description", "title", "$schema"]);

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The alternative a choice shows: its first that is not null. */
function shownAlternative(alternatives: readonly unknown[]): JsonSchema | undefined {
  return alternatives.filter(isSchema).find((a) => a.type !== "null");
}

/** One node of the projection (see the module comment). */
function projectNode(node: JsonSchema): JsonSchema {
  let source = node;
  if (!("type" in node)) {
    const choice = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    const shown = choice ? shownAlternative(choice) : undefined;
    if (shown) {
      const { anyOf: _a, oneOf: _o, ...rest } = node;
      source = { ...shown, ...rest };
    }
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "type" && Array.isArray(value)) {
      out.type = value.find((t) => t !== "null") ?? value[0];
    } else if (key === "properties" && isSchema(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, p]) => [name, isSchema(p) ? projectNode(p) : p]));
    } else if (key === "items" && isSchema(value)) {
      out.items = projectNode(value);
    } else if (!VALIDATION_ONLY_KEYS.has(key)) {
      out[key] = value;
    }
  }
  if (out.type === "boolean" && out.default === false) delete out.default;
  // Gemini takes enum on strings only, and converters turn const into a one-value enum (@ai-sdk/google does).
  if (out.type !== undefined && out.type !== "string") {
    delete out.enum;
    delete out.const;
  }
  return out;
}

/** The host's form of a tool's declared input schema (see the module comment). */
export function hostInputSchema(declared: JsonSchema): JsonSchema {
  const projected = projectNode(declared);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(projected)) if (TOP_LEVEL_KEYS.has(key)) out[key] = value;
  return out;
}
