/**
 * cluster_molecules: Butina clustering of ECFP4 bit vectors at a distance threshold, equal to RDKit's
 * Butina.ClusterData on the 1 - Tanimoto distance matrix (src/domain/chem/diversity.ts). On a canvas table
 * it writes each row's cluster as columns (cluster_id, is_centroid) by row key, as canvas_annotate writes.
 */
import { TABLE_APP_URI } from "../contract/apps.js";
import { ToolError } from "../domain/errors.js";
import { estimateInputAtoms, parseSmiles, type RDKit } from "../domain/chem/rdkit.js";
import { fingerprintWords, morganBitVector, DEFAULT_MORGAN_OPTIONS } from "../domain/chem/morgan.js";
import { butinaClusters } from "../domain/chem/diversity.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import type { AnnotationColumn } from "../domain/canvas/annotations.js";
import type { ChemTool, JsonSchema, ProgressReporter } from "../contract/tool.js";
import { MOLECULE_TEXT_MAX_LENGTH } from "./common.js";
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
import type { CellValue } from "../domain/canvas/tables.js";
import { MAX_LIST_ENTRY_ATOMS } from "./tanimoto.js";

/**
 * Most molecules one call clusters (all pairs are compared). bench/diversity.ts on 2 cores: 10,000 in 14.5 s
 * alone, 28.6 s with every worker clustering 10,000 at once, within the 50 s budget.
 */
const MAX_CLUSTER_MOLECULES = 10_000;
const DEFAULT_DISTANCE_THRESHOLD = 0.4;
/** Invalid entries described one by one (the rest only counted). */
const MAX_INVALID_LISTED = 100;

export const ECFP4_METHOD = "ECFP4 (RDKit Morgan bit vectors, radius 2, 2048 bits, as ecfp4), distance 1 - Tanimoto";

export interface InvalidEntry {
  index: number;
  code: string;
  message: string;
}

/** ECFP4 words of each entry that parses; the others as invalid entries (their code and message). */
export function listFingerprints(
  rdkit: RDKit,
  list: readonly string[],
  progress: ProgressReporter,
): { fps: Uint32Array[]; indices: number[]; invalid: InvalidEntry[]; invalidCount: number } {
  const fps: Uint32Array[] = [];
  const indices: number[] = [];
  const invalid: InvalidEntry[] = [];
  let invalidCount = 0;
  list.forEach((smiles, i) => {
    if (i % 500 === 0 && i > 0) progress(i, list.length, `${i} of ${list.length} fingerprints`);
    try {
      const estimate = estimateInputAtoms(smiles);
      if (estimate > MAX_LIST_ENTRY_ATOMS) {
        throw new ToolError("MOLECULE_TOO_LARGE", `List entry of up to ${estimate} atoms; list entries may have at most ${MAX_LIST_ENTRY_ATOMS}`, {
          argument: `smiles_list[${i}]`,
        });
      }
      const mol = parseSmiles(rdkit, smiles, { argName: `smiles_list[${i}]` });
      try {
        fps.push(fingerprintWords(morganBitVector(mol, DEFAULT_MORGAN_OPTIONS)));
        indices.push(i);
      } finally {
        mol.delete();
      }
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      invalidCount++;
      if (invalid.length < MAX_INVALID_LISTED) invalid.push({ index: i, code: err.code, message: err.message });
    }
  });
  return { fps, indices, invalid, invalidCount };
}

export const INVALID_SCHEMA: JsonSchema = {
  type: "array",
  description: `Entries that could not be used (the first ${MAX_INVALID_LISTED}), left out of the computation.`,
  items: {
    type: "object",
    properties: {
      index: { type: "integer", minimum: 0, description: "Position in smiles_list." },
      code: { type: "string", description: "Error code, e.g. INVALID_SMILES or MOLECULE_TOO_LARGE." },
      message: { type: "string", description: "What is wrong with it." },
    },
    required: ["index", "code", "message"],
    additionalProperties: false,
  },
};

export function smilesListProperty(max: number, what: string): JsonSchema {
  return {
    type: "array",
    minItems: 1,
    maxItems: max,
    items: { type: "string", maxLength: MOLECULE_TEXT_MAX_LENGTH, description: "A molecule." },
    description: `${what} Unparsable entries are listed under invalid.`,
  };
}

interface Args extends CanvasSetArgs {
  smiles_list?: string[];
  threshold?: number;
}

