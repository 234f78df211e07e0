/**
 * Tool parameters mirrored into HTTP headers (MCP 2026-07-28, Streamable HTTP, "Custom Headers from Tool
 * Parameters"): a property of a tool's inputSchema annotated `"x-mcp-header": "<Name>"` is sent by a
 * conforming client as the header `Mcp-Param-<Name>`, so a gateway can route on it without reading the body
 * (this server's canvas tools declare canvas_id as Canvas-Id: the replica holding a canvas is named in its ID).
 *
 * The spec's constraints on a declaration, checked here for every registered tool (a tool breaking one would
 * be dropped by conforming clients, so the registry refuses it at start-up):
 *  - the value is a non-empty RFC 9110 token, case-insensitively unique in the schema;
 *  - the property's type is string, integer or boolean;
 *  - the property is reached from the root through `properties` keys only: never under items,
 *    additionalProperties, oneOf/anyOf/allOf/not, if/then/else or $defs (so never through a $ref);
 *  - its own `type` says what it is (a type reached through a $ref would not be seen here).
 */

/** One mirrored parameter: its property path from the root of the arguments, its header name and type. */
export interface MirroredParam {
  /** Property names from the arguments object down to the parameter. */
  path: readonly string[];
  /** The x-mcp-header value: the header is `Mcp-Param-<name>`. */
  name: string;
  type: "string" | "integer" | "boolean";
}

export const MCP_PARAM_PREFIX = "Mcp-Param-";

/** RFC 9110 section 5.1 token (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES: ReadonlySet<string> = new Set(["string", "integer", "boolean"]);
/** Keywords whose subschemas are not statically reachable: an x-mcp-header under any of them is invalid. */
const UNREACHABLE = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
] as const;
/** Of those, the keywords whose value maps names to subschemas. */
const NAMED = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

export class MirroredParamError extends Error {}

/**
 * The mirrored parameters an inputSchema declares, or MirroredParamError naming the first declaration that
 * breaks a constraint (and where it is).
 */
export function mirroredParams(schema: unknown): MirroredParam[] {
  const found: MirroredParam[] = [];
  const seen = new Map<string, string>();
  const where = (path: readonly string[]) => (path.length === 0 ? "the schema root" : path.join("."));
  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    const s = node as Record<string, unknown>;
    if ("x-mcp-header" in s) {
      if (!reachable || path.length === 0) {
        throw new MirroredParamError(`${where(path)}: x-mcp-header is only allowed on a property reached through 'properties' keys alone`);
      }
      const name = s["x-mcp-header"];
      if (typeof name !== "string" || !TOKEN.test(name))
        throw new MirroredParamError(`${where(path)}: x-mcp-header must be an RFC 9110 token, got ${JSON.stringify(name)}`);
      if (typeof s.type !== "string" || !TYPES.has(s.type)) {
        throw new MirroredParamError(`${where(path)}: x-mcp-header needs type string, integer or boolean, got ${JSON.stringify(s.type)}`);
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) throw new MirroredParamError(`${where(path)}: x-mcp-header ${name} repeats ${prior} (names are case-insensitive)`);
      seen.set(name.toLowerCase(), name);
      found.push({ path: [...path], name, type: s.type as MirroredParam["type"] });
    }
    const properties = s.properties;
    if (properties !== null && typeof properties === "object" && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key], reachable);
    }
    for (const keyword of UNREACHABLE) {
      const sub = s[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED.has(keyword) && sub !== null && typeof sub === "object" ? Object.values(sub) : [sub];
      for (const branch of branches) visit(branch, [...path, `<${keyword}>`], false);
    }
  };
  visit(schema, [], true);
  return found;
}

/** The value a mirrored parameter carries in the header, per the spec's type conversion; undefined when absent or null. */
export function headerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}

/** The instance value at a mirrored parameter's path in the arguments (undefined when any step is missing). */
export function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
