/**
 * The plot tool (issue 33, part 3) on 500 molecules of RDKit's NCI first_5K: every kind's PNG decoded here (no
 * image library) and checked for marks in the plot area and for its axis titles and title drawn as text (dark
 * pixels where only they can be, which a rendering with blank titles does not have); the BOILED-Egg's points at
 * the pixels the answer's domains give for the boiled_egg tool's own values, in their zone's colour, on the
 * drawn region (yolk, white or grey) the tool's gi_absorbed / bbb_penetrant say; the chemical-space PCA against
 * native RDKit's Morgan bits and numpy's SVD; and the typed errors.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { initCanvasManager, type CanvasManager } from "../../src/domain/canvas/manager.js";
import { newCanvasId } from "../../src/domain/canvas/ids.js";
import { plotTool } from "../../src/tools/plot.js";
import { boiledEggTool } from "../../src/tools/boiled_egg.js";
import { McpServer } from "../../src/server/server.js";
import { WorkerPool } from "../../src/server/pool.js";
import { silentLogger } from "../../src/logger.js";
import type { ToolOutcome } from "../../src/server/shape.js";
import { EGG_COLOURS, scatterChart } from "../../src/domain/plot/charts.js";
import { renderPlot } from "../../src/domain/plot/render.js";
import { fingerprintPca } from "../../src/domain/plot/pca.js";
import { eggEllipseOutline } from "../../src/domain/chem/boiled_egg.js";
import { testCanvasConfig } from "../helpers/canvas-config.js";
import { decodePng, type Decoded } from "../helpers/png.js";
import { NCI_FILE, sampleFile } from "../helpers/rdkit-data-sets.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../helpers/oracle.js";

type Row = Record<string, unknown>;
interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

const SMILES = sampleFile(NCI_FILE, 1).slice(0, 500);
const missing = SMILES.length < 500 ? `RDKit's data file ${NCI_FILE} is absent (Debian package rdkit-data)` : undefined;
let manager: CanvasManager;
let pool: WorkerPool;
let server: McpServer;
let canvasId: string;

async function call(name: string, args: Row): Promise<ToolOutcome> {
  return server.runTool(name, args, { signal: new AbortController().signal });
}

before(async () => {
  manager = initCanvasManager(testCanvasConfig());
  pool = new WorkerPool({ size: 2 });
  server = new McpServer({ tools: [plotTool, boiledEggTool], pool, info: { name: "test", version: "0" }, logger: silentLogger });
  if (missing) return;
  const { canvas } = await manager.stageOnNewCanvas(
    "mols",
    [
      { name: "id", type: "INTEGER", description: "Row." },
      { name: "smiles", type: "VARCHAR", description: "SMILES." },
      { name: "length", type: "DOUBLE", description: "SMILES length." },
      { name: "rings", type: "INTEGER", description: "Ring-closure digits." },
      { name: "series", type: "VARCHAR", description: "A label." },
    ],
    SMILES.map((s, i) => [i, s, s.length, (s.match(/\d/g) ?? []).length, i % 3 === 0 ? "A" : i % 3 === 1 ? "B" : "C"]),
    { source: { kind: "test" } },
  );
  canvasId = canvas.id;
});
after(async () => {
  await pool.close();
  await manager.close();
});

async function plot(args: Row): Promise<{ value: Row; img: Decoded }> {
  const outcome = await call("plot", { canvas_id: canvasId, ...args });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  const image = outcome.extra.find((b) => b.type === "image");
  assert.ok(image && image.type === "image" && image.mimeType === "image/png", "an image block");
  const img = decodePng(Buffer.from(image.data, "base64"));
  if (process.env.PLOT_DUMP)
    (await import("node:fs")).writeFileSync(`${process.env.PLOT_DUMP}/${String(args.kind)}-${Date.now()}.png`, Buffer.from(image.data, "base64"));
  assert.equal(img.width, outcome.value.width);
  assert.equal(img.height, outcome.value.height);
  assert.equal(Buffer.from(image.data, "base64").length, outcome.value.png_bytes);
  return { value: outcome.value, img };
}

function pixel(img: Decoded, x: number, y: number): [number, number, number] {
  const i = (Math.round(y) * img.width + Math.round(x)) * 4;
  return [img.pixels[i]!, img.pixels[i + 1]!, img.pixels[i + 2]!];
}

/** Pixels in a rectangle (clipped to the picture) that `keep` accepts. */
function countIn(img: Decoded, x0: number, y0: number, x1: number, y1: number, keep: (p: [number, number, number]) => boolean): number {
  let n = 0;
  for (let y = Math.max(0, Math.floor(y0)); y < Math.min(img.height, y1); y++)
    for (let x = Math.max(0, Math.floor(x0)); x < Math.min(img.width, x1); x++) if (keep(pixel(img, x, y))) n++;
  return n;
}