interface Result {
  clusters: Array<{ centroid: number; members: number[] }>;
  cluster_count: number;
  singletons: number;
  clustered: number;
  invalid_count?: number;
  invalid?: InvalidEntry[];
  threshold: number;
  method: string;
  [k: string]: unknown;
}

/**
 * Butina clustering of the list, with progress on one scale of 2 x entries: the fingerprints (one unit each,
 * reported every 500), then the all-pairs comparison (the other half, by pairs compared, reported every further
 * 5% of them). The halves do not take equal time (10,000 NCI molecules: fingerprints 5.5 s, pairs 0.8 s, on a
 * shared 2-core machine), but the pairs grow with the square of the list.
 */
function clusterList(rdkit: RDKit, list: readonly string[], threshold: number, progress: ProgressReporter): Result {
  const n = list.length;
  const total = 2 * n;
  const { fps, indices, invalid, invalidCount } = listFingerprints(rdkit, list, (done, _all, message) => progress(done, total, message));
  const m = fps.length;
  const pairs = (m * (m - 1)) / 2;
  const count = (k: number) => k.toLocaleString("en-US");
  progress(n, total, `${count(m)} fingerprints; comparing ${count(pairs)} pairs (Butina)`);
  let reported = 0;
  const clusters = butinaClusters(fps, threshold, (compared) => {
    if (pairs === 0) return;
    const done = (compared * (compared - 1)) / 2;
    const percent = Math.floor((20 * done) / pairs) * 5;
    if (percent <= reported) return;
    reported = percent;
    progress(n + Math.floor((n * percent) / 100), total, `${count(done)} of ${count(pairs)} pairs compared (Butina)`);
  }).map((members) => {
    const inputs = members.map((k) => indices[k]!);
    return { centroid: inputs[0]!, members: inputs };
  });
  progress(total, total, `${clusters.length} clusters`);
  const result: Result = {
    clusters,
    cluster_count: clusters.length,
    singletons: clusters.filter((c) => c.members.length === 1).length,
    clustered: fps.length,
    threshold,
    method: ECFP4_METHOD,
  };
  if (invalidCount > 0) Object.assign(result, { invalid_count: invalidCount, invalid });
  return result;
}

const CLUSTER_COLUMNS = (threshold: number, where: string | undefined): AnnotationColumn[] => {
  const definition = JSON.stringify({ kind: "butina", threshold, ...(where !== undefined ? { where } : {}) });
  return [
    {
      name: "cluster_id",
      type: "INTEGER",
      description: `Butina cluster (ECFP4, distance <= ${threshold}), 0 the first found (cluster_molecules).`,
      definition,
    },
    { name: "is_centroid", type: "BOOLEAN", description: "Whether the row is its cluster's centroid (cluster_molecules).", definition },
  ];
};

const CANVAS_OUTPUT: JsonSchema = {
  type: "object",
  description: "The canvas form: each row's cluster written as the columns cluster_id and is_centroid (NULL where the SMILES does not parse).",
  properties: {
    ...CANVAS_SET_HEADER_SCHEMA,
    columns: {
      type: "array",
      items: { type: "object", properties: { name: { type: "string" }, type: { type: "string" } }, required: ["name", "type"], additionalProperties: false },
    },
    rows_clustered: { type: "integer", minimum: 0, description: "Rows written by this call (0 when the table was already clustered at this threshold)." },
    invalid_smiles_rows: { type: "integer", minimum: 0 },
    cluster_count: { type: "integer", minimum: 0 },
    singletons: { type: "integer", minimum: 0 },
    threshold: { type: "number" },
    note: { type: "string" },
  },
  required: ["canvas_id", "table", "smiles_column", "rows_read", "columns", "rows_clustered", "invalid_smiles_rows", "threshold"],
  additionalProperties: false,
};

