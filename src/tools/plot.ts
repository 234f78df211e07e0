/**
 * plot: a canvas table, or one SELECT on the canvas, drawn as a PNG chart a chat shows inline (issue 33): a
 * scatter of two numeric columns (coloured by a third), a histogram of one, the BOILED-Egg of the rows' SMILES
 * (WLOGP and TPSA with S and P computed as the boiled_egg tool does, the published ellipses drawn) and a
 * chemical-space map (ECFP4 as the ecfp4 tool, PCA to two components, src/domain/plot/pca.ts). The rows are read
 * once (at most MAX_PLOT_ROWS), the chemistry runs in the worker pool, the picture is made by
 * src/domain/plot (Vega-Lite to SVG, resvg to PNG). The answer is the image plus a compact account: rows drawn,
 * rows skipped and why, the axes' domains and where the plot area lies in the picture, per-kind figures.
 */
import { mdFields } from "./chembl-markdown.js";
import { int, markdownContent, str } from "./chembl-common.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { streamQuery } from "../domain/canvas/queries.js";
import { MAX_SQL_LENGTH } from "../domain/canvas/sql-guard.js";
import { quoteIdent } from "../domain/canvas/tables.js";
import { jsonConverter, type JsonValue } from "../domain/canvas/values.js";
import type { Canvas } from "../domain/canvas/canvas.js";
import { descriptorsOf, withMol } from "../domain/chem/rdkit.js";
import { classifyEgg, polarGraphInfo, type EggZone } from "../domain/chem/boiled_egg.js";
import { DEFAULT_MORGAN_OPTIONS, morganBitVector, onBits } from "../domain/chem/morgan.js";
import { fingerprintPca } from "../domain/plot/pca.js";
import { DEFAULT_BINS, MAX_POINTS_DRAWN, boiledEggChart, histogramChart, scatterChart, type Chart, type ColourValues } from "../domain/plot/charts.js";
import { compilePlot, renderPlot } from "../domain/plot/render.js";
import { PLOT_APP_URI } from "../contract/apps.js";
import { ToolError } from "../domain/errors.js";
import { MAX_TOOL_BUDGET_MS } from "../contract/limits.js";
import { CANVAS_READ_ANNOTATIONS, canvasFor, canvasIdProperty, defaultSmilesColumn } from "./canvas-common.js";
import { workerOnlyTool } from "./common.js";
import type { ChemTool, ContentBlock, ServiceContext, ServiceTool } from "../contract/tool.js";
import { withExtraContent } from "../contract/tool.js";

const KINDS = ["scatter", "histogram", "boiled_egg", "chemical_space"] as const;
type Kind = (typeof KINDS)[number];

interface Args {
  canvas_id: string;
  table?: string;
  sql?: string;
  kind: Kind;
  x?: string;
  y?: string;
  color?: string;
  bins?: number;
  smiles_column?: string;
}

/** Most rows one plot reads (a canvas table's default cap): past it the call is refused, not silently sampled. */
const MAX_PLOT_ROWS = 100_000;
const MAX_BINS = 200;
/** Molecules sent to the workers at a time (progress after each batch). */
const CHEM_BATCH = 4_096;
/** How long reading the rows may take (the query's timeout). */
const READ_TIMEOUT_MS = 60_000;
const SMILES_COLUMNS = ["smiles", "parent_smiles", "canonical_smiles", "standardized_smiles"];

/** Worker-only: the BOILED-Egg plane's coordinates of one SMILES, computed as the boiled_egg tool computes them. */
export const plotEggPointTool = workerOnlyTool<{ smiles: string }, { tpsa_sp: number; logp: number }>({
  toolset: "canvas",
  name: "plot_egg_point",
  title: "plot: one BOILED-Egg point",
  description: "Worker-only: TPSA (with S and P) and WLOGP of one SMILES.",
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  run({ smiles }, { rdkit }) {
    return withMol(rdkit, smiles, (mol) => {
      const d = descriptorsOf(mol);
      return { tpsa_sp: d.tpsa + polarGraphInfo(mol).sulfurPhosphorusPsa, logp: d.CrippenClogP };
    });
  },
});

