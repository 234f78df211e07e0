/**
 * Lists on per-molecule chemistry tools: the one place that knows about `smiles_list` and `fields`.
 *
 * A tool declares `list: { maxItems, budgetMs }` in its own file (ChemTool.list); the registry derives its
 * list input and output schemas from the single ones here (withListSchemas), and the server runs a list
 * call here (runListCall): each entry checked against the single input schema, the entries run in chunks
 * over all workers as one call (WorkerPool.runList), and the answer
 * `{ results: [{index, input, result} | {index, input, error}], summary }` cut to what fits the response
 * limit (summary.next_index says where to continue). A single-molecule call is untouched.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { ToolError, type DomainErrorPayload } from "../domain/errors.js";
import { entryErrorSchema, type AnyTool, type ChemTool, type JsonSchema, type ProgressReporter } from "../contract/tool.js";
import { MAX_ARRAY_LENGTH, MAX_RESPONSE_BYTES, MAX_STRING_BYTES, MAX_TOOL_BUDGET_MS } from "../contract/limits.js";
import { inputFormatOf, molblockTitle, splitSdf } from "../domain/chem/input-format.js";
import type { ListOutcome, WorkerPool } from "./pool.js";
import { describeIssues } from "./schema-issues.js";

/**
 * Bytes kept free in a list answer for the JSON-RPC envelope, the era's wrapping and the summary: the
 * results are counted twice (structuredContent, and the text block that holds the same JSON escaped).
 */
const LIST_ENVELOPE_RESERVE = 16 * 1024;

const ERROR_SCHEMA = entryErrorSchema("Why this entry has no result (as a single call would answer).");

function asSchema(value: unknown): JsonSchema | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonSchema) : undefined;
}

/**
 * A set tool without a per-molecule list (pick_diverse, matched_pairs...) whose canvas form answers another shape:
 * its output schema becomes either answer (a tool that declares both itself is kept as it is).
 */
function withMainFormOutput(tool: Extract<AnyTool, { kind: "chem" }>): AnyTool {
  if (!tool.mainForm || Array.isArray(tool.outputSchema.anyOf)) return tool;
  const derived: AnyTool = { ...tool, outputSchema: { type: "object", anyOf: [tool.outputSchema, tool.mainForm.outputSchema] } };
  derivedTools.add(derived);
  return derived;
}

/** Tools withListSchemas made, so that registering one again (a registry built from another's tools) keeps it as it is. */
const derivedTools = new WeakSet<AnyTool>();

