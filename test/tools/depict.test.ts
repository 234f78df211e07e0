/**
 * depict: the PNG decodes (signature, IHDR, IDAT inflated with node:zlib and unfiltered here, no image
 * library) at the asked size and is not blank; SMARTS highlighting paints highlight-coloured pixels; SVG
 * comes back as text; over the wire the picture is an image content block while structuredContent stays
 * a small summary, in both protocol eras.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
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
import { countPixels, decodePng } from "../helpers/png.js";

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
