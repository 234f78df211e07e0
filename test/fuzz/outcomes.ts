/**
 * What every chemistry call must end in, whatever its input: a result that matches the tool's
 * outputSchema (after a JSON round trip, so NaN or Infinity would be caught), or a typed ToolError whose
 * code the tool declares. Anything else (an unexpected exception, an undeclared code, a result that
 * breaks the schema) is a bug the fuzz tests report with the input that caused it.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { ValidateFunction } from "ajv";
import { ToolError } from "../../src/domain/errors.js";
import { InternalToolError, type WorkerPool } from "../../src/server/pool.js";
import { createAjv } from "../../src/server/registry.js";
import { splitExtraContent } from "../../src/server/shape.js";
import type { AnyTool, ChemTool, JsonSchema } from "../../src/contract/tool.js";
import { SMILES_SEEDS, mutate } from "./arbitraries.js";

/** Codes any call may answer (types.ts): INVALID_ARGUMENTS, TIMEOUT, BUSY. */
const UNIVERSAL_CODES = ["INVALID_ARGUMENTS", "TIMEOUT", "BUSY"];

const ajv = createAjv();
const validators = new Map<string, { input: ValidateFunction; output: ValidateFunction }>();

export function validatorsOf(tool: AnyTool): { input: ValidateFunction; output: ValidateFunction } {
  let v = validators.get(tool.name);
  if (!v) validators.set(tool.name, (v = { input: ajv.compile(tool.inputSchema), output: ajv.compile(tool.outputSchema) }));
  return v;
}

/** Arguments putting `smiles` in every SMILES slot of the tool's schema (other properties: defaults). */
export function smilesArgs(tool: ChemTool, smiles: string): Record<string, unknown> | undefined {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (tool.inputSchema.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(props)) {
    if (!/smiles/i.test(name) || (!required.includes(name) && required.some((r) => /smiles/i.test(r)))) continue;
    if (schema.type === "string") args[name] = smiles;
    else if (schema.type === "array") args[name] = Array.from({ length: Math.max(2, Number(schema.minItems ?? 1)) }, (_, i) => (i === 0 ? smiles : "CCO"));
  }
  for (const name of required) if (!(name in args) && /smarts/i.test(name)) args[name] = "[#6]~[#6]";
  if (Object.keys(args).length === 0) return undefined;
  return validatorsOf(tool).input(args) ? args : undefined;
}

export type Outcome = { ok: true } | { ok: false; code: string; reason?: unknown };

/**
 * Runs one call through the pool and checks its outcome. `budgetMs` caps the tool's own budget so a
 * pathological input ends in TIMEOUT (an allowed answer) instead of holding the test for 45 s.
 */
export async function checkedRun(pool: WorkerPool, tool: ChemTool, args: Record<string, unknown>, budgetMs: number): Promise<Outcome> {
  let raw: unknown;
  try {
    raw = await pool.run(tool.name, args, { budgetMs: Math.min(tool.budgetMs, budgetMs) });
  } catch (e) {
    if (e instanceof InternalToolError) assert.fail(`${tool.name} threw an unexpected exception for ${preview(args)}: ${e.detail.slice(0, 1500)}`);
    if (!(e instanceof ToolError)) throw e;
    // A WASM trap (the engine's stack exhausted) is answered MOLECULE_TOO_LARGE by the worker for any tool.
    const trap = e.code === "MOLECULE_TOO_LARGE" && e.details?.reason === "engine_stack_exhausted";
    assert.ok(
      trap || tool.errors.includes(e.code) || UNIVERSAL_CODES.includes(e.code),
      `${tool.name} answered ${e.code}, which it does not declare (${e.message}) for ${preview(args)}`,
    );
    assert.equal(typeof e.message, "string");
    assert.ok(e.message.length > 0 && e.message.length < 5_000, `${tool.name}: a short message`);
    return { ok: false, code: e.code, reason: e.details?.reason };
  }
  const split = splitExtraContent(raw);
  assert.ok(split !== null, `${tool.name}: malformed extra content blocks for ${preview(args)}`);
  const wire = JSON.parse(JSON.stringify(split.value)) as unknown;
  const { output } = validatorsOf(tool);
  assert.ok(
    output(wire),
    `${tool.name}: result breaks its outputSchema for ${preview(args)}: ${ajv.errorsText(output.errors)}\n${JSON.stringify(wire).slice(0, 800)}`,
  );
  const unsafe = jsonUnsafe(split.value, "");
  assert.equal(unsafe, null, `${tool.name}: ${unsafe} does not survive JSON for ${preview(args)}`);
  return { ok: true };
}

/** The path of the first value JSON would change (NaN, Infinity, a function, a class instance), or null. */
function jsonUnsafe(value: unknown, path: string): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `${path || "/"} (${value})`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = jsonUnsafe(value[i], `${path}/${i}`);
      if (bad) return bad;
    }
    return null;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue; // dropped by JSON; the schema check on the wire form sees the gap
      const bad = jsonUnsafe(v, `${path}/${k}`);
      if (bad) return bad;
    }
    return null;
  }
  return `${path || "/"} (${typeof value === "object" ? (value.constructor?.name ?? "object") : typeof value})`;
}

function preview(args: unknown): string {
  const text = JSON.stringify(args) ?? String(args);
  return text.length > 300 ? `${text.slice(0, 300)}... (${text.length} chars)` : text;
}

/**
 * Sources for properties named *json* (MolJSON): real MolJSON from smiles_to_moljson when that tool is
 * registered, as objects and as text, mutated; otherwise random JSON.
 */
export async function moljsonSource(pool: WorkerPool, tools: Map<string, ChemTool>): Promise<fc.Arbitrary<unknown>> {
  const seeds: unknown[] = [];
  if (tools.has("smiles_to_moljson")) {
    for (const smiles of SMILES_SEEDS.slice(0, 8)) {
      const r = (await pool.run("smiles_to_moljson", { smiles }, { budgetMs: 10_000 }).catch(() => null)) as { moljson?: unknown } | null;
      if (r?.moljson) seeds.push(r.moljson);
    }
  }
  if (seeds.length === 0) return fc.jsonValue({ maxDepth: 3 });
  const texts = seeds.map((s) => JSON.stringify(s));
  const alphabet = [...'{}[]":,0123456789-.eE CNOcnotruefalsnl'];
  return fc.oneof(
    fc.constantFrom(...seeds),
    fc.constantFrom(...texts),
    fc
      .tuple(fc.constantFrom(...texts), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }))
      .map(([t, e]) => mutate(t, e, alphabet)),
    // Structurally edited objects: an atom or bond field changed to a random JSON value.
    fc
      .tuple(
        fc.constantFrom(...seeds),
        fc.nat(),
        fc.constantFrom("element", "charge", "implicit_hydrogens", "order", "atoms", "isotope", "aromatic", "chirality"),
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([seed, at, key, value]) => {
        const copy = JSON.parse(JSON.stringify(seed)) as { atoms?: Array<Record<string, unknown>>; bonds?: Array<Record<string, unknown>> };
        const list = at % 2 === 0 ? copy.atoms : copy.bonds;
        if (Array.isArray(list) && list.length > 0) list[at % list.length]![key] = value;
        return copy;
      }),
    fc.jsonValue({ maxDepth: 3 }),
  );
}