/** Worker-only: the on bits of one SMILES's ECFP4 (radius 2, 2048 bits, as the ecfp4 tool). */
export const plotFingerprintTool = workerOnlyTool<{ smiles: string }, { bits: number[] }>({
  toolset: "canvas",
  name: "plot_fingerprint",
  title: "plot: one ECFP4",
  description: "Worker-only: the ECFP4 on bits of one SMILES.",
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  run({ smiles }, { rdkit }) {
    return withMol(rdkit, smiles, (mol) => ({ bits: onBits(morganBitVector(mol, DEFAULT_MORGAN_OPTIONS)) }));
  },
});

export interface PlotResult {
  canvas_id: string;
  kind: Kind;
  mode: Chart["mode"];
  rows_read: number;
  rows_plotted: number;
  skipped?: Record<string, number>;
  x: { title: string; domain: [number, number] };
  y: { title: string; domain: [number, number] };
  plot_area: { x: number; y: number; width: number; height: number };
  zones?: Record<EggZone, number>;
  explained_variance?: [number, number];
  bins?: number;
  note?: string;
  width: number;
  height: number;
  png_bytes: number;
  elapsed_ms: number;
  [k: string]: unknown;
}

function describe(r: PlotResult): string {
  const fmt = (d: [number, number]) => `[${d[0]}, ${d[1]}]`;
  const skipped = Object.entries(r.skipped ?? {})
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  return [
    `**Plot: ${r.kind}** (the PNG follows)`,
    mdFields([
      ["drawn", `${r.rows_plotted} of ${r.rows_read} rows, as ${r.mode === "density" ? "a density (rows per cell)" : r.mode}`],
      ["skipped", skipped === "" ? undefined : skipped],
      ["x", `${r.x.title} ${fmt(r.x.domain)}`],
      ["y", `${r.y.title} ${fmt(r.y.domain)}`],
      ["zones", r.zones && `yolk ${r.zones.yolk}, white ${r.zones.white}, grey ${r.zones.grey}`],
      ["explained_variance", r.explained_variance && r.explained_variance.map((v) => `${(v * 100).toFixed(1)}%`).join(", ")],
      ["bins", r.bins],
      ["note", r.note],
      ["png", `${r.width}x${r.height}, ${r.png_bytes} bytes`],
      ["elapsed_ms", r.elapsed_ms],
    ]),
  ].join("\n");
}

const domainSchema = (what: string) => ({
  type: "object",
  description: what,
  properties: { title: { type: "string" }, domain: { type: "array", items: { type: "number" }, minItems: 2, maxItems: 2 } },
  required: ["title", "domain"],
  additionalProperties: false,
});

/** A column the rows must have: INVALID_ARGUMENTS naming it and the columns there are. */
function noColumn(name: string, path: string, columns: readonly string[]): ToolError {
  return new ToolError(
    "INVALID_ARGUMENTS",
    `The rows have no column ${name}`,
    { path, columns },
    "Name one of details.columns (chembl_dataframe_describe lists a table's).",
  );
}

/** The columns a kind reads: [argument path, column] pairs, checked against the rows' columns. */
function neededColumns(args: Args, smilesColumn: string | undefined): Array<[string, string]> {
  const need = (path: string, value: string | undefined, what: string): [string, string] => {
    if (value === undefined) throw new ToolError("INVALID_ARGUMENTS", `kind ${args.kind} needs ${what}`, { path }, `Pass ${path.slice(1)}: a column name.`);
    return [path, value];
  };
  const refuse = (path: string) => {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `kind ${args.kind} does not take ${path.slice(1)}`,
      { path },
      args.kind === "boiled_egg" ? "The BOILED-Egg places and colours its points itself (by zone)." : `Leave ${path.slice(1)} out.`,
    );
  };
  const out: Array<[string, string]> = [];
  if (args.kind === "scatter") out.push(need("/x", args.x, "x"), need("/y", args.y, "y"));
  else if (args.kind === "histogram") out.push(need("/x", args.x, "x"));
  else {
    if (args.x !== undefined) refuse("/x");
    if (args.y !== undefined) refuse("/y");
    out.push(need("/smiles_column", smilesColumn, "a SMILES column (smiles_column)"));
  }
  if (args.kind === "histogram" && args.y !== undefined) refuse("/y");
  if (args.color !== undefined) {
    if (args.kind === "histogram" || args.kind === "boiled_egg") refuse("/color");
    out.push(["/color", args.color]);
  }
  if (args.bins !== undefined && args.kind !== "histogram") refuse("/bins");
  return out;
}

