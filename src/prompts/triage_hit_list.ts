/**
 * triage_hit_list: triage a hit list of one's own, handed over as a file: import it cleaned (standardised,
 * deduplicated), add the chemistry columns in one call, filter in SQL for the goal, cluster, pick a diverse set,
 * draw the picks and export them as a file, with no molecule through the conversation: the model reads counts.
 * The file is read from CHEMATIC_IMPORT_DIR and the picks written to CHEMATIC_EXPORT_DIR (the Claude Desktop
 * bundle's defaults: Documents/chematic/import and Documents/chematic/export).
 */
import type { Prompt } from "../contract/prompt.js";
import { plan, toolsOf, userText, type Step } from "./steps.js";

/** The table the hits go to (a new canvas each time, so the name never clashes). */
const TABLE = "hits";
const DEFAULT_PICKS = 50;
/** pick_diverse's most picks. */
const MAX_PICKS = 2_000;
/** What cluster_molecules and pick_diverse take at most on a table. */
const MAX_SET_ROWS = 10_000;
/** A grid draws at most this many molecules (depict). */
const GRID_MAX = 48;

/** The columns computed in one canvas_annotate call: what the filters, the report and the export read. */
const KINDS = ["mw", "logp", "tpsa", "hbd", "hba", "rotatable_bonds", "fsp3", "qed", "sa_score", "lipinski_violations", "pains", "brenk", "murcko_scaffold"];

/** Goals the filter knows by name: each adds its published cut-offs to the filter. */
const GOALS: ReadonlyArray<{ words: RegExp; label: string; sql: string }> = [
  { words: /\b(oral|orally)\b/i, label: "oral (Lipinski's rule of five, one violation allowed, and Veber's)", sql: "rotatable_bonds <= 10 AND tpsa <= 140" },
  { words: /\b(cns|brain|bbb)\b/i, label: "CNS (Pajouhesh and Lenz)", sql: "mw <= 450 AND tpsa <= 90 AND hbd <= 3 AND logp <= 5" },
  { words: /\b(fragments?|ro3)\b/i, label: "fragment (the rule of three)", sql: "mw <= 300 AND logp <= 3 AND hbd <= 3 AND hba <= 3 AND rotatable_bonds <= 3" },
];

/** The goals named in `goal`, and whether it says more than their names. */
function goalsOf(goal: string | undefined): { known: typeof GOALS; rest: boolean } {
  if (!goal) return { known: [], rest: false };
  const known = GOALS.filter((g) => g.words.test(goal));
  const left = GOALS.reduce((text, g) => text.replace(new RegExp(g.words.source, "gi"), ""), goal);
  return { known, rest: /[a-z0-9]/i.test(left.replace(/\b(and|or|drugs?|like|compounds?|hits?)\b/gi, "")) };
}

/** The SQL filter for the goals: PAINS-free, parsed, at most one rule-of-five violation, and each goal's cut-offs. */
export function triageFilter(goal: string | undefined): string {
  return ["smiles IS NOT NULL", "pains_count = 0", "lipinski_violations <= 1", ...goalsOf(goal).known.map((g) => g.sql)].join(" AND ");
}

/** The import file's kind by extension (canvas_import's: .smi, .csv, .sdf, .sdf.gz), or null. */
function importKind(file: string): string | null {
  return /\.(sdf\.gz|sdf|csv|smi)$/i.exec(file)?.[1]?.toLowerCase() ?? null;
}

/** The default export file: the import file's name without its folder and extension, then _triage.sdf. */
export function defaultExportFile(file: string): string {
  const name = file.split(/[\\/]/).pop()!;
  const stem = name.replace(/\.(sdf\.gz|sdf|csv|smi)$/i, "");
  return `${stem || "hits"}_triage.sdf`;
}

const EXPORT_FILE = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,250}\.(sdf|csv|parquet)$/i;

