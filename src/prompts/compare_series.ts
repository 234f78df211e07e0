/**
 * compare_series: a chemical series side by side, on a canvas table: the shared core, the R groups at each
 * position, matched pairs and what each change does, properties, rule sets and alerts for every member,
 * similarity to a reference, and a PNG grid aligned on the core. The series is a table (canvas_id + table, with
 * where picking its rows), or a short list pasted in, which the first step puts on a canvas; either way every
 * later step reads the table, so the text does not grow with the series.
 */
import type { Prompt } from "../contract/prompt.js";
import { TABLE_NAME, plan, sqlName, toolsOf, userText, type Step } from "./steps.js";

/** Molecules a pasted series may hold (a longer one goes on a canvas first: canvas_import with a path). */
export const MAX_SERIES = 200;

/** find_mcs compares at most this many molecules. */
const MAX_MCS = 50;
/** A grid draws at most this many molecules (depict). */
const GRID_MAX = 48;
/** The table a pasted series goes to. */
const PASTED_TABLE = "series";

/**
 * The series argument's molecules: one a line when it spans lines (a CXSMILES keeps its spaces and commas), else
 * split on commas, semicolons and spaces (none of which a plain SMILES holds).
 */
export function seriesOf(text: string): string[] {
  const parts = /[\r\n]/.test(text) ? text.split(/\r?\n|\r/) : text.split(/[\s,;]+/);
  return parts.map((s) => s.trim()).filter((s) => s !== "");
}

/** Where the series is and how to read it. */
interface Source {
  /** Pasted molecules, imported by the first step; absent for a table. */
  pasted?: string[];
  canvasId: string;
  table: string;
  /** The SMILES column given (the table form); absent: the table's default. */
  smiles?: string;
  where?: string;
  value?: string;
}

/** The kinds computed on each member's standardised parent (their columns get the prefix parent_). */
const KINDS = [
  "mw",
  "logp",
  "tpsa",
  "hbd",
  "hba",
  "rotatable_bonds",
  "qed",
  "sa_score",
  "lipinski_violations",
  "pains",
  "brenk",
  "druglikeness",
  "murcko_scaffold",
];