/** The rows' values by column: numbers (NaN for NULL or non-finite) for numeric columns, text (or null) otherwise. */
interface Read {
  rows: number;
  numeric: Map<string, Float64Array>;
  text: Map<string, Array<string | null>>;
}

/** Columns that name a row, read besides the plotted ones for the plot app's points (when present): row, SMILES, title. */
const IDENTITY_COLUMNS = ["_row", ...SMILES_COLUMNS, "title", "ID", "id", "name", "molecule_chembl_id"];

async function readRows(canvas: Canvas, args: Args, ctx: ServiceContext, identity = false): Promise<{ read: Read; smilesColumn?: string }> {
  const hasTable = args.table !== undefined;
  if (hasTable === (args.sql !== undefined)) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      hasTable ? "Give table or sql, not both" : "Name what to plot: table (a whole table) or sql (one SELECT)",
      { path: hasTable ? "/sql" : "/table", tables: [...canvas.tables.keys()] },
      "Pass table to plot a table's rows, or sql for a query's (e.g. a filter, a join, computed columns).",
    );
  }
  const chemistry = args.kind === "boiled_egg" || args.kind === "chemical_space";
  let sql: string;
  let smilesColumn: string | undefined;
  if (hasTable) {
    const meta = canvas.tables.get(args.table!);
    if (!meta) throw canvas.noTable(args.table!);
    const names = meta.columns.map((c) => c.name);
    if (chemistry) smilesColumn = defaultSmilesColumn(canvas, meta.name, args.smiles_column);
    const needed = neededColumns(args, smilesColumn);
    for (const [path, name] of needed) if (!names.includes(name)) throw noColumn(name, path, names);
    const order = names.includes("_row") ? " ORDER BY _row" : "";
    const extra = identity ? IDENTITY_COLUMNS.filter((c) => names.includes(c)) : [];
    sql = `SELECT ${[...new Set([...needed.map(([, n]) => n), ...extra])].map(quoteIdent).join(", ")} FROM ${quoteIdent(meta.name)}${order}`;
  } else {
    sql = args.sql!;
  }
  const { DuckDBTypeId } = canvas.duckdb;
  const numericTypes = new Set<number>([
    DuckDBTypeId.TINYINT,
    DuckDBTypeId.SMALLINT,
    DuckDBTypeId.INTEGER,
    DuckDBTypeId.BIGINT,
    DuckDBTypeId.UTINYINT,
    DuckDBTypeId.USMALLINT,
    DuckDBTypeId.UINTEGER,
    DuckDBTypeId.UBIGINT,
    DuckDBTypeId.HUGEINT,
    DuckDBTypeId.UHUGEINT,
    DuckDBTypeId.FLOAT,
    DuckDBTypeId.DOUBLE,
    DuckDBTypeId.DECIMAL,
  ]);
  const convert = jsonConverter(canvas.duckdb);
  let picks: Array<{ name: string; at: number; numeric: boolean }> = [];
  const numbers = new Map<string, number[]>();
  const text = new Map<string, Array<string | null>>();
  const stream = await streamQuery(
    canvas,
    sql,
    { maxRows: MAX_PLOT_ROWS, timeoutMs: READ_TIMEOUT_MS, signal: ctx.signal },
    {
      columns: (columns) => {
        const names = columns.map((c) => c.name);
        if (!hasTable && chemistry) smilesColumn = args.smiles_column ?? SMILES_COLUMNS.find((c) => names.includes(c)) ?? "smiles";
        const needed = neededColumns(args, smilesColumn);
        for (const [path, name] of needed) if (!names.includes(name)) throw noColumn(name, path, names);
        const extra = identity ? IDENTITY_COLUMNS.filter((c) => names.includes(c)) : [];
        picks = [...new Set([...needed.map(([, n]) => n), ...extra])].map((name) => {
          const at = names.indexOf(name);
          return { name, at, numeric: numericTypes.has(columns[at]!.type.typeId) };
        });
        for (const [path, name] of needed) {
          const pick = picks.find((p) => p.name === name)!;
          if ((path === "/x" || path === "/y") && !pick.numeric) {
            throw new ToolError(
              "INVALID_ARGUMENTS",
              `Column ${name} is not numeric (${columns[pick.at]!.type.toString()}); ${path.slice(1)} must be`,
              { path, column: name, type: columns[pick.at]!.type.toString() },
              "Name a numeric column, or cast it in sql (e.g. SELECT CAST(col AS DOUBLE) AS col ...).",
            );
          }
        }
        for (const p of picks) {
          if (p.numeric && p.name !== smilesColumn) numbers.set(p.name, []);
          else text.set(p.name, []);
        }
      },
      chunk: (chunk) => {
        for (const row of chunk.convertRows(convert)) {
          for (const p of picks) {
            const v: JsonValue | undefined = row[p.at];
            const list = numbers.get(p.name);
            if (list) list.push(v === null || v === undefined ? NaN : Number(v));
            else text.get(p.name)!.push(v === null || v === undefined ? null : typeof v === "string" ? v : JSON.stringify(v));
          }
        }
      },
    },
  );
  if (stream.truncated) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      `The rows number more than ${MAX_PLOT_ROWS}; a plot reads at most that many`,
      { path: hasTable ? "/table" : "/sql", max_rows: MAX_PLOT_ROWS },
      "Plot a query that keeps fewer rows: a WHERE, or a sample (SELECT ... USING SAMPLE 50000 ROWS).",
    );
  }
  if (stream.rows === 0) {
    throw new ToolError(
      "INVALID_ARGUMENTS",
      hasTable ? `Table ${args.table} has no rows: nothing to plot` : "The query returned no rows: nothing to plot",
      { path: hasTable ? "/table" : "/sql" },
      hasTable ? "Plot a table with rows." : "Loosen the query's filters.",
    );
  }
  const numeric = new Map([...numbers].map(([k, v]) => [k, Float64Array.from(v)]));
  return { read: { rows: stream.rows, numeric, text }, ...(smilesColumn !== undefined ? { smilesColumn } : {}) };
}