const dark = ([r, g, b]: [number, number, number]) => r < 90 && g < 90 && b < 90;
const notWhite = ([r, g, b]: [number, number, number]) => r < 245 || g < 245 || b < 245;

/**
 * Text where only the titles are: the x axis title under the tick labels, the y axis title left of them, the
 * chart title above the plot area. Dark pixels there come from glyphs (a picture whose text was not rendered,
 * e.g. for want of a font, has none; see the blank-titles comparison below).
 */
function titleInk(img: Decoded, area: Area): { x: number; y: number; title: number } {
  const cx = area.x + area.width / 2;
  const cy = area.y + area.height / 2;
  return {
    x: countIn(img, cx - 120, area.y + area.height + 28, cx + 120, area.y + area.height + 46, dark),
    y: countIn(img, 0, cy - 60, 22, cy + 60, dark),
    title: countIn(img, cx - 200, 0, cx + 200, area.y - 8, dark),
  };
}

function checkPicture(value: Row, img: Decoded): void {
  const area = value.plot_area as Area;
  const marks = countIn(img, area.x + 2, area.y + 2, area.x + area.width - 2, area.y + area.height - 2, notWhite);
  assert.ok(marks > area.width * area.height * 0.02, `marks in the plot area (${marks} non-white pixels)`);
  const ink = titleInk(img, area);
  assert.ok(ink.x > 40, `x axis title drawn (${ink.x} dark pixels)`);
  assert.ok(ink.y > 20, `y axis title drawn (${ink.y} dark pixels)`);
  assert.ok(ink.title > 60, `title drawn (${ink.title} dark pixels)`);
}