function steps(src: Source, core: string | undefined, reference: string | undefined): Step[] {
  const t = sqlName(src.table);
  const rgroups = sqlName(`${src.table}_rgroups`.slice(0, 63));
  const pairs = sqlName(`${src.table}_pairs`.slice(0, 63));
  const value = src.value === undefined ? undefined : sqlName(src.value);
  const where = src.where;
  const table = { canvas_id: src.canvasId, table: src.table };
  const set = { ...table, ...(src.smiles ? { smiles_column: src.smiles } : {}), ...(where ? { where } : {}) };
  const rows = where ? `(SELECT * FROM ${t} WHERE ${where})` : t;
  const mcsWhere = src.pasted
    ? src.pasted.length > MAX_MCS
      ? `_row < ${MAX_MCS}`
      : undefined
    : `_row IN (SELECT _row FROM ${t}${where ? ` WHERE ${where}` : ""} ORDER BY _row LIMIT ${MAX_MCS})`;
  const similarity = reference ?? src.pasted?.[0];
  const coreSmarts = core ?? "<the MCS SMARTS>";
  const failed = ["lipinski", "veber", "egan", "ghose", "muegge"].map((r) => `CASE WHEN NOT s.parent_${r}_pass THEN '${r}' END`).join(", ");
  return [
    ...(src.pasted
      ? [
          {
            tool: "canvas_import",
            args: { smiles_list: src.pasted, table: PASTED_TABLE, standardize: true },
            text:
              "the series as a table on a new canvas, each member's standardised parent (salts stripped, neutralised) in smiles; " +
              "report any member that failed. Use its canvas_id below.",
          },
        ]
      : []),
    {
      tool: "canvas_annotate",
      args: {
        ...set,
        columns: [
          ...KINDS.map((kind) => ({ kind, parent: true })),
          ...(similarity ? [{ kind: "ecfp4_similarity", as: "sim_to_ref", query_smiles: similarity, parent: true }] : []),
        ],
      },
      text:
        "each member's properties, rule sets, PAINS and Brenk alerts and scaffold, computed on its standardised parent (salts stripped, " +
        "neutralised; columns parent_mw, parent_qed, parent_pains_count, ...)" +
        (similarity ? ` and ECFP4 similarity to ${reference ? "the reference" : "the first member"} (sim_to_ref)` : "") +
        ", in one call (again while complete is false).",
    },
    ...(core
      ? []
      : [
          {
            tool: "find_mcs",
            args: { ...set, ...(mcsWhere ? { where: mcsWhere } : {}), ring_matches_ring_only: true, complete_rings_only: true },
            text: `the maximum common substructure of the first ${MAX_MCS} members at most: its mcs_smarts is the core below (say if it timed out).`,
          },
        ]),
    {
      tool: "rgroup_decompose",
      args: { ...set, core: coreSmarts },
      text: `the R groups at each position of the core, into the table ${src.table}_rgroups (source_row is the member's _row); note the members the core does not match.`,
    },
    {
      tool: "matched_pairs",
      args: { ...set, ...(src.value ? { value_column: src.value } : {}) },
      text: `pairs that differ by one change, into the table ${src.table}_pairs (from_row, to_row, transformation${value ? ", delta" : ""}).`,
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: src.canvasId,
        sql:
          "SELECT s._row AS member, r.* EXCLUDE (source_row, smiles, core), round(s.parent_mw, 1) AS mw, round(s.parent_logp, 2) AS logp, " +
          "round(s.parent_tpsa, 1) AS tpsa, s.parent_hbd AS hbd, s.parent_hba AS hba, s.parent_rotatable_bonds AS rotb, round(s.parent_qed, 2) AS qed, " +
          "round(s.parent_sa_score, 1) AS sa, s.parent_pains_count AS pains, s.parent_brenk_count AS brenk, " +
          `concat_ws(' ', ${failed}) AS rules_failed, ` +
          (similarity ? "s.sim_to_ref, " : "") +
          (value ? `s.${value} AS value, ` : "") +
          `dense_rank() OVER (ORDER BY s.parent_murcko_scaffold) AS scaffold FROM ${rows} s LEFT JOIN ${rgroups} r ON r.source_row = s._row ` +
          `WHERE s.parent_mw IS NOT NULL ORDER BY ${value ? "value DESC NULLS LAST, " : similarity ? "s.sim_to_ref DESC, " : ""}s._row LIMIT 100`,
      },
      text: `the comparison table, a row per member (the ${value || similarity ? "best" : "first"} 100; for a larger series ask for aggregates by R group instead of more rows).`,
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: src.canvasId,
        sql:
          "SELECT p.transformation, count(*) AS pairs, " +
          (value ? "round(avg(p.delta), 2) AS mean_delta, " : "") +
          "round(avg(b.parent_logp - a.parent_logp), 2) AS d_logp, round(avg(b.parent_tpsa - a.parent_tpsa), 1) AS d_tpsa, " +
          "round(avg(b.parent_qed - a.parent_qed), 2) AS d_qed " +
          `FROM ${pairs} p JOIN ${t} a ON a._row = p.from_row JOIN ${t} b ON b._row = p.to_row GROUP BY p.transformation ` +
          `ORDER BY ${value ? "abs(avg(p.delta)) DESC NULLS LAST, " : ""}pairs DESC LIMIT 25`,
      },
      text: `what each change does: the transformations with their mean change in ${value ? `${src.value}, ` : ""}cLogP, TPSA and QED.`,
    },
    {
      tool: "depict",
      args: {
        canvas_id: src.canvasId,
        sql:
          `SELECT r.smiles, '#' || r.source_row${value ? ` || ' ' || round(s.${value}, 2)` : ""} AS legend FROM ${rgroups} r` +
          (value ? ` JOIN ${t} s ON s._row = r.source_row ORDER BY s.${value} DESC NULLS LAST, r.source_row` : " ORDER BY r.source_row") +
          ` LIMIT ${GRID_MAX}`,
        align_smarts: coreSmarts,
        format: "png",
      },
      text: `a PNG grid of the members the core matches, aligned on it (${value ? "the best " : "the first "}${GRID_MAX}: a grid draws at most ${GRID_MAX}), captioned by member.`,
    },
  ];
}

/** The source the arguments name: a table (canvas_id + table), or pasted molecules. */
function sourceOf(args: Readonly<Record<string, string>>): Source {
  if (args.canvas_id !== undefined) {
    return {
      canvasId: args.canvas_id,
      table: args.table!,
      ...(args.smiles_column !== undefined ? { smiles: args.smiles_column } : {}),
      ...(args.where !== undefined ? { where: args.where } : {}),
      ...(args.value_column !== undefined ? { value: args.value_column } : {}),
    };
  }
  return { pasted: seriesOf(args.series_smiles ?? ""), canvasId: "<canvas_id>", table: PASTED_TABLE };
}

