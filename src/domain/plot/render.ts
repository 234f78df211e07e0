/**
 * A plot's picture: a Vega-Lite specification compiled to Vega, run headless (renderer "none") to an SVG string,
 * then rasterised by resvg (as depict does). Vega writes axis labels and titles as SVG <text>, so the rasteriser
 * needs a font: the server ships one (Inter, SIL Open Font License 1.1, from the @expo-google-fonts/inter
 * package: regular and bold) and resvg loads that font only, never the machine's, so a plot reads the same on
 * a bare Debian image without fonts as on a desktop.
 *
 * The layout is fixed, not fitted ("autosize none"): the plot area is exactly width x height pixels, placed at
 * (padding.left, padding.top) in the picture, so a point's pixel follows from the scales' domains alone (the
 * answer reports both, and the tests place points with them).
 */
import { createRequire } from "node:module";
import type { TopLevelSpec } from "vega-lite";

export interface PlotArea {
  /** The plot area's left edge in the picture, pixels. */
  x: number;
  /** Its top edge. */
  y: number;
  width: number;
  height: number;
}

export interface PlotPicture {
  png: Uint8Array;
  svg: string;
  width: number;
  height: number;
  plotArea: PlotArea;
}

/** The font every plot is written and rasterised in. */
export const PLOT_FONT = "Inter";
const FONT_FILES = ["@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf", "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf"];

interface Modules {
  vega: typeof import("vega");
  vegaLite: typeof import("vega-lite");
  resvg: typeof import("@resvg/resvg-js");
  fontFiles: string[];
}

let modules: Promise<Modules> | undefined;

/** Vega, Vega-Lite and resvg, loaded on the first plot (a server that never plots never loads them). */
function load(): Promise<Modules> {
  modules ??= (async () => {
    const require = createRequire(import.meta.url);
    const [vega, vegaLite] = await Promise.all([import("vega"), import("vega-lite")]);
    const resvg = require("@resvg/resvg-js") as typeof import("@resvg/resvg-js");
    return { vega, vegaLite, resvg, fontFiles: FONT_FILES.map((f) => require.resolve(f)) };
  })();
  return modules;
}

/**
 * `spec` framed as every plot is (the plot area's size, the margins, a white background) and compiled to Vega: what
 * renderPlot draws, and what the plot app runs in the browser (tools/plot.ts's plot_view).
 */
export async function compilePlot(spec: TopLevelSpec, area: PlotArea, padding: { right: number; bottom: number }): Promise<import("vega").Spec> {
  const { vegaLite } = await load();
  const full = {
    ...spec,
    width: area.width,
    height: area.height,
    autosize: { type: "none", contains: "content" },
    padding: { left: area.x, top: area.y, right: padding.right, bottom: padding.bottom },
    background: "white",
  } as TopLevelSpec;
  return vegaLite.compile(full).spec;
}

/**
 * Draws `spec` (its width, height and padding are the plot area and the margins around it) as SVG and PNG. The
 * SVG is made on the calling thread (Vega is JavaScript); the rasterisation runs on libuv's thread pool.
 */
export async function renderPlot(spec: TopLevelSpec, area: PlotArea, padding: { right: number; bottom: number }): Promise<PlotPicture> {
  const { vega, resvg, fontFiles } = await load();
  const compiled = await compilePlot(spec, area, padding);
  const view = new vega.View(vega.parse(compiled), { renderer: "none", logLevel: vega.Error });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  const rendered = await resvg.renderAsync(svg, {
    font: { loadSystemFonts: false, fontFiles, defaultFontFamily: PLOT_FONT, sansSerifFamily: PLOT_FONT },
  });
  return { png: rendered.asPng(), svg, width: rendered.width, height: rendered.height, plotArea: area };
}