/** Runs a worker-only tool over the SMILES in batches under the call's budget; null for a row it could not compute. */
async function computeAll<R>(
  tool: ChemTool<{ smiles: string }, R>,
  smiles: ReadonlyArray<string | null>,
  ctx: ServiceContext,
  what: string,
): Promise<Array<R | null>> {
  const runList = ctx.chem?.runList?.bind(ctx.chem);
  if (!runList) throw new Error("plot needs the chemistry pool (ServiceContext.chem.runList)");
  const out: Array<R | null> = smiles.map(() => null);
  for (let start = 0; start < smiles.length; start += CHEM_BATCH) {
    const positions: number[] = [];
    const items: Array<{ smiles: string }> = [];
    for (let i = start; i < Math.min(smiles.length, start + CHEM_BATCH); i++) {
      const s = smiles[i];
      if (typeof s === "string" && s.trim() !== "") {
        positions.push(i);
        items.push({ smiles: s });
      }
    }
    if (items.length === 0) continue;
    const outcomes = await runList(tool, items, { budgetMs: Math.max(1_000, ctx.deadline - Date.now() - 3_000) });
    outcomes.forEach((o, k) => {
      if (o.ok) out[positions[k]!] = o.value;
      else if (o.error.code === "TIMEOUT") {
        throw new ToolError(
          "TIMEOUT",
          `The plot ran out of time computing ${what} (${start + k} of ${smiles.length} rows done)`,
          { rows_done: start + k, rows: smiles.length },
          "Call again with a progress token (the plot may then run up to 5 minutes), or plot fewer rows (sql with a WHERE or USING SAMPLE).",
        );
      }
    });
    const done = Math.min(smiles.length, start + CHEM_BATCH);
    ctx.progress(done, smiles.length, `${what}: ${done} of ${smiles.length} rows`);
  }
  return out;
}

function count(skipped: Record<string, number>, reason: string): void {
  skipped[reason] = (skipped[reason] ?? 0) + 1;
}

/** The colour column's values for the kept rows: numbers when numeric (rows without one skipped), else labels. */
function colourOf(read: Read, column: string | undefined, keep: number[], skipped: Record<string, number>): { colour?: ColourValues; keep: number[] } {
  if (column === undefined) return { keep };
  const numbers = read.numeric.get(column);
  if (numbers) {
    const kept = keep.filter((i) => Number.isFinite(numbers[i]!) || (count(skipped, "color_null"), false));
    return { colour: { kind: "quantitative", values: Float64Array.from(kept, (i) => numbers[i]!) }, keep: kept };
  }
  const labels = read.text.get(column)!;
  return { colour: { kind: "nominal", values: keep.map((i) => labels[i] ?? "NULL") }, keep };
}