export const compareSeriesPrompt: Prompt = {
  name: "compare_series",
  title: "Compare a series",
  description:
    "Compare a chemical series on a canvas table: its common core and R groups, matched pairs and what each change does, properties, " +
    "rule sets and alerts for every member, similarity to a reference, and a PNG grid aligned on the core, with no molecule pasted into later steps.",
  arguments: [
    {
      name: "canvas_id",
      description: "The canvas holding the series as a table (from canvas_import, or a staged ChEMBL table). Give table with it.",
      required: false,
      maxLength: 64,
    },
    { name: "table", description: "The series' table on that canvas, one row a compound (e.g. library).", required: false, maxLength: 63 },
    {
      name: "smiles_column",
      description: "The table's SMILES column (default smiles, or a staged table's canonical_smiles).",
      required: false,
      maxLength: 63,
    },
    {
      name: "where",
      description: "An SQL condition picking the series' rows from the table (e.g. cluster_id = 3); default: every row.",
      required: false,
      maxLength: 2_000,
    },
    {
      name: "value_column",
      description: "A numeric column to read each change against (e.g. pchembl_value or pIC50): matched-pair deltas and the ranking.",
      required: false,
      maxLength: 63,
    },
    {
      name: "series_smiles",
      description: `Instead of a table: 2 to ${MAX_SERIES} molecules as SMILES, one a line (or separated by commas or spaces); the first step puts them on a canvas.`,
      required: false,
      maxLength: 200_000,
      multiline: true,
    },
    {
      name: "core_smiles",
      description: "The shared core as SMILES or SMARTS (with [*:1]-style attachment points if you like); default: found with find_mcs.",
      required: false,
      maxLength: 2_000,
    },
    {
      name: "reference_smiles",
      description: "A reference molecule (the lead or the hit) to rank the series against by similarity; default for a pasted series: the first member.",
      required: false,
      maxLength: 4_000,
    },
  ],
  requires: ["canvas_annotate", "rgroup_decompose", "chembl_dataframe_query"],
  check(args) {
    const table = args.canvas_id !== undefined || args.table !== undefined;
    if (table && args.series_smiles !== undefined) return "give either canvas_id and table, or series_smiles, not both";
    if (table) {
      if (args.canvas_id === undefined || args.table === undefined) return "canvas_id and table go together: the canvas and the series' table on it";
      if (!TABLE_NAME.test(args.table)) return `table must be a canvas table name (lower-case letters, digits and _), got "${args.table}"`;
      return undefined;
    }
    const given = ["smiles_column", "where", "value_column"].filter((k) => args[k] !== undefined);
    if (given.length > 0) return `${given.join(", ")} read${given.length === 1 ? "s" : ""} a table: give canvas_id and table`;
    if (args.series_smiles === undefined) return "give the series: canvas_id and table, or series_smiles";
    const n = seriesOf(args.series_smiles).length;
    return n < 2 || n > MAX_SERIES ? `series_smiles holds ${n} molecule${n === 1 ? "" : "s"}; a series is 2 to ${MAX_SERIES}` : undefined;
  },
  chains: toolsOf(steps({ pasted: ["C"], canvasId: "", table: PASTED_TABLE }, undefined, undefined)),
  render(ctx) {
    const src = sourceOf(ctx.args);
    const { core_smiles: core, reference_smiles: reference } = ctx.args;
    const what = src.pasted
      ? `this series of ${src.pasted.length} molecules (given once, in the first call)`
      : `the series in table ${src.table} of canvas ${src.canvasId}${src.where ? ` (rows where ${src.where})` : ""}`;
    return userText(
      [
        `Compare ${what}${core ? ` on the core ${core}` : ""}${reference ? `, against the reference ${reference}` : ""}.`,
        "",
        "Call these tools in order (each takes the arguments shown; replace a <placeholder> with the value an earlier answer gave). " +
          "Every step reads the table, so no molecule needs to pass through the conversation; a member is named by its _row." +
          (src.pasted
            ? ""
            : " The structure steps (MCS, R groups, pairs, the grid) read the table's SMILES as they are: import with canvas_import standardize: true for parents."),
        plan(steps(src, core, reference), ctx),
        "",
        "Then write the comparison: the core, the comparison table (R groups, properties, alerts, rules failed" +
          (reference || src.pasted ? ", similarity" : "") +
          "), the changes that move potency-relevant properties most (from the pairs), whether the series is one chemotype or several (the scaffold column), " +
          "and which members to make or test next and why. Quote numbers as the tools answered them.",
      ].join("\n"),
    );
  },
};