function steps(file: string, filter: string, picks: number, exportFile: string): Step[] {
  const canvas = { canvas_id: "<canvas_id>", table: TABLE };
  const csv = importKind(file) === "csv";
  const picked = "pick_rank IS NOT NULL";
  const sdf = /\.sdf$/i.test(exportFile);
  return [
    {
      tool: "canvas_import",
      args: { path: file, table: TABLE, standardize: true, dedupe: true },
      text:
        "the file as a table on a new canvas: each record's standardised parent in smiles (salts stripped, neutralised), one row per parent " +
        "(duplicates merged and counted). Note counts (rows, parsed, failed, duplicates) and canvas_id." +
        (csv ? " If the CSV's SMILES column is not named smiles, add smiles_column (and id_column for its identifiers)." : ""),
    },
    {
      tool: "canvas_annotate",
      args: { ...canvas, columns: KINDS },
      text: "every chemistry column the triage reads, in one call; the same call again while complete is false (it continues where it stopped).",
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: "<canvas_id>",
        sql:
          "SELECT count(*) AS rows, count(smiles) AS parsed, count(*) FILTER (WHERE pains_count = 0) AS pains_free, " +
          "count(*) FILTER (WHERE lipinski_violations <= 1) AS ro5_ok, count(*) FILTER (WHERE brenk_count = 0) AS brenk_free, " +
          `count(*) FILTER (WHERE ${filter}) AS kept, count(DISTINCT murcko_scaffold) FILTER (WHERE ${filter}) AS kept_scaffolds FROM ${TABLE}`,
      },
      text:
        `the filter's funnel as counts. If kept is 0, or over ${MAX_SET_ROWS.toLocaleString("en-US")} (what the next two tools take), ` +
        "change the filter and run this again; use the same filter as where below.",
    },
    {
      tool: "cluster_molecules",
      args: { ...canvas, where: filter },
      text: "Butina clusters of the kept rows on ECFP4 (columns cluster_id, is_centroid); note cluster_count and singletons.",
    },
    {
      tool: "pick_diverse",
      args: { ...canvas, where: filter, n: picks },
      text: `the ${picks} most diverse kept rows (MaxMin on ECFP4, column pick_rank; n at most the rows kept).`,
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: "<canvas_id>",
        sql:
          `SELECT count(*) FILTER (WHERE ${picked}) AS picks, count(DISTINCT cluster_id) AS clusters, ` +
          `count(DISTINCT cluster_id) FILTER (WHERE ${picked}) AS clusters_picked, ` +
          `round(median(qed) FILTER (WHERE ${picked}), 2) AS picks_median_qed, round(median(qed), 2) AS kept_median_qed, ` +
          `round(median(mw) FILTER (WHERE ${picked}), 1) AS picks_median_mw, round(median(logp) FILTER (WHERE ${picked}), 2) AS picks_median_logp, ` +
          `count(*) FILTER (WHERE ${picked} AND brenk_count > 0) AS picks_with_brenk FROM ${TABLE} WHERE ${filter}`,
      },
      text: "how the picks cover the clusters and compare with the kept set, as figures.",
    },
    {
      tool: "depict",
      args: {
        canvas_id: "<canvas_id>",
        sql: `SELECT smiles, '#' || pick_rank || ' row ' || row_id || ' QED ' || round(qed, 2) AS legend FROM ${TABLE} WHERE ${picked} ORDER BY pick_rank LIMIT ${GRID_MAX}`,
        format: "png",
      },
      text: `a PNG grid of the picks in pick order (the first ${GRID_MAX}: a grid draws at most ${GRID_MAX}).`,
    },
    {
      tool: "canvas_export",
      args: {
        canvas_id: "<canvas_id>",
        sql:
          "SELECT * EXCLUDE (_row, pains_names, brenk_names), array_to_string(brenk_names, '; ') AS brenk_alerts " +
          `FROM ${TABLE} WHERE ${picked} ORDER BY pick_rank`,
        file: exportFile,
        ...(sdf ? { smiles_column: "smiles" } : {}),
      },
      text:
        "the picks with every column (the file's own data, the computed columns, cluster_id and pick_rank) as a file in the export folder; " +
        "if a file of that name exists, ask before calling again with overwrite: true. Give the user the path it answers.",
    },
  ];
}

