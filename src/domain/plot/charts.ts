/**
 * The plot tool's four charts as Vega-Lite specifications, from values the tool has already read and computed:
 * a scatter (coloured by a column), a histogram, the BOILED-Egg (its published ellipses, points coloured by
 * zone) and a chemical-space map (two principal components). The data is reduced here, not in Vega: histogram
 * bins are counted, and above MAX_POINTS_DRAWN points a scatter becomes a binned density (a heat map of rows per
 * cell), so a picture of 100,000 rows costs about what one of 10,000 does. Every scale's domain is set here
 * (never "nice"d by Vega), so the answer can report where a value lands.
 */
import type { TopLevelSpec } from "vega-lite";
import { eggEllipseOutline, type EggZone } from "../chem/boiled_egg.js";
import { PLOT_FONT, type PlotArea } from "./render.js";

/**
 * Points drawn one by one at most; above it a scatter is drawn as a density of DENSITY_COLUMNS x DENSITY_ROWS
 * cells. bench/plot.ts: 10,000 circles make a 3 MB SVG in about 0.4 s of main-thread time, 100,000 a 30 MB one
 * in 3-4 s; the density's few thousand cells take about 0.1 s whatever the rows.
 */
export const MAX_POINTS_DRAWN = 10_000;
const DENSITY_COLUMNS = 104;
const DENSITY_ROWS = 72;
/** Categories a nominal colour shows; the rest are drawn as "other". */
const MAX_CATEGORIES = 10;
export const DEFAULT_BINS = 30;

/** The plot area and margins: about 700 x 450 pixels, legible at the size a chat shows an image. */
const AREA: PlotArea = { x: 72, y: 36, width: 520, height: 360 };
const BOTTOM = 48;
const RIGHT_PLAIN = 24;
const RIGHT_LEGEND = 170;

/** Zone colours of the BOILED-Egg: the regions (grey background, white and yolk ellipses) and the points in them. */
export const EGG_COLOURS = {
  background: "#d4d4d4",
  whiteFill: "#ffffff",
  yolkFill: "#ffd966",
  points: { yolk: "#b2182b", white: "#2166ac", grey: "#1a1a1a" } as Record<EggZone, string>,
};
const ZONE_LABELS: Record<EggZone, string> = { yolk: "yolk (BBB)", white: "white (GI)", grey: "grey" };

export interface Chart {
  spec: TopLevelSpec;
  area: PlotArea;
  padding: { right: number; bottom: number };
  xDomain: [number, number];
  yDomain: [number, number];
  /** points: each row a circle; density: rows counted per cell; bars: a histogram. */
  mode: "points" | "density" | "bars";
}

/** A column's values to colour by: numbers (a continuous scale) or labels (at most MAX_CATEGORIES, the rest "other"). */
export type ColourValues = { kind: "quantitative"; values: Float64Array } | { kind: "nominal"; values: string[] };

export interface XYData {
  x: Float64Array;
  y: Float64Array;
  xTitle: string;
  yTitle: string;
  title: string;
  colour?: ColourValues;
  colourTitle?: string;
}

/** [min, max] of the values widened by 2% and rounded out to a round step (a span of 0 becomes ±1). */
function niceDomain(values: ArrayLike<number>, include: readonly number[] = []): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  for (const v of include) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi === lo) return [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.02;
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 5));
  return [Math.floor((lo - pad) / step) * step, Math.ceil((hi + pad) / step) * step];
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

function baseConfig(): Record<string, unknown> {
  return {
    font: PLOT_FONT,
    title: { fontSize: 15 },
    axis: { labelFontSize: 12, titleFontSize: 13, labelColor: "#222", titleColor: "#000" },
    // The y title at a fixed place (its centre line 14 px from the picture's left edge), not after the labels' estimated width.
    axisY: { titleX: 14 - AREA.x },
    legend: { labelFontSize: 12, titleFontSize: 12, labelLimit: 200 },
  };
}

function axis(field: string, title: string, domain: [number, number]): Record<string, unknown> {
  return { field, type: "quantitative", title, scale: { domain, nice: false, zero: false } };
}