export function createClusterMoleculesTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args, Result> {
  const tool: ChemTool<Args, Result> = {
    kind: "chem",
    toolset: "medchem",
    name: "cluster_molecules",
    ui: { resourceUri: TABLE_APP_URI },
    title: "Butina clustering (ECFP4)",
    description: "Butina clusters on ECFP4, equal to RDKit's Butina.ClusterData: each cluster's centroid and members (input indices).",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        smiles_list: smilesListProperty(MAX_CLUSTER_MOLECULES, "The molecules to cluster."),
        threshold: {
          type: "number",
          minimum: 0,
          maximum: 1,
          default: DEFAULT_DISTANCE_THRESHOLD,
          description: "Distance (1 - Tanimoto) for neighbours.",
        },
        ...canvasSetProperties(),
      },
      oneOf: [{ required: ["smiles_list"] }, { required: ["canvas_id"] }],
      dependentRequired: CANVAS_SET_DEPENDENCIES,
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      anyOf: [
        {
          type: "object",
          properties: {
            clusters: {
              type: "array",
              description: "The clusters in the order found (the first has the most neighbours).",
              items: {
                type: "object",
                properties: {
                  centroid: { type: "integer", minimum: 0, description: "The centroid's index in smiles_list." },
                  members: { type: "array", items: { type: "integer", minimum: 0 }, description: "Input indices: the centroid, then the others ascending." },
                },
                required: ["centroid", "members"],
                additionalProperties: false,
              },
            },
            cluster_count: { type: "integer", minimum: 0 },
            singletons: { type: "integer", minimum: 0, description: "Clusters of one molecule." },
            clustered: { type: "integer", minimum: 0, description: "Molecules clustered (the entries that parsed)." },
            invalid_count: { type: "integer", minimum: 1, description: "Entries left out (only when there are some)." },
            invalid: INVALID_SCHEMA,
            threshold: { type: "number", description: "The distance threshold used." },
            method: { type: "string", description: "What was computed." },
          },
          required: ["clusters", "cluster_count", "singletons", "clustered", "threshold", "method"],
          additionalProperties: false,
        },
        CANVAS_OUTPUT,
      ],
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "CANVAS_DISABLED", "CANVAS_NOT_FOUND"],
    budgetMs: 50_000,
    mainForm: {
      applies: (args) => args.canvas_id !== undefined,
      outputSchema: CANVAS_OUTPUT,
      async run(args, ctx) {
        const threshold = args.threshold ?? DEFAULT_DISTANCE_THRESHOLD;
        const chem = ctx.chem;
        if (!chem) throw new Error("cluster_molecules' canvas form needs the chemistry pool");
        const columns = CLUSTER_COLUMNS(threshold, args.where?.trim());
        let result: Result | undefined;
        const progress = stepProgress(ctx);
        const outcome = await writeSetColumns(canvases(), args, ctx, {
          tool: "cluster_molecules",
          columns,
          maxRows: MAX_CLUSTER_MOLECULES,
          // canvas_annotate's hint (another `as` name) does not apply here: cluster_molecules has no `as`.
          conflict: (e) =>
            new ToolError(
              e.code,
              `${args.table} is already clustered with another definition (${String(e.details.definition)})`,
              e.details,
              "Query its cluster_id as it is, or stage the rows again as another table (chembl_dataframe_query) and cluster that.",
            ),
          async compute(set) {
            // The worker's progress (fingerprints, then pairs) reaches the client, with one step more for writing the columns.
            result = await chem.run(tool, { smiles_list: set.runnable.map((r) => r.smiles), threshold }, { onProgress: progress.onProgress });
            const cells = new Map<number, CellValue[]>();
            result.clusters.forEach((c, id) => c.members.forEach((m, k) => cells.set(set.runnable[m]!.row, [id, k === 0])));
            return cells;
          },
        });
        const answer: Record<string, unknown> = {
          ...canvasSetHeader(outcome.set),
          columns: columns.map((c) => ({ name: c.name, type: c.type })),
          rows_clustered: outcome.written,
          invalid_smiles_rows: outcome.written - outcome.cells.size,
          threshold,
        };
        if (outcome.written === 0) return { ...answer, note: `The rows are already clustered at threshold ${threshold}: query cluster_id and is_centroid.` };
        progress.done(`cluster_id and is_centroid written to ${outcome.written} rows`);
        return { ...answer, cluster_count: result?.cluster_count ?? 0, singletons: result?.singletons ?? 0 };
      },
    },
    run({ smiles_list, threshold = DEFAULT_DISTANCE_THRESHOLD }, { rdkit, progress }) {
      if (!smiles_list) throw new ToolError("INVALID_ARGUMENTS", "Give smiles_list (or canvas_id + table)", { path: "/smiles_list" });
      return clusterList(rdkit, smiles_list, threshold, progress);
    },
  };
  return tool;
}

export const clusterMoleculesTool = createClusterMoleculesTool();