async function buildChart(args: Args, read: Read, smilesColumn: string | undefined, ctx: ServiceContext) {
  /** The rows drawn as points, in the order of the chart's point data (none for a histogram). */
  let drawn: number[] = [];
  const skipped: Record<string, number> = {};
  const all = Array.from({ length: read.rows }, (_, i) => i);
  const extra: Partial<PlotResult> = {};
  let chart: Chart;
  let plotted: number;
  if (args.kind === "scatter" || args.kind === "histogram") {
    const xs = read.numeric.get(args.x!)!;
    const ys = args.kind === "scatter" ? read.numeric.get(args.y!)! : undefined;
    let keep = all.filter((i) => {
      if (!Number.isFinite(xs[i]!)) return (count(skipped, "x_null"), false);
      if (ys && !Number.isFinite(ys[i]!)) return (count(skipped, "y_null"), false);
      return true;
    });
    if (keep.length === 0) throw nothingLeft(skipped);
    const x = Float64Array.from(keep, (i) => xs[i]!);
    if (args.kind === "histogram") {
      const bins = args.bins ?? DEFAULT_BINS;
      chart = histogramChart(x, bins, args.x!, `${args.x}: ${keep.length} rows`).chart;
      extra.bins = bins;
      plotted = keep.length;
    } else {
      const coloured = colourOf(read, args.color, keep, skipped);
      keep = coloured.keep;
      chart = scatterChart({
        x: Float64Array.from(keep, (i) => xs[i]!),
        y: Float64Array.from(keep, (i) => ys![i]!),
        xTitle: args.x!,
        yTitle: args.y!,
        title: `${args.y} against ${args.x}: ${keep.length} rows`,
        ...(coloured.colour ? { colour: coloured.colour, colourTitle: args.color } : {}),
      });
      plotted = keep.length;
      drawn = keep;
    }
  } else {
    const smiles = read.text.get(smilesColumn!)!;
    const noSmiles = (i: number) => smiles[i] === null || smiles[i]!.trim() === "";
    if (args.kind === "boiled_egg") {
      const points = await computeAll(plotEggPointTool, smiles, ctx, "WLOGP and TPSA");
      const keep = all.filter((i) => points[i] !== null || (count(skipped, noSmiles(i) ? "smiles_null" : "smiles_invalid"), false));
      if (keep.length === 0) throw nothingLeft(skipped);
      const tpsa = Float64Array.from(keep, (i) => points[i]!.tpsa_sp);
      const logp = Float64Array.from(keep, (i) => points[i]!.logp);
      const zones = keep.map((_, k) => classifyEgg(tpsa[k]!, logp[k]!).zone);
      extra.zones = { yolk: 0, white: 0, grey: 0 };
      for (const z of zones) extra.zones[z]++;
      chart = boiledEggChart(tpsa, logp, zones, `BOILED-Egg: ${keep.length} molecules`);
      plotted = keep.length;
      drawn = keep;
    } else {
      const fps = await computeAll(plotFingerprintTool, smiles, ctx, "ECFP4");
      let keep = all.filter((i) => fps[i] !== null || (count(skipped, noSmiles(i) ? "smiles_null" : "smiles_invalid"), false));
      if (keep.length < 3) {
        throw new ToolError(
          "INVALID_ARGUMENTS",
          `A chemical-space map needs at least 3 molecules; ${keep.length} parsed`,
          { path: "/smiles_column", molecules: keep.length, skipped },
          "Check smiles_column names the SMILES, and plot more rows.",
        );
      }
      const coloured = colourOf(read, args.color, keep, skipped);
      keep = coloured.keep;
      const pca = fingerprintPca(
        keep.map((i) => fps[i]!.bits),
        DEFAULT_MORGAN_OPTIONS.nBits,
      );
      const ev: [number, number] = [round4(pca.explainedVarianceRatio[0]), round4(pca.explainedVarianceRatio[1])];
      extra.explained_variance = ev;
      const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
      chart = scatterChart({
        x: Float64Array.from(keep, (_, k) => pca.coordinates[2 * k]!),
        y: Float64Array.from(keep, (_, k) => pca.coordinates[2 * k + 1]!),
        xTitle: `PC1 (${pct(ev[0])})`,
        yTitle: `PC2 (${pct(ev[1])})`,
        title: `Chemical space (ECFP4 PCA): ${keep.length} molecules`,
        ...(coloured.colour ? { colour: coloured.colour, colourTitle: args.color } : {}),
      });
      plotted = keep.length;
      drawn = keep;
    }
  }
  return { chart, plotted, skipped, extra, drawn };
}

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

