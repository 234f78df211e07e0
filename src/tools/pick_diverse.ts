/**
 * pick_diverse: MaxMin diversity picking on ECFP4, equal to RDKit's MaxMinPicker.LazyBitVectorPick with
 * the same first picks (src/domain/chem/diversity.ts).
 */
import { TABLE_APP_URI } from "../contract/apps.js";
import { ToolError } from "../domain/errors.js";
import { maxMinPicks, minDistanceTo, seededFirstPick } from "../domain/chem/diversity.js";
import type { ChemTool, JsonSchema } from "../contract/tool.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { AnnotationColumn } from "../domain/canvas/annotations.js";
import type { CellValue } from "../domain/canvas/tables.js";
import {
  CANVAS_SET_DEPENDENCIES,
  CANVAS_SET_HEADER_SCHEMA,
  canvasSetHeader,
  canvasSetProperties,
  stepProgress,
  writeSetColumns,
  type CanvasSetArgs,
  CANVAS_WRITE_ANNOTATIONS,
} from "./canvas-set.js";
import { ECFP4_METHOD, INVALID_SCHEMA, listFingerprints, smilesListProperty, type InvalidEntry } from "./cluster_molecules.js";

const MAX_PICK_POOL = 10_000;
const MAX_FIRST_PICKS = 1_000;
/**
 * Most picks one call makes: on 2 cores 1,000 of 10,000 take 15 s and 3,000 19 s (12 s of them fingerprints);
 * nearly all 10,000 would take 76 s, past the 50 s budget.
 */
const MAX_PICKS = 2_000;

interface Args extends CanvasSetArgs {
  smiles_list?: string[];
  n: number;
  as?: string;
  first_picks?: number[];
  seed?: number;
}

interface Result {
  picks: number[];
  min_distance?: number;
  pool: number;
  invalid_count?: number;
  invalid?: InvalidEntry[];
  method: string;
  [k: string]: unknown;
}

const NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;

const CANVAS_OUTPUT: JsonSchema = {
  type: "object",
  description: "The canvas form: each pick's rank written as a column of the table (1 the first pick, NULL for rows not picked).",
  properties: {
    ...CANVAS_SET_HEADER_SCHEMA,
    column: { type: "string", description: "The column holding the pick rank." },
    picked: { type: "integer", minimum: 0, description: "Rows picked (by this call, or before with the same definition)." },
    pool: { type: "integer", minimum: 0, description: "Rows picked from (those whose SMILES parses)." },
    min_distance: { type: "number", description: "The last pick's distance (1 - Tanimoto) to the nearest earlier pick, 3 dp." },
    first_rows: { type: "array", items: { type: "integer", minimum: 0 }, description: "The first picks' _row keys, in pick order (at most 10)." },
    method: { type: "string" },
    note: { type: "string" },
  },
  required: ["canvas_id", "table", "smiles_column", "rows_read", "column", "picked", "pool"],
  additionalProperties: false,
};