/** The tool with its list input and output schemas, when it declares a list; any other tool unchanged. */
export function withListSchemas(tool: AnyTool): AnyTool {
  if (tool.kind !== "chem" || derivedTools.has(tool)) return tool;
  if (!tool.list) return tool.mainForm ? withMainFormOutput(tool) : tool;
  const { maxItems, budgetMs } = tool.list;
  if (maxItems < 1 || maxItems > MAX_ARRAY_LENGTH) throw new Error(`tool ${tool.name}: list.maxItems out of range`);
  if (budgetMs <= 0 || budgetMs > MAX_TOOL_BUDGET_MS) throw new Error(`tool ${tool.name}: list.budgetMs out of range`);
  const input = tool.inputSchema;
  const properties = asSchema(input.properties) ?? {};
  const required = Array.isArray(input.required) ? (input.required as string[]) : [];
  if (!asSchema(properties.smiles) || !required.includes("smiles")) throw new Error(`tool ${tool.name}: a list needs a required smiles argument`);
  if ("smiles_list" in properties || "sdf" in properties || "fields" in properties || "echo_input" in properties) {
    throw new Error(`tool ${tool.name}: smiles_list, sdf, fields and echo_input are the list's own arguments`);
  }
  const output = tool.outputSchema;
  const resultKeys = Object.keys(asSchema(output.properties) ?? {});
  const rest = required.filter((r) => r !== "smiles");
  const inputSchema: JsonSchema = {
    ...input,
    properties: {
      ...properties,
      smiles_list: {
        type: "array",
        minItems: 1,
        maxItems,
        items: { type: "string" },
        description: "Or a list.",
      },
      sdf: {
        type: "string",
        minLength: 1,
        maxLength: MAX_STRING_BYTES,
        description: "Or SDF text.",
      },
      fields: {
        type: "array",
        minItems: 1,
        uniqueItems: true,
        items: { type: "string", enum: resultKeys },
        description: "Keys to keep.",
      },
      echo_input: { type: "boolean", description: "Repeat entries." },
    },
    // A tool with a canvas form (ChemTool.mainForm) takes canvas_id in place of a molecule or a list.
    oneOf: [
      { required: ["smiles"] },
      { required: ["smiles_list"] },
      { required: ["sdf"] },
      ...("canvas_id" in properties ? [{ required: ["canvas_id"] }] : []),
    ],
    dependentSchemas: {
      fields: { anyOf: [{ required: ["smiles_list"] }, { required: ["sdf"] }] },
      echo_input: { anyOf: [{ required: ["smiles_list"] }, { required: ["sdf"] }] },
    },
  };
  if (rest.length > 0) inputSchema.required = rest;
  else delete inputSchema.required;
  // The result's schema once, under $defs (a list answer's items reuse it without `required`, since fields
  // may leave keys out): tools/list would otherwise carry every per-molecule result schema twice.
  const { required: resultRequired, description: resultDescription, ...resultSchema } = output;
  const listOutput: JsonSchema = {
    type: "object",
    description: "The answer for smiles_list or sdf.",
    properties: {
      results: {
        type: "array",
        items: {
          type: "object",
          properties: {
            index: { type: "integer", minimum: 0 },
            input: {
              type: "string",
              description: "With echo_input: the entry as sent (a molblock entry by its title); for sdf always the record's title, or 'sdf record N' (from 1).",
            },
            properties: {
              type: "object",
              additionalProperties: { type: "string" },
              description: "With echo_input: an sdf record's data items, tag to value.",
            },
            result: { $ref: "#/$defs/result", description: "As for one molecule (only the fields keys when given)." },
            error: ERROR_SCHEMA,
          },
          required: ["index"],
          additionalProperties: false,
        },
      },
      summary: {
        type: "object",
        properties: {
          count: { type: "integer", minimum: 0, description: "Entries sent." },
          succeeded: { type: "integer", minimum: 0 },
          failed: { type: "integer", minimum: 0 },
          returned: { type: "integer", minimum: 0, description: "Entries in results, when not all fit." },
          next_index: { type: "integer", minimum: 0, description: "When not all fit: send the entries from this index on again." },
        },
        required: ["count", "succeeded", "failed"],
        additionalProperties: false,
      },
      note: { type: "string", description: "Why entries were left out, and how to get them." },
      ...(tool.list.summary ? { [tool.list.summary.key]: tool.list.summary.schema } : {}),
    },
    required: ["results", "summary"],
    additionalProperties: false,
  };
  const single: JsonSchema = { $ref: "#/$defs/result" };
  if (resultDescription !== undefined) single.description = resultDescription;
  if (resultRequired !== undefined) single.required = resultRequired;
  const outputSchema: JsonSchema = {
    type: "object",
    $defs: { result: resultSchema },
    anyOf: [single, listOutput, ...(tool.mainForm ? [tool.mainForm.outputSchema] : [])],
  };
  const derived: AnyTool = { ...tool, inputSchema, outputSchema };
  derivedTools.add(derived);
  return derived;
}

/** Whether a call's arguments ask for the list form. */
export function isListCall(tool: AnyTool, args: Record<string, unknown>): tool is ChemTool & { list: NonNullable<ChemTool["list"]> } {
  return tool.kind === "chem" && tool.list !== undefined && (Array.isArray(args.smiles_list) || typeof args.sdf === "string");
}