function nothingLeft(skipped: Record<string, number>): ToolError {
  return new ToolError(
    "INVALID_ARGUMENTS",
    "No row has values to plot: every row was skipped",
    { skipped },
    "Check the columns named (details.skipped says why rows were left out), or filter out NULLs in sql.",
  );
}

function plotContent(result: Record<string, unknown>): ContentBlock[] {
  return markdownContent(describe)(result);
}

export function createPlotTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, PlotResult> {
  return {
    kind: "service",
    toolset: "canvas",
    name: "plot",
    title: "Plot a canvas table as a PNG",
    description: "PNG chart of a canvas table or SELECT: scatter (x, y, color), histogram (x), boiled_egg, chemical_space (ECFP4 PCA).",
    annotations: CANVAS_READ_ANNOTATIONS,
    // Hosts that render MCP Apps show the same chart interactive (apps/plot, through plot_view).
    ui: { resourceUri: PLOT_APP_URI },
    inputSchema: {
      type: "object",
      properties: {
        canvas_id: canvasIdProperty(),
        table: { type: "string", minLength: 1, maxLength: 63, description: "A table." },
        sql: { type: "string", minLength: 1, maxLength: MAX_SQL_LENGTH, description: "Or one SELECT." },
        kind: { type: "string", enum: [...KINDS], description: "Chart." },
        x: { type: "string", minLength: 1, maxLength: 63, description: "Column." },
        y: { type: "string", minLength: 1, maxLength: 63, description: "Column." },
        color: { type: "string", minLength: 1, maxLength: 63, description: "Column." },
        bins: { type: "integer", minimum: 2, maximum: MAX_BINS, description: "Default 30." },
        smiles_column: { type: "string", minLength: 1, maxLength: 63, description: "SMILES column." },
      },
      required: ["canvas_id", "kind"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        canvas_id: str("The canvas read."),
        kind: { type: "string", enum: [...KINDS], description: "Chart." },
        mode: { type: "string", enum: ["points", "density", "bars"], description: `density: over ${MAX_POINTS_DRAWN} rows, counted per cell.` },
        rows_read: int("Rows the table or query gave."),
        rows_plotted: int("Rows drawn."),
        skipped: { type: "object", additionalProperties: { type: "integer" }, description: "Rows left out, by reason." },
        x: domainSchema("The x axis: title and domain."),
        y: domainSchema("The y axis: title and domain."),
        plot_area: {
          type: "object",
          description: "The plot area in the picture (pixels): domains map linearly onto it, y upwards.",
          properties: { x: { type: "integer" }, y: { type: "integer" }, width: { type: "integer" }, height: { type: "integer" } },
          required: ["x", "y", "width", "height"],
          additionalProperties: false,
        },
        zones: {
          type: "object",
          description: "boiled_egg: molecules per zone.",
          properties: { yolk: { type: "integer" }, white: { type: "integer" }, grey: { type: "integer" } },
          required: ["yolk", "white", "grey"],
          additionalProperties: false,
        },
        explained_variance: { type: "array", items: { type: "number" }, description: "chemical_space: each component's share of the variance." },
        bins: int("histogram: bins."),
        note: str("What the picture leaves out (a density instead of points)."),
        width: int("PNG width."),
        height: int("PNG height."),
        png_bytes: int("PNG size."),
        elapsed_ms: int("Time taken."),
      },
      required: ["canvas_id", "kind", "mode", "rows_read", "rows_plotted", "x", "y", "plot_area", "width", "height", "png_bytes", "elapsed_ms"],
      additionalProperties: false,
    },
    errors: ["CANVAS_DISABLED", "CANVAS_NOT_FOUND", "INVALID_ARGUMENTS", "QUERY_REFUSED", "QUERY_TIMEOUT", "QUEUE_TIMEOUT", "TIMEOUT"],
    budgetMs: MAX_TOOL_BUDGET_MS,
    // The chemistry of 100,000 molecules takes longer than one budget on a small machine: with a progress token
    // the call may run on (it reports progress after every batch).
    progressBudgetMs: () => 300_000,
    content: plotContent,
    async run(args, ctx) {
      const started = Date.now();
      if (!(KINDS as readonly string[]).includes(args.kind)) {
        throw new ToolError("INVALID_ARGUMENTS", `Unknown kind ${String(args.kind)}`, { path: "/kind", kinds: [...KINDS] }, `Pass one of ${KINDS.join(", ")}.`);
      }
      const canvas = await canvasFor(canvases(), args.canvas_id, ctx);
      const { read, smilesColumn } = await readRows(canvas, args, ctx);
      const { chart, plotted, skipped, extra } = await buildChart(args, read, smilesColumn, ctx);
      const picture = await renderPlot(chart.spec, chart.area, chart.padding);
      const data = Buffer.from(picture.png.buffer, picture.png.byteOffset, picture.png.byteLength).toString("base64");
      const result: PlotResult = {
        canvas_id: canvas.id,
        kind: args.kind,
        mode: chart.mode,
        rows_read: read.rows,
        rows_plotted: plotted,
        ...(Object.keys(skipped).length > 0 ? { skipped } : {}),
        x: { title: axisTitle(chart, "x"), domain: chart.xDomain },
        y: { title: axisTitle(chart, "y"), domain: chart.yDomain },
        plot_area: picture.plotArea,
        ...extra,
        ...(chart.mode === "density"
          ? {
              note:
                `Over ${MAX_POINTS_DRAWN} rows: drawn as a density (rows per cell), not as points` +
                (args.color !== undefined
                  ? `; ${args.color} is not shown (plot a WHERE or a sample of at most ${MAX_POINTS_DRAWN} rows to colour points)`
                  : "") +
                ".",
            }
          : {}),
        width: picture.width,
        height: picture.height,
        png_bytes: picture.png.byteLength,
        elapsed_ms: Date.now() - started,
      };
      return withExtraContent(result, [{ type: "image", data, mimeType: "image/png" }]);
    },
  };
}