export function createPickDiverseTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args, Result> {
  const tool: ChemTool<Args, Result> = {
    kind: "chem",
    toolset: "medchem",
    name: "pick_diverse",
    ui: { resourceUri: TABLE_APP_URI },
    title: "Diverse subset (MaxMin, ECFP4)",
    description:
      "Pick n diverse molecules by MaxMin on ECFP4, equal to RDKit's MaxMinPicker: the picks (input indices, in order) and the last pick's distance.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        smiles_list: smilesListProperty(MAX_PICK_POOL, "The pool to pick from."),
        n: { type: "integer", minimum: 1, maximum: MAX_PICKS, description: "How many to pick, first_picks included." },
        first_picks: {
          type: "array",
          maxItems: MAX_FIRST_PICKS,
          uniqueItems: true,
          items: { type: "integer", minimum: 0 },
          default: [0],
          description: "Indices picked first (on a table: positions in _row order); [] with seed for a random start.",
        },
        seed: {
          type: "integer",
          minimum: 0,
          maximum: 2_147_483_647,
          description: "Seed of the random first pick.",
        },
        ...canvasSetProperties(),
        as: { type: "string", minLength: 1, maxLength: 63, description: "Default pick_rank." },
      },
      required: ["n"],
      oneOf: [{ required: ["smiles_list"] }, { required: ["canvas_id"] }],
      dependentRequired: { ...CANVAS_SET_DEPENDENCIES, as: ["canvas_id"] },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        picks: { type: "array", items: { type: "integer", minimum: 0 }, description: "Indices into smiles_list in pick order." },
        min_distance: {
          type: "number",
          description: "The last pick's distance (1 - Tanimoto) to the nearest earlier pick, 3 dp (left out when only first_picks were picked).",
        },
        pool: { type: "integer", minimum: 0, description: "Entries picked from (those that parsed)." },
        invalid_count: { type: "integer", minimum: 1, description: "Entries left out (only when there are some)." },
        invalid: INVALID_SCHEMA,
        method: { type: "string", description: "What was computed." },
      },
      required: ["picks", "pool", "method"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 50_000,
    mainForm: {
      applies: (args) => args.canvas_id !== undefined,
      outputSchema: CANVAS_OUTPUT,
      async run(args, ctx) {
        const chem = ctx.chem;
        if (!chem) throw new Error("pick_diverse's canvas form needs the chemistry pool");
        const name = args.as ?? "pick_rank";
        if (!NAME_RE.test(name)) {
          throw new ToolError(
            "INVALID_ARGUMENTS",
            `Column name ${name} is not allowed`,
            { path: "/as" },
            "Use lower-case letters, digits and _, starting with a letter.",
          );
        }
        await canvases().refuseKeyword(name, "/as");
        const first = args.first_picks ?? [0];
        const definition = JSON.stringify({
          kind: "maxmin",
          n: args.n,
          first_picks: first,
          ...(args.seed !== undefined ? { seed: args.seed } : {}),
          ...(args.where ? { where: args.where.trim() } : {}),
        });
        const columns: AnnotationColumn[] = [
          { name, type: "INTEGER", description: `MaxMin pick rank on ECFP4 (1 the first of ${args.n}; NULL: not picked) (pick_diverse).`, definition },
        ];
        let result: Result | undefined;
        const progress = stepProgress(ctx);
        const outcome = await writeSetColumns(canvases(), args, ctx, {
          tool: "pick_diverse",
          columns,
          maxRows: MAX_PICK_POOL,
          conflict: (e) =>
            new ToolError(
              e.code,
              `Column ${name} of ${args.table} holds another pick (${String(e.details.definition ?? "a staged column")})`,
              e.details,
              "Name this pick's column with `as` (e.g. pick_rank_2).",
            ),
          async compute(set) {
            result = await chem.run(
              tool,
              {
                smiles_list: set.runnable.map((r) => r.smiles),
                n: args.n,
                first_picks: first,
                ...(args.seed !== undefined ? { seed: args.seed } : {}),
              },
              { onProgress: progress.onProgress },
            );
            const cells = new Map<number, CellValue[]>();
            result.picks.forEach((index, rank) => cells.set(set.runnable[index]!.row, [rank + 1]));
            return cells;
          },
        });
        const answer: Record<string, unknown> = { ...canvasSetHeader(outcome.set), column: name };
        if (!result) {
          return {
            ...answer,
            picked: args.n,
            pool: outcome.set.runnable.length,
            note: `These rows already hold this pick in ${name}: query ${name} IS NOT NULL ORDER BY ${name}.`,
          };
        }
        progress.done(`${name} written to ${outcome.written} rows`);
        return {
          ...answer,
          picked: result.picks.length,
          pool: result.pool,
          ...(result.min_distance !== undefined ? { min_distance: result.min_distance } : {}),
          first_rows: result.picks.slice(0, 10).map((i) => outcome.set.runnable[i]!.row),
          method: result.method,
        };
      },
    },
    run({ smiles_list, n, first_picks = [0], seed }, { rdkit, progress }) {
      if (!smiles_list) throw new ToolError("INVALID_ARGUMENTS", "Give smiles_list (or canvas_id + table)", { path: "/smiles_list" });
      if (seed !== undefined && first_picks.length > 0) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          "seed draws the first pick: give it with first_picks []",
          { path: "/seed" },
          "Send first_picks: [] with seed, or leave seed out.",
        );
      }
      if (seed === undefined && first_picks.length === 0) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          "first_picks [] needs a seed (a first pick drawn without one would not be reproducible)",
          { path: "/first_picks" },
          "Give seed (e.g. 42), or name the first picks.",
        );
      }
      first_picks.forEach((p, k) => {
        if (p >= smiles_list.length) {
          throw new ToolError("INVALID_ARGUMENTS", `first_picks[${k}] is ${p}; smiles_list has ${smiles_list.length} entries`, { path: `/first_picks/${k}` });
        }
      });
      const { fps, indices, invalid, invalidCount } = listFingerprints(rdkit, smiles_list, progress);
      const position = new Map(indices.map((input, k) => [input, k]));
      const first = first_picks.map((p, k) => {
        const at = position.get(p);
        if (at === undefined) {
          throw new ToolError("INVALID_SMILES", `first_picks[${k}] names entry ${p}, which does not parse`, {
            path: `/first_picks/${k}`,
            argument: `smiles_list[${p}]`,
          });
        }
        return at;
      });
      if (n > fps.length) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          `n is ${n} but only ${fps.length} entries of smiles_list parse`,
          { path: "/n", pool: fps.length },
          `Ask for at most ${fps.length}, or fix the entries under details.`,
        );
      }
      if (seed !== undefined) first.push(seededFirstPick(fps.length, seed));
      const picked = maxMinPicks(fps, n, first);
      const picks = picked.map((k) => indices[k]!);
      const result: Result = { picks, pool: fps.length, method: `MaxMin (RDKit MaxMinPicker.LazyBitVectorPick) on ${ECFP4_METHOD}` };
      if (picked.length > first.length) {
        const last = picked[picked.length - 1]!;
        result.min_distance = Math.round(minDistanceTo(fps, last, picked.slice(0, -1)) * 1000) / 1000;
      }
      if (invalidCount > 0) Object.assign(result, { invalid_count: invalidCount, invalid });
      progress(smiles_list.length, smiles_list.length, `${picks.length} picked`);
      return result;
    },
  };
  return tool;
}

export const pickDiverseTool = createPickDiverseTool();
