/**
 * depict: the PNG decodes (signature, IHDR, IDAT inflated with node:zlib and unfiltered here, no image
 * library) at the asked size and is not blank; SMARTS highlighting paints highlight-coloured pixels; SVG
 * comes back as text; over the wire the picture is an image content block while structuredContent stays
 * a small summary, in both protocol eras.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { inflateSync } from "node:zlib";
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { depictTool } from "../../src/tools/depict.js";
import { EXTRA_CONTENT_KEY, type ContentBlock } from "../../src/contract/tool.js";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { splitExtraContent } from "../../src/server/shape.js";
import { CLI_PATH, MODERN_META, ServerProcess } from "../helpers/server-process.js";

interface Decoded {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel. */
  pixels: Uint8Array;
}

/** A minimal PNG decoder for 8-bit RGB/RGBA/grey(+alpha) non-interlaced images (what resvg writes). */
function decodePng(png: Buffer): Decoded {
  assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  let offset = 8;
  let width = 0;
  let height = 0;
  let colourType = -1;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, "8 bits per channel");
      colourType = data[9]!;
      assert.equal(data[12], 0, "not interlaced");
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      sawEnd = true;
    }
    offset += 12 + length;
  }
  assert.ok(sawEnd, "IEND chunk");
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colourType];
  assert.ok(channels !== undefined, `supported colour type (${colourType})`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  assert.equal(raw.length, height * (stride + 1), "inflated size matches IHDR");
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? cur[i - channels]! : 0;
      const b = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      let v = line[i]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else assert.equal(filter, 0, "known filter type");
      cur[i] = v & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const s = x * channels;
      const d = (y * width + x) * 4;
      const grey = channels <= 2;
      out[d] = cur[s]!;
      out[d + 1] = grey ? cur[s]! : cur[s + 1]!;
      out[d + 2] = grey ? cur[s]! : cur[s + 2]!;
      out[d + 3] = channels === 4 ? cur[s + 3]! : channels === 2 ? cur[s + 1]! : 255;
    }
    prev = cur;
  }
  return { width, height, pixels: out };
}

function countPixels(img: Decoded, keep: (r: number, g: number, b: number, a: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < img.pixels.length; i += 4) if (keep(img.pixels[i]!, img.pixels[i + 1]!, img.pixels[i + 2]!, img.pixels[i + 3]!)) n++;
  return n;
}

const notWhite = (r: number, g: number, b: number, a: number) => a > 0 && (r < 250 || g < 250 || b < 250);
/** RDKit's default highlight colour is (1, 0.5, 0.5): a light red no atom or bond colour uses. */
const highlightRed = (r: number, g: number, b: number) => r > 240 && g > 110 && g < 145 && b > 110 && b < 145;

type DepictOutput = Record<string, unknown> & { [EXTRA_CONTENT_KEY]?: ContentBlock[] };

function png(out: DepictOutput): Buffer {
  const blocks = out[EXTRA_CONTENT_KEY];
  assert.ok(Array.isArray(blocks) && blocks.length === 1, "one extra content block");
  const block = blocks[0]!;
  assert.equal(block.type, "image");
  assert.equal((block as { mimeType: string }).mimeType, "image/png");
  return Buffer.from((block as { data: string }).data, "base64");
}

test("depict PNG decodes at the asked size and is not blank; highlighting paints highlight-coloured pixels", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress() {} };
  for (const [width, height] of [
    [400, 300],
    [100, 100],
    [1200, 800],
  ] as const) {
    const out = depictTool.run({ smiles: "CC(=O)Oc1ccccc1C(=O)O", width, height }, ctx) as DepictOutput;
    const bytes = png(out);
    assert.equal(out.byte_length, bytes.length);
    assert.equal(out.mime_type, "image/png");
    const img = decodePng(bytes);
    assert.deepEqual([img.width, img.height], [width, height]);
    const ink = countPixels(img, notWhite);
    const share = ink / (width * height);
    assert.ok(share > 0.005 && share < 0.5, `${width}x${height}: ${ink} drawn pixels (${(100 * share).toFixed(2)}%)`);
  }
  // Anti-aliased edges of red O labels hit the highlight colour too, so compare the two pictures.
  const plain = decodePng(png(depictTool.run({ smiles: "CC(=O)Oc1ccccc1C(=O)O" }, ctx)));
  const highlighted = depictTool.run({ smiles: "CC(=O)Oc1ccccc1C(=O)O", highlight_smarts: "C(=O)[OX2H1]" }, ctx) as DepictOutput;
  assert.deepEqual(highlighted.highlight, { smarts: "C(=O)[OX2H1]", match_count: 1, atoms: [10, 11, 12], bonds: [10, 11] });
  const img = decodePng(png(highlighted));
  const [before, after] = [countPixels(plain, highlightRed), countPixels(img, highlightRed)];
  assert.ok(after > 1000 && after > 10 * before, `the carboxylic acid is highlighted (${after} highlight-coloured pixels, ${before} without)`);
  const none = depictTool.run({ smiles: "c1ccccc1", highlight_smarts: "[N]" }, ctx) as DepictOutput;
  assert.deepEqual(none.highlight, { smarts: "[N]", match_count: 0, atoms: [], bonds: [] });
});