/** The title an axis shows (the charts set it on the encoding). */
function axisTitle(chart: Chart, channel: "x" | "y"): string {
  const spec = chart.spec as unknown as { encoding?: Record<string, { title?: string }>; layer?: Array<{ encoding?: Record<string, { title?: string }> }> };
  const enc = spec.encoding ?? spec.layer?.[0]?.encoding;
  return enc?.[channel]?.title ?? channel;
}

export const plotTool = createPlotTool();

/**
 * Points the plot app receives at most: each carries its row, SMILES and title for the hover and the picks, about
 * 150 bytes, and the answer must stay under the transport's 1 MiB. A larger points chart is sampled evenly (the
 * answer says so); a density chart sends its cells.
 */
const MAX_VIEW_POINTS = 4_000;

interface PlotViewResult {
  kind: Kind;
  mode: Chart["mode"];
  /** Marks sent: points, density cells or bars. */
  points: number;
  /** The points drawn before sampling, when the app gets a sample. */
  sampled_from?: number;
  spec: Record<string, unknown>;
  [k: string]: unknown;
}

type Layer = { data?: { values?: Array<Record<string, unknown>> }; encoding?: Record<string, Record<string, unknown>>; params?: unknown[] };

/**
 * The chart made interactive for the app, in place: its marks (the points, a density's cells or the bars) get a
 * tooltip of their fields, points get their row's identity (_row, SMILES, title), and the view pans and zooms
 * (an interval selection bound to the scales).
 */