export interface ListCallContext {
  pool: WorkerPool;
  /** The tool's input validator (an entry is checked as the single call with it would be). */
  validateInput: ValidateFunction;
  signal: AbortSignal;
  progress: ProgressReporter;
}

function invalidEntry(tool: string, validate: ValidateFunction): DomainErrorPayload {
  const issues = describeIssues(validate.errors).slice(0, 5);
  const first = issues[0] ?? { path: "/", message: "is invalid" };
  const path = first.path === "/smiles" ? "entry" : first.path;
  return new ToolError("INVALID_ARGUMENTS", `Invalid arguments for ${tool}: ${path} ${first.message}`, { path: first.path, issues }).toPayload();
}

/** Runs a list call and answers `{ results, summary }` (see the module comment). */
export async function runListCall(
  tool: ChemTool & { list: NonNullable<ChemTool["list"]> },
  args: Record<string, unknown>,
  ctx: ListCallContext,
): Promise<Record<string, unknown>> {
  const { smiles_list: rawList, sdf, fields, echo_input: echo, ...shared } = args;
  const source = typeof sdf === "string" ? sdfEntries(sdf, tool.list.maxItems) : { list: rawList as string[] };
  const list = source.list;
  const outcomes: (ListOutcome | undefined)[] = new Array<ListOutcome | undefined>(list.length).fill(undefined);
  const toRun: Record<string, unknown>[] = [];
  const positions: number[] = [];
  list.forEach((smiles, index) => {
    const problem = source.problems?.[index];
    if (problem !== undefined) {
      outcomes[index] = { ok: false, error: new ToolError("INVALID_SMILES", `Invalid SDF record ${index + 1}: ${problem}`, { record: index + 1 }).toPayload() };
      return;
    }
    const entry = { ...shared, smiles };
    if (ctx.validateInput(entry)) {
      toRun.push(entry);
      positions.push(index);
    } else outcomes[index] = { ok: false, error: invalidEntry(tool.name, ctx.validateInput) };
  });
  if (toRun.length > 0) {
    const ran = await ctx.pool.runList(tool.name, toRun, {
      budgetMs: tool.list.budgetMs,
      signal: ctx.signal,
      onChunk: (done, total) => ctx.progress(done, total, `${done} of ${total} entries done`),
    });
    ran.forEach((outcome, k) => (outcomes[positions[k] as number] = outcome));
  }
  const fieldList = Array.isArray(fields) ? (fields as string[]) : undefined;
  const summary = tool.list.summary;
  const extra = summary
    ? summary.build(
        (outcomes as ListOutcome[]).map((o) => (o.ok ? o.value : undefined)),
        shared,
      )
    : undefined;
  // Whole, with no limit of its own: the server stages or cuts an answer past what a host takes (answer-cap.ts).
  // The caller holds its own list, so entries are repeated only when asked; an sdf record keeps its title, its
  // data items only when asked.
  const options: ListAnswerOptions = { echo: echo === true, limit: Number.POSITIVE_INFINITY };
  const answer = source.labels
    ? listAnswer(source.labels, outcomes as ListOutcome[], fieldList, { ...options, sdf: { properties: source.properties } })
    : listAnswer(list.map(entryLabel), outcomes as ListOutcome[], fieldList, options);
  if (summary && extra !== undefined) answer[summary.key] = extra;
  return answer;
}

/**
 * A smiles_list entry as its item's `input`: a SMILES or CXSMILES as sent; a molblock (kilobytes of atom lines)
 * by its title, or "molblock", and its line count, so an answer does not carry every block back.
 */
function entryLabel(entry: string): string {
  if (inputFormatOf(entry) !== "molblock") return entry;
  const title = molblockTitle(entry);
  return title !== "" ? `molblock: ${title}` : "molblock (no title)";
}

