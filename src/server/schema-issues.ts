/**
 * The schema issues of a call, in words an agent can act on: ajv's errors against a tool's declared input schema
 * turned into {path, message}. Its own module so that the registry (which validates) and the list runner (which
 * checks each entry as a single call) both use it without importing each other.
 */
import type { ErrorObject } from "ajv/dist/2020.js";

export interface SchemaIssue {
  path: string;
  message: string;
}

/**
 * The schema issues of a call, in words an agent can act on. `schema` and `args` (the declared input schema and
 * the call's arguments) let a failed top-level choice be told as what to send: the host's form of the schema
 * (host-schema.ts) no longer states the choice, so the message must.
 */
export function describeIssues(errors: ErrorObject[] | null | undefined, schema?: JsonSchemaLike, args?: Record<string, unknown>): SchemaIssue[] {
  const all = errors ?? [];
  const choiceFailed = all.some((e) => e.instancePath === "" && (e.schemaPath === "#/oneOf" || e.schemaPath.startsWith("#/oneOf/")));
  // An "if" failure only says that its "then" failed, whose own errors are reported; the choice's and the
  // fields rule's alternatives are told once below, not each.
  const plain = all.filter(
    (e) =>
      e.keyword !== "if" &&
      !(e.instancePath === "" && (e.schemaPath === "#/oneOf" || e.schemaPath.startsWith("#/oneOf/") || e.schemaPath.startsWith("#/dependentSchemas/fields/"))),
  );
  const issues = withoutWrongTypeAlternatives(plain).map(describeIssue);
  // fields without a list (list.ts's dependentSchemas): one issue, not each alternative's "required".
  if (all.some((e) => e.instancePath === "" && e.schemaPath.startsWith("#/dependentSchemas/fields/"))) {
    issues.push({ path: "/fields", message: "goes only with a list: send it with smiles_list or sdf, or leave it out" });
  }
  if (choiceFailed) issues.push(choiceIssue(schema, args ?? {}));
  return issues;
}

/**
 * A value that fails an anyOf (canvas_annotate's column: a kind's name, or an object with its parameters) is told by
 * the alternative of its own type: "must be one of [every kind]", not also "must be object" (the alternative it never
 * meant) and "must match a schema in anyOf". When every alternative failed on its type, all are kept.
 */
function withoutWrongTypeAlternatives(errors: ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  for (const choice of errors.filter((e) => e.keyword === "anyOf")) {
    const prefix = `${choice.schemaPath}/`;
    const alternatives = errors.filter((e) => e.instancePath === choice.instancePath && e.schemaPath.startsWith(prefix));
    const wrongType = alternatives.filter((e) => e.keyword === "type" && /^\d+\/type$/.test(e.schemaPath.slice(prefix.length)));
    if (wrongType.length === alternatives.length) continue;
    for (const e of wrongType) dropped.add(e);
    dropped.add(choice);
  }
  return errors.filter((e) => !dropped.has(e));
}

/** A schema as the registry holds it (plain JSON). */
type JsonSchemaLike = Record<string, unknown>;

/**
 * The issue of a failed top-level oneOf (list.ts: one of smiles, smiles_list or sdf; a tool's own forms such as
 * depict's canvas_id + sql): which forms there are, and what the call sent of them.
 */
function choiceIssue(schema: JsonSchemaLike | undefined, args: Record<string, unknown>): SchemaIssue {
  const forms = (Array.isArray(schema?.oneOf) ? (schema.oneOf as JsonSchemaLike[]) : [])
    .map((f) => (Array.isArray(f.required) ? (f.required as string[]) : []))
    .filter((r) => r.length > 0);
  if (forms.length === 0) return { path: "/", message: "must carry exactly one of the tool's input forms" };
  const name = (form: string[]) => form.join(" with ");
  const list = (names: string[]) => (names.length <= 2 ? names.join(" or ") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`);
  const sent = forms.filter((f) => f.every((k) => args[k] !== undefined));
  if (sent.length > 1) {
    return {
      path: `/${sent[1]![0]!}`,
      message: `is a second input form: send only one of ${list(forms.map(name))} (this call sent ${sent.map(name).join(", ")})`,
    };
  }
  const partial = forms.find((f) => f.some((k) => args[k] !== undefined));
  if (partial) {
    const missing = partial.filter((k) => args[k] === undefined);
    return { path: `/${missing[0]!}`, message: `is required with ${partial.filter((k) => args[k] !== undefined).join(" and ")}` };
  }
  return { path: "/", message: `needs one of ${list(forms.map(name))}` };
}

function describeIssue(e: ErrorObject): SchemaIssue {
  let path = e.instancePath || "/";
  let message = e.message ?? "is invalid";
  if (e.keyword === "additionalProperties") {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    path = `${e.instancePath}/${extra}`;
    message = "is not an allowed property";
  } else if (e.keyword === "required") {
    path = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
    message = "is required";
  } else if (e.keyword === "dependentRequired") {
    const { property, missingProperty } = e.params as { property: string; missingProperty: string };
    path = `${e.instancePath}/${missingProperty}`;
    message = `is required with ${property}`;
  } else if (e.keyword === "enum") {
    message = `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  }
  return { path, message };
}