/** The most frequent labels (ties in label order), the others relabelled "other". */
function topCategories(values: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size <= MAX_CATEGORIES) return values as string[];
  const kept = new Set(
    [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_CATEGORIES - 1)
      .map(([k]) => k),
  );
  return values.map((v) => (kept.has(v) ? v : "other"));
}

/** Rows per cell of a DENSITY_COLUMNS x DENSITY_ROWS grid over the domains: the non-empty cells. */
function densityCells(x: Float64Array, y: Float64Array, xd: [number, number], yd: [number, number]): Array<Record<string, number>> {
  const counts = new Uint32Array(DENSITY_COLUMNS * DENSITY_ROWS);
  const sx = DENSITY_COLUMNS / (xd[1] - xd[0]);
  const sy = DENSITY_ROWS / (yd[1] - yd[0]);
  for (let i = 0; i < x.length; i++) {
    const cx = Math.min(DENSITY_COLUMNS - 1, Math.max(0, Math.floor((x[i]! - xd[0]) * sx)));
    const cy = Math.min(DENSITY_ROWS - 1, Math.max(0, Math.floor((y[i]! - yd[0]) * sy)));
    counts[cy * DENSITY_COLUMNS + cx]!++;
  }
  const cells: Array<Record<string, number>> = [];
  counts.forEach((n, k) => {
    if (n === 0) return;
    const cx = k % DENSITY_COLUMNS;
    const cy = Math.floor(k / DENSITY_COLUMNS);
    cells.push({ x: xd[0] + cx / sx, x2: xd[0] + (cx + 1) / sx, y: yd[0] + cy / sy, y2: yd[0] + (cy + 1) / sy, n });
  });
  return cells;
}

function densityLayer(data: XYData, xd: [number, number], yd: [number, number]): Record<string, unknown> {
  return {
    data: { values: densityCells(data.x, data.y, xd, yd) },
    mark: { type: "rect", opacity: 0.9 },
    encoding: {
      x: axis("x", data.xTitle, xd),
      x2: { field: "x2" },
      y: axis("y", data.yTitle, yd),
      y2: { field: "y2" },
      color: { field: "n", type: "quantitative", title: "rows per cell", scale: { type: "log", scheme: "viridis" } },
    },
  };
}

/** A scatter of x against y, each row a circle coloured by `colour`, or a density above MAX_POINTS_DRAWN rows. */
export function scatterChart(data: XYData, extra: { xInclude?: number[]; yInclude?: number[] } = {}): Chart {
  const xd = niceDomain(data.x, extra.xInclude);
  const yd = niceDomain(data.y, extra.yInclude);
  const n = data.x.length;
  if (n > MAX_POINTS_DRAWN) {
    return {
      spec: { title: data.title, config: baseConfig(), ...densityLayer(data, xd, yd) } as unknown as TopLevelSpec,
      area: AREA,
      padding: { right: RIGHT_LEGEND, bottom: BOTTOM },
      xDomain: xd,
      yDomain: yd,
      mode: "density",
    };
  }
  const colour = data.colour;
  const labels = colour?.kind === "nominal" ? topCategories(colour.values) : undefined;
  const values = Array.from({ length: n }, (_, i) => {
    const row: Record<string, number | string> = { x: round(data.x[i]!), y: round(data.y[i]!) };
    if (colour?.kind === "quantitative") row.c = round(colour.values[i]!);
    else if (labels) row.c = labels[i]!;
    return row;
  });
  const encoding: Record<string, unknown> = { x: axis("x", data.xTitle, xd), y: axis("y", data.yTitle, yd) };
  if (colour) {
    encoding.color =
      colour.kind === "quantitative"
        ? { field: "c", type: "quantitative", title: data.colourTitle, scale: { scheme: "viridis" } }
        : { field: "c", type: "nominal", title: data.colourTitle, scale: { scheme: "category10" } };
  }
  return {
    spec: {
      title: data.title,
      config: baseConfig(),
      data: { values },
      mark: { type: "circle", size: 22, opacity: 0.75 },
      encoding,
    } as unknown as TopLevelSpec,
    area: AREA,
    padding: { right: colour ? RIGHT_LEGEND : RIGHT_PLAIN, bottom: BOTTOM },
    xDomain: xd,
    yDomain: yd,
    mode: "points",
  };
}