interface ListSource {
  /** What each entry runs with (a molblock for an sdf record). */
  list: string[];
  /** For sdf: each entry's `input` (its title, or "sdf record N"). */
  labels?: string[];
  /** For sdf: each record's data items, when it has any. */
  properties?: (Record<string, string> | undefined)[];
  /** For sdf: why a record is not a molecule, by index. */
  problems?: (string | undefined)[];
}

/** The entries of an sdf argument: one a record (see splitSdf). More records than the tool's maxItems is an INVALID_ARGUMENTS. */
function sdfEntries(sdf: string, maxItems: number): ListSource {
  const records = splitSdf(sdf);
  if (records.length === 0) throw new ToolError("INVALID_ARGUMENTS", "Invalid arguments: sdf holds no record", { path: "/sdf" });
  if (records.length > maxItems) {
    throw new ToolError("INVALID_ARGUMENTS", `Invalid arguments: sdf holds ${records.length} records; this tool takes at most ${maxItems} a call`, {
      path: "/sdf",
      records: records.length,
      max_items: maxItems,
    });
  }
  return {
    list: records.map((r) => r.molblock ?? ""),
    labels: records.map((r, i) => (r.title !== "" ? r.title : `sdf record ${i + 1}`)),
    properties: records.map((r) => r.properties),
    problems: records.map((r) => r.problem),
  };
}

function pick(value: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields || value === null || typeof value !== "object") return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of fields) if (key in source) out[key] = source[key];
  return out;
}

export interface ListAnswerOptions {
  /** Repeat each entry as `input` (and an sdf record's data items as `properties`); an sdf record's title is always given. */
  echo?: boolean;
  /** Bytes the whole answer may take, both surfaces counted (default MAX_RESPONSE_BYTES). */
  limit?: number;
  sdf?: { properties?: readonly (Record<string, string> | undefined)[] };
}

/**
 * The list answer: every entry in order, until the next one would take the whole message past `limit`;
 * then summary.returned and next_index, and a note saying so.
 */
export function listAnswer(
  list: readonly string[],
  outcomes: readonly ListOutcome[],
  fields?: readonly string[],
  options: ListAnswerOptions = {},
): Record<string, unknown> {
  const limit = options.limit ?? MAX_RESPONSE_BYTES;
  const sdf = options.sdf;
  let succeeded = 0;
  for (const outcome of outcomes) if (outcome.ok) succeeded++;
  const results: Record<string, unknown>[] = [];
  let used = LIST_ENVELOPE_RESERVE;
  for (let index = 0; index < outcomes.length; index++) {
    const outcome = outcomes[index] as ListOutcome;
    const head: Record<string, unknown> = { index };
    if (options.echo || sdf) head.input = list[index];
    const properties = options.echo ? sdf?.properties?.[index] : undefined;
    if (properties) head.properties = properties;
    const item: Record<string, unknown> = outcome.ok ? { ...head, result: pick(outcome.value, fields) } : { ...head, error: outcome.error };
    const json = JSON.stringify(item);
    // Once as structuredContent, once escaped inside the text block; a comma each.
    const cost = Buffer.byteLength(json, "utf8") + Buffer.byteLength(JSON.stringify(json), "utf8") + 2;
    if (used + cost > limit) break;
    used += cost;
    results.push(item);
  }
  const summary: Record<string, unknown> = { count: list.length, succeeded, failed: list.length - succeeded };
  const answer: Record<string, unknown> = { results, summary };
  if (results.length < list.length) {
    summary.returned = results.length;
    summary.next_index = results.length;
    answer.note =
      `Entries from index ${results.length} on (${list.length - results.length} of ${list.length}) were computed but not returned: the answer would pass ` +
      `the ${limit} byte response limit. ` +
      (sdf
        ? `Send the SDF records from record ${results.length + 1} on (index ${results.length}) to get them, or fewer keys with fields.`
        : `Send smiles_list from entry ${results.length} on to get them, or fewer keys with fields.`);
  }
  return answer;
}