function interactiveSpec(chart: Chart, read: Read, drawn: number[], smilesColumn: string | undefined): { points: number; sampledFrom?: number } {
  const spec = chart.spec as unknown as Layer & { layer?: Layer[] };
  const layers = spec.layer ?? [spec];
  // The marks' layer: the one with the most data values (the ellipses' outlines have 64 or so each).
  const marks = layers.reduce((a, b) => ((b.data?.values?.length ?? 0) > (a.data?.values?.length ?? 0) ? b : a));
  let values = marks.data?.values ?? [];
  let sampledFrom: number | undefined;
  if (chart.mode === "points" && values.length === drawn.length) {
    let picked = drawn.map((row, k) => ({ row, k }));
    if (picked.length > MAX_VIEW_POINTS) {
      sampledFrom = picked.length;
      const step = picked.length / MAX_VIEW_POINTS;
      picked = Array.from({ length: MAX_VIEW_POINTS }, (_, i) => picked[Math.floor(i * step)]!);
    }
    const rowIds = read.numeric.get("_row");
    const smiles = read.text.get(smilesColumn ?? "") ?? SMILES_COLUMNS.map((c) => read.text.get(c)).find((v) => v !== undefined);
    const titleColumn = ["title", "ID", "id", "name", "molecule_chembl_id"].find((c) => read.text.has(c) || read.numeric.has(c));
    values = picked.map(({ row, k }) => {
      const v: Record<string, unknown> = { ...values[k]! };
      if (rowIds) v._row = rowIds[row];
      if (smiles?.[row] != null) v.smiles = smiles[row];
      if (titleColumn) v.title = read.text.get(titleColumn)?.[row] ?? read.numeric.get(titleColumn)?.[row];
      return v;
    });
    marks.data = { values };
  }
  const fields = new Set(values.flatMap((v) => Object.keys(v)));
  const enc = marks.encoding ?? {};
  const tip = (field: string, title?: unknown) => ({ field, ...(typeof title === "string" ? { title } : {}) });
  const tooltip = [
    ...["x", "y"].filter((f) => fields.has(f)).map((f) => tip(f, enc[f]?.title)),
    ...(fields.has("x2") ? [tip("x2", "to")] : []),
    ...(fields.has("n") ? [tip("n", "rows")] : []),
    ...(fields.has("c") ? [tip("c", enc.color?.title)] : []),
    ...(fields.has("zone") ? [tip("zone")] : []),
    ...["title", "smiles", "_row"].filter((f) => fields.has(f)).map((f) => tip(f)),
  ];
  marks.encoding = { ...enc, tooltip: tooltip as unknown as Record<string, unknown> };
  marks.params = [...(marks.params ?? []), { name: "zoom", select: "interval", bind: "scales" }];
  return { points: values.length, ...(sampledFrom !== undefined ? { sampledFrom } : {}) };
}

/**
 * plot_view: the plot app's own tool (visibility app, never listed to a client without the extension): the same
 * chart the plot tool draws for the same arguments, as the Vega specification the server renders (compilePlot),
 * made interactive (interactiveSpec), for Vega's runtime in the app's frame.
 */
function createPlotViewTool(canvases: () => CanvasManager = getCanvasManager): ServiceTool<Args, PlotViewResult> {
  const plot = createPlotTool(canvases);
  return {
    kind: "service",
    toolset: "canvas",
    name: "plot_view",
    title: "plot, for the plot app",
    description: "For the plot app: the plot's Vega specification for the same arguments, each point with its row, SMILES and title; pans and zooms.",
    annotations: CANVAS_READ_ANNOTATIONS,
    ui: { resourceUri: PLOT_APP_URI, visibility: ["app"] },
    inputSchema: plot.inputSchema,
    outputSchema: {
      type: "object",
      properties: {
        kind: { type: "string", enum: [...KINDS], description: "Chart." },
        mode: { type: "string", enum: ["points", "density", "bars"], description: "What the marks are." },
        points: int("Marks sent (points, density cells or bars)."),
        sampled_from: int("Points drawn before an even sample was taken for the app."),
        spec: { type: "object", description: "The Vega specification (compiled from the plot's Vega-Lite), data inline." },
      },
      required: ["kind", "mode", "points", "spec"],
      additionalProperties: false,
    },
    errors: plot.errors,
    budgetMs: plot.budgetMs,
    progressBudgetMs: () => 300_000,
    content: (r) => [
      {
        type: "text",
        text: `The ${String(r.kind)} plot's Vega specification: ${String(r.points)} marks${r.sampled_from ? ` (an even sample of ${String(r.sampled_from)} points)` : ""}.`,
      },
    ],
    async run(args, ctx) {
      if (!(KINDS as readonly string[]).includes(args.kind)) {
        throw new ToolError("INVALID_ARGUMENTS", `Unknown kind ${String(args.kind)}`, { path: "/kind", kinds: [...KINDS] }, `Pass one of ${KINDS.join(", ")}.`);
      }
      const canvas = await canvasFor(canvases(), args.canvas_id, ctx);
      const { read, smilesColumn } = await readRows(canvas, args, ctx, true);
      const { chart, drawn } = await buildChart(args, read, smilesColumn, ctx);
      const { points, sampledFrom } = interactiveSpec(chart, read, drawn, smilesColumn);
      const spec = (await compilePlot(chart.spec, chart.area, chart.padding)) as unknown as Record<string, unknown>;
      return { kind: args.kind, mode: chart.mode, points, ...(sampledFrom !== undefined ? { sampled_from: sampledFrom } : {}), spec };
    },
  };
}

export const plotViewTool = createPlotViewTool();