describe("plot on 500 NCI molecules", { skip: false }, () => {
  test("the title regions hold text only when titles are drawn (the check can fail)", async (t) => {
    if (missing) return skipOracle(t, missing);
    const x = Float64Array.from(SMILES, (s) => s.length);
    const y = Float64Array.from(SMILES, (s) => (s.match(/\d/g) ?? []).length);
    const draw = async (title: string) => {
      const chart = scatterChart({ x, y, xTitle: title, yTitle: title, title });
      const picture = await renderPlot(chart.spec, chart.area, chart.padding);
      return titleInk(decodePng(Buffer.from(picture.png)), picture.plotArea);
    };
    const titled = await draw("Some title text");
    const blank = await draw(" ");
    assert.deepEqual(blank, { x: 0, y: 0, title: 0 }, "no ink in the title regions without titles");
    assert.ok(titled.x > 40 && titled.y > 20 && titled.title > 60, JSON.stringify(titled));
  });

  test("scatter coloured by a column, and by a number; histogram", async (t) => {
    if (missing) return skipOracle(t, missing);
    const scatter = await plot({ table: "mols", kind: "scatter", x: "length", y: "rings", color: "series" });
    assert.equal(scatter.value.rows_plotted, 500);
    assert.equal(scatter.value.mode, "points");
    checkPicture(scatter.value, scatter.img);
    const numeric = await plot({ sql: "SELECT length, rings, id FROM mols WHERE id < 400", kind: "scatter", x: "length", y: "rings", color: "id" });
    assert.equal(numeric.value.rows_plotted, 400);
    checkPicture(numeric.value, numeric.img);
    const histogram = await plot({ table: "mols", kind: "histogram", x: "length", bins: 25 });
    assert.equal(histogram.value.bins, 25);
    assert.equal(histogram.value.mode, "bars");
    checkPicture(histogram.value, histogram.img);
    assert.deepEqual((histogram.value.x as { domain: number[] }).domain, [Math.min(...SMILES.map((s) => s.length)), Math.max(...SMILES.map((s) => s.length))]);
  });

  test("boiled_egg: each point where the boiled_egg tool's values put it, in its zone's colour, on the region its flags say", async (t) => {
    if (missing) return skipOracle(t, missing);
    const { value, img } = await plot({ table: "mols", kind: "boiled_egg" });
    checkPicture(value, img);
    // The boiled_egg tool itself, 100 molecules a call (its answer for 500 is cut to what a host takes).
    const results: Array<Row | null> = [];
    for (let start = 0; start < SMILES.length; start += 100) {
      const egg = await call("boiled_egg", { smiles_list: SMILES.slice(start, start + 100), fields: ["tpsa_sp", "logp", "gi_absorbed", "bbb_penetrant"] });
      assert.ok(egg.ok, JSON.stringify(egg));
      const items = egg.value.results as Row[];
      assert.equal(items.length, Math.min(100, SMILES.length - start), "every entry answered");
      for (const item of items) results.push(item.error !== undefined ? null : (item.result as Row));
    }
    const ok = results.filter((r) => r !== null && typeof r.tpsa_sp === "number") as Row[];
    assert.equal(value.rows_plotted, ok.length);
    const zones = value.zones as Record<string, number>;
    assert.equal(zones.yolk, ok.filter((r) => r.bbb_penetrant).length);
    assert.equal(zones.white, ok.filter((r) => r.gi_absorbed && !r.bbb_penetrant).length);
    const area = value.plot_area as Area;
    const [x0, x1] = (value.x as { domain: [number, number] }).domain;
    const [y0, y1] = (value.y as { domain: [number, number] }).domain;
    const px = (tpsa: number) => area.x + ((tpsa - x0) / (x1 - x0)) * area.width;
    const py = (wlogp: number) => area.y + ((y1 - wlogp) / (y1 - y0)) * area.height;
    const at = ok.map((r) => [px(r.tpsa_sp as number), py(r.logp as number)] as const);
    const outlines = (["white", "yolk"] as const).map((w) => eggEllipseOutline(w, 720).map((p) => [px(p.tpsa), py(p.wlogp)] as const));
    const hex = (h: string) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16));
    const near = (p: number[], q: number[], tol: number) => p.every((v, k) => Math.abs(v - q[k]!) <= tol);
    const regions = { grey: hex(EGG_COLOURS.background), white: hex(EGG_COLOURS.whiteFill), yolk: hex(EGG_COLOURS.yolkFill) };
    const regionOf = (p: number[]) => Object.entries(regions).sort((a, b) => dist2(a[1], p) - dist2(b[1], p))[0]![0];
    let coloured = 0;
    let placed = 0;
    ok.forEach((r, i) => {
      const [x, y] = at[i]!;
      // Points whose centre no other point's disc (radius about 3.1 px, antialiased) covers: centres 5 px apart or more.
      const closest = Math.min(...at.map(([u, v], j) => (j === i ? Infinity : (u - x) ** 2 + (v - y) ** 2)));
      if (closest < 25) return;
      const zone = r.bbb_penetrant ? "yolk" : r.gi_absorbed ? "white" : "grey";
      const centre = pixel(img, x, y);
      assert.ok(near(centre, hex(EGG_COLOURS.points[zone]), 12), `molecule ${i} (${zone}) at (${x.toFixed(1)}, ${y.toFixed(1)}) is ${centre}`);
      coloured++;
      // The region under it, read on a ring of 6 px around the point, where no other point is near (9 px) and 7 px or
      // more from the drawn outlines (a majority of the ring's 12 pixels decides).
      if (closest < 81 || outlines.some((o) => o.some(([u, v]) => (u - x) ** 2 + (v - y) ** 2 < 49))) return;
      const votes = new Map<string, number>();
      for (let k = 0; k < 12; k++) {
        const a = (k * Math.PI) / 6;
        const region = regionOf(pixel(img, x + 6 * Math.cos(a), y + 6 * Math.sin(a)));
        votes.set(region, (votes.get(region) ?? 0) + 1);
      }
      const region = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]![0];
      if (region === "yolk") assert.equal(r.bbb_penetrant, true, `molecule ${i} drawn in the yolk`);
      else assert.equal(r.bbb_penetrant, false, `molecule ${i} drawn outside the yolk`);
      if (region === "white") assert.equal(r.gi_absorbed, true, `molecule ${i} drawn in the white`);
      if (region === "grey") assert.equal(r.gi_absorbed, false, `molecule ${i} drawn in the grey`);
      placed++;
    });
    t.diagnostic(`${coloured} isolated points checked for colour, ${placed} for the region under them`);
    assert.ok(coloured > 100, `isolated points checked for colour: ${coloured}`);
    assert.ok(placed >= 30, `isolated points checked for their region: ${placed}`);
  });

  test("chemical_space: the PCA equals numpy's SVD of native RDKit's Morgan bits", async (t) => {
    if (missing) return skipOracle(t, missing);
    const noNative = await nativeRDKitMissing("import rdkit, numpy");
    if (noNative) return skipOracle(t, noNative);
    const { value, img } = await plot({ table: "mols", kind: "chemical_space", color: "series" });
    checkPicture(value, img);
    const program = `
import sys, json, numpy as np
from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem
RDLogger.DisableLog("rdApp.*")
rows = []
for line in sys.stdin.read().split("\\n"):
    if not line: continue
    m = Chem.MolFromSmiles(line)
    rows.append(None if m is None else list(AllChem.GetMorganFingerprintAsBitVect(m, 2, nBits=2048).GetOnBits()))
kept = [r for r in rows if r is not None]
X = np.zeros((len(kept), 2048))
for i, r in enumerate(kept): X[i, r] = 1
Xc = X - X.mean(axis=0)
U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
coords = []
for k in range(2):
    v = Vt[k]
    a = int(np.argmax(np.abs(v)))
    if v[a] < 0: v = -v
    coords.append((Xc @ v).tolist())
print(json.dumps({"bits": rows, "coords": coords, "ratio": (S[:2] ** 2 / np.sum(S ** 2)).tolist()}))
`;
    const native = JSON.parse(await oracleOutput({ program }, { input: SMILES.join("\n") })) as {
      bits: Array<number[] | null>;
      coords: number[][];
      ratio: number[];
    };
    const kept = native.bits.filter((b): b is number[] => b !== null);
    assert.equal(value.rows_plotted, kept.length, "the molecules native RDKit reads are those plotted");
    const ours = fingerprintPca(kept, 2048);
    let worst = 0;
    kept.forEach((_, i) => {
      for (let k = 0; k < 2; k++) worst = Math.max(worst, Math.abs(ours.coordinates[2 * i + k]! - native.coords[k]![i]!));
    });
    // Coordinates are of order 1 (a few bits' worth of loading): agreement to 1e-8 is working precision for both.
    assert.ok(worst < 1e-8, `largest coordinate difference ${worst}`);
    for (let k = 0; k < 2; k++) assert.ok(Math.abs(ours.explainedVarianceRatio[k]! - native.ratio[k]!) < 1e-10);
    // The tool's own answer (its ECFP4 from MinimalLib, bit-identical to native's) gives the same ratios.
    const ev = value.explained_variance as number[];
    for (let k = 0; k < 2; k++) assert.ok(Math.abs(ev[k]! - native.ratio[k]!) < 1e-4, `explained variance ${k}: ${ev[k]} against ${native.ratio[k]}`);
  });

  test("typed errors: unknown column, non-numeric axis, no rows, both table and sql, unknown canvas, wrong arguments for the kind", async (t) => {
    if (missing) return skipOracle(t, missing);
    const expect = async (args: Row, code: string, pattern: RegExp) => {
      const outcome = await call("plot", { canvas_id: canvasId, ...args });
      assert.ok(!outcome.ok, JSON.stringify(args));
      assert.equal(outcome.error.code, code, JSON.stringify(outcome.error));
      assert.match(`${outcome.error.message} ${outcome.error.hint}`, pattern);
      assert.ok(outcome.error.hint, "a hint");
    };
    await expect({ table: "mols", kind: "scatter", x: "length", y: "nope" }, "INVALID_ARGUMENTS", /no column nope/);
    await expect({ table: "mols", kind: "scatter", x: "series", y: "length" }, "INVALID_ARGUMENTS", /series is not numeric/);
    await expect({ sql: "SELECT smiles AS s, length FROM mols", kind: "histogram", x: "s" }, "INVALID_ARGUMENTS", /s is not numeric/);
    await expect({ sql: "SELECT length FROM mols WHERE id < 0", kind: "histogram", x: "length" }, "INVALID_ARGUMENTS", /no rows/);
    await expect({ table: "mols", sql: "SELECT 1", kind: "histogram", x: "length" }, "INVALID_ARGUMENTS", /not both/);
    await expect({ table: "mols", kind: "scatter", x: "length" }, "INVALID_ARGUMENTS", /needs y/);
    await expect({ table: "mols", kind: "boiled_egg", color: "series" }, "INVALID_ARGUMENTS", /does not take color/);
    await expect({ table: "nope", kind: "histogram", x: "length" }, "INVALID_ARGUMENTS", /No table nope/);
    await expect({ sql: "DELETE FROM mols", kind: "histogram", x: "length" }, "QUERY_REFUSED", /./);
    await expect({ sql: "SELECT CAST(NULL AS DOUBLE) AS v FROM mols", kind: "histogram", x: "v" }, "INVALID_ARGUMENTS", /every row was skipped/);
    const unknown = await call("plot", { canvas_id: newCanvasId(manager.origin), table: "mols", kind: "histogram", x: "length" });
    assert.ok(!unknown.ok);
    assert.equal(unknown.error.code, "CANVAS_NOT_FOUND");
  });
});

function dist2(a: number[], b: number[]): number {
  return a.reduce((s, v, k) => s + (v - b[k]!) ** 2, 0);
}