test("depict SVG comes back as text in the result; bad SMARTS and SMILES are typed errors", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress() {} };
  const out = depictTool.run(
    { smiles: "C[C@H](N)C(=O)O", format: "svg", width: 250, height: 200, legend: "L-alanine", stereo_annotation: true },
    ctx,
  ) as DepictOutput;
  assert.equal(out[EXTRA_CONTENT_KEY], undefined, "no image block for SVG");
  assert.equal(out.mime_type, "image/svg+xml");
  const svg = out.svg as string;
  assert.match(svg, /<svg[^>]*width='250px' height='200px'/);
  assert.equal(out.byte_length, Buffer.byteLength(svg));
  assert.match(svg, /class='legend'/);
  assert.throws(
    () => depictTool.run({ smiles: "CCO", highlight_smarts: "[C" }, ctx),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_SMARTS" && e.details.argument === "highlight_smarts",
  );
  assert.throws(
    () => depictTool.run({ smiles: "C1CC" }, ctx),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_SMILES",
  );
  assert.throws(
    () => depictTool.run({ smiles: Array(1001).fill("C").join(".") }, ctx),
    (e: unknown) => e instanceof ToolError && e.code === "MOLECULE_TOO_LARGE" && e.details.max_atoms === 1000,
  );
});

test("over the wire, depict answers an image block after the JSON text block, and structuredContent stays small", async () => {
  const s = new ServerProcess();
  try {
    s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { _meta: MODERN_META, name: "depict", arguments: { smiles: "c1ccc2ccccc2c1O", width: 300, height: 200 } },
    });
    const modern = (await s.response(1, 60_000)).result as { content: ContentBlock[]; structuredContent: Record<string, unknown> };
    assert.equal(modern.content.length, 2);
    assert.equal(modern.content[0]!.type, "text");
    assert.deepEqual(JSON.parse((modern.content[0] as { text: string }).text), modern.structuredContent);
    const image = modern.content[1] as { type: string; data: string; mimeType: string };
    assert.equal(image.type, "image");
    assert.equal(image.mimeType, "image/png");
    const decoded = decodePng(Buffer.from(image.data, "base64"));
    assert.deepEqual([decoded.width, decoded.height], [300, 200]);
    assert.equal(modern.structuredContent[EXTRA_CONTENT_KEY], undefined, "the image is not in structuredContent");
    assert.ok(JSON.stringify(modern.structuredContent).length < 1000, "structuredContent is a small summary");
  } finally {
    await s.close();
  }
  // A connection keeps one era: the legacy dialect gets its own process.
  const legacyServer = new ServerProcess();
  try {
    await legacyServer.request(2, "initialize", { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } });
    legacyServer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const legacy = (await legacyServer.request(3, "tools/call", { name: "depict", arguments: { smiles: "CCO" } }, 60_000)).result as {
      content: ContentBlock[];
      structuredContent?: unknown;
    };
    assert.deepEqual(
      legacy.content.map((b) => b.type),
      ["text", "image"],
      "2024-11-05 has ImageContent too",
    );
    assert.equal(legacy.structuredContent, undefined);
  } finally {
    await legacyServer.close();
  }
});

test("the official MCP clients (v1 legacy, v2 2026-07-28) accept depict's image block and its structuredContent", async () => {
  const env = { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "warn" } as Record<string, string>;
  const legacy = new LegacyClient({ name: "depict-legacy", version: "1.0.0" });
  await legacy.connect(new LegacyStdio({ command: process.execPath, args: [CLI_PATH], env, stderr: "pipe" }));
  try {
    const r = await legacy.callTool({ name: "depict", arguments: { smiles: "CCO", width: 120, height: 100 } });
    const blocks = r.content as ContentBlock[];
    assert.deepEqual(
      blocks.map((b) => b.type),
      ["text", "image"],
    );
    assert.equal((r.structuredContent as { width: number }).width, 120);
  } finally {
    await legacy.close();
  }
  const modern = new ModernClient({ name: "depict-modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await modern.connect(new ModernStdio({ command: process.execPath, args: [CLI_PATH], env, stderr: "pipe" }));
  try {
    const r = await modern.callTool({ name: "depict", arguments: { smiles: "CCO", format: "svg" } });
    assert.deepEqual(
      (r.content as ContentBlock[]).map((b) => b.type),
      ["text"],
    );
    assert.match((r.structuredContent as { svg: string }).svg, /^<\?xml/);
  } finally {
    await modern.close();
  }
});

test("the server takes extra content blocks out of a result and refuses malformed ones", () => {
  const image: ContentBlock = { type: "image", data: "AAAA", mimeType: "image/png" };
  assert.deepEqual(splitExtraContent({ a: 1, [EXTRA_CONTENT_KEY]: [image] }), { value: { a: 1 }, extra: [image] });
  assert.deepEqual(splitExtraContent({ a: 1 }), { value: { a: 1 }, extra: [] });
  assert.equal(splitExtraContent({ a: 1, [EXTRA_CONTENT_KEY]: [{ type: "image", data: 3 }] }), null);
  assert.equal(splitExtraContent({ a: 1, [EXTRA_CONTENT_KEY]: "not a list" }), null);
});