export const triageHitListPrompt: Prompt = {
  name: "triage_hit_list",
  title: "Triage a hit list (your file)",
  description:
    "Triage your own hit list from a file (SDF, CSV or SMILES in the import folder): import it standardised and deduplicated, add properties, " +
    "QED, PAINS and Brenk alerts and scaffolds, filter for the goal, cluster, pick a diverse set, draw it and export it as a file, in about 8 calls.",
  arguments: [
    {
      name: "file",
      description:
        "The hit list: a .sdf, .sdf.gz, .csv or .smi file in the import folder (CHEMATIC_IMPORT_DIR; the Claude Desktop bundle's is " +
        "Documents/chematic/import), as a path inside it, e.g. hits.sdf.",
      required: true,
      maxLength: 1_024,
    },
    {
      name: "goal",
      description:
        "What the hits are for, as filters: oral, CNS, fragment, or your own words (e.g. oral, CNS, MW under 400); default: parsed, " +
        "PAINS-free, at most one rule-of-five violation.",
      required: false,
      maxLength: 500,
    },
    { name: "picks", description: `How many diverse compounds to pick (default ${DEFAULT_PICKS}, at most ${MAX_PICKS}).`, required: false, maxLength: 5 },
    {
      name: "export_file",
      description: "The file the picks are written to in the export folder (CHEMATIC_EXPORT_DIR): .sdf, .csv or .parquet; default <file's name>_triage.sdf.",
      required: false,
      maxLength: 255,
    },
  ],
  requires: ["canvas_import", "canvas_annotate", "chembl_dataframe_query", "cluster_molecules", "pick_diverse"],
  chains: toolsOf(steps("hits.csv", "x", 1, "a.sdf")),
  check(args) {
    const file = args.file ?? "";
    if (importKind(file) === null) return `file must be a .sdf, .sdf.gz, .csv or .smi file, got "${file}"`;
    if (/^([\\/]|[A-Za-z]:)/.test(file) || file.split(/[\\/]+/).includes(".."))
      return `file is a path inside the import folder (no leading / and no ..), got "${file}"`;
    if (args.picks !== undefined && !(/^\d+$/.test(args.picks) && Number(args.picks) >= 1 && Number(args.picks) <= MAX_PICKS))
      return `picks must be a whole number from 1 to ${MAX_PICKS}, got "${args.picks}"`;
    if (args.export_file !== undefined && !EXPORT_FILE.test(args.export_file))
      return `export_file must be a file name (no folder) ending .sdf, .csv or .parquet, got "${args.export_file}"`;
    return undefined;
  },
  render(ctx) {
    const file = ctx.args.file!;
    const goal = ctx.args.goal;
    const picks = ctx.args.picks === undefined ? DEFAULT_PICKS : Number(ctx.args.picks);
    const exportFile = ctx.args.export_file ?? defaultExportFile(file);
    const filter = triageFilter(goal);
    const { known, rest } = goalsOf(goal);
    return userText(
      [
        `Triage the hit list in the file ${JSON.stringify(file)} (in the import folder)${goal ? ` for this goal: ${goal}` : ""}; pick ${picks} and export them to ${JSON.stringify(exportFile)}.`,
        "",
        `The filter (an SQL condition over the table's columns): ${filter}`,
        `(parsed, PAINS-free, at most one rule-of-five violation${known.map((g) => `; ${g.label}`).join("")}).` +
          (rest ? " The goal says more than that: add it to the filter as SQL over these columns, and say how you read it." : ""),
        "",
        "Call these tools in order (each takes the arguments shown; replace <canvas_id> with the canvas_id the import answered):",
        plan(steps(file, filter, picks, exportFile), ctx),
        "",
        "No molecule needs to pass through this conversation: read counts, not rows. Then report, as figures: records read, parsed, failed " +
          "and merged as duplicates; the funnel (how many each filter kept); clusters and singletons; picks and the clusters they cover; the " +
          "picks' median QED, MW and cLogP against the kept set's; Brenk alerts among the picks; the grid; and the exported file's path and rows. " +
          "Quote numbers as the tools answered them.",
      ].join("\n"),
    );
  },
};