export interface Histogram {
  chart: Chart;
  /** Bin edges, bins + 1 of them. */
  edges: number[];
  counts: number[];
}

/** A histogram of `values` in `bins` equal bins from their minimum to their maximum. */
export function histogramChart(values: Float64Array, bins: number, xTitle: string, title: string): Histogram {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi === lo) {
    lo -= 0.5;
    hi += 0.5;
  }
  const width = (hi - lo) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]!++;
  const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? hi : lo + i * width));
  const yd: [number, number] = [0, Math.max(1, Math.ceil(Math.max(...counts) * 1.05))];
  const xd: [number, number] = [lo, hi];
  const spec = {
    title,
    config: baseConfig(),
    data: { values: counts.map((n, i) => ({ x: edges[i]!, x2: edges[i + 1]!, n })) },
    mark: { type: "rect", color: "#4c78a8", stroke: "white", strokeWidth: 0.5 },
    encoding: { x: axis("x", xTitle, xd), x2: { field: "x2" }, y: axis("n", "rows", yd) },
  } as unknown as TopLevelSpec;
  return { chart: { spec, area: AREA, padding: { right: RIGHT_PLAIN, bottom: BOTTOM }, xDomain: xd, yDomain: yd, mode: "bars" }, edges, counts };
}

/**
 * The BOILED-Egg: the grey plane, the white (GI) and yolk (BBB) ellipses as published, and each molecule at
 * (TPSA with S and P, WLOGP) coloured by its zone. Above MAX_POINTS_DRAWN molecules the points become a density
 * drawn under the ellipses' outlines.
 */
export function boiledEggChart(tpsa: Float64Array, wlogp: Float64Array, zones: readonly EggZone[], title: string): Chart {
  const white = eggEllipseOutline("white");
  const yolk = eggEllipseOutline("yolk");
  const outline = [...white, ...yolk];
  const xd = niceDomain(tpsa, [Math.min(...outline.map((p) => p.tpsa)), Math.max(...outline.map((p) => p.tpsa))]);
  const yd = niceDomain(wlogp, [Math.min(...outline.map((p) => p.wlogp)), Math.max(...outline.map((p) => p.wlogp))]);
  const xTitle = "TPSA (Å², with S and P)";
  const yTitle = "WLOGP";
  const ellipse = (points: typeof white, fill: string | null) => ({
    data: { values: points.map((p, i) => ({ x: round(p.tpsa), y: round(p.wlogp), i })) },
    mark: fill === null ? { type: "line", stroke: "#555", strokeWidth: 1.5 } : { type: "line", filled: true, fill, stroke: "#888", strokeWidth: 1 },
    encoding: { x: axis("x", xTitle, xd), y: axis("y", yTitle, yd), order: { field: "i", type: "quantitative" } },
  });
  const dense = tpsa.length > MAX_POINTS_DRAWN;
  const order: EggZone[] = ["yolk", "white", "grey"];
  const layers = dense
    ? [densityLayer({ x: tpsa, y: wlogp, xTitle, yTitle, title }, xd, yd), ellipse(white, null), ellipse(yolk, null)]
    : [
        ellipse(white, EGG_COLOURS.whiteFill),
        ellipse(yolk, EGG_COLOURS.yolkFill),
        {
          data: { values: Array.from(tpsa, (x, i) => ({ x: round(x), y: round(wlogp[i]!), zone: ZONE_LABELS[zones[i]!] })) },
          mark: { type: "circle", size: 30, opacity: 1 },
          encoding: {
            x: axis("x", xTitle, xd),
            y: axis("y", yTitle, yd),
            color: {
              field: "zone",
              type: "nominal",
              title: "zone",
              scale: { domain: order.map((z) => ZONE_LABELS[z]), range: order.map((z) => EGG_COLOURS.points[z]) },
            },
          },
        },
      ];
  const spec = {
    title,
    config: { ...baseConfig(), view: { fill: EGG_COLOURS.background, stroke: null } },
    layer: layers,
  } as unknown as TopLevelSpec;
  return { spec, area: AREA, padding: { right: RIGHT_LEGEND, bottom: BOTTOM }, xDomain: xd, yDomain: yd, mode: dense ? "density" : "points" };
}
