/**
 * The command line for people: `call <tool> '<json>' --out FILE` (the option before or after the arguments)
 * writes the picture an answer carries (depict's PNG image block, or its SVG markup) to FILE and prints the rest;
 * `-v` is --version; --help lists every environment variable; `tools` prints whole first sentences.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENVIRONMENT } from "../../src/environment.js";
import { firstSentence } from "../../src/contract/tool.js";
import { allTools } from "../../src/tools/index.js";
import { PACKAGE } from "../../src/version.js";
import { runCli } from "../helpers/server-process.js";

const dir = mkdtempSync(join(tmpdir(), "chematic-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "warn", ...env }, { cwd: dir, timeoutMs: 90_000 });

const PNG_SIGNATURE = "\x89PNG\r\n\x1a\n";

test("call depict --out FILE before or after the arguments writes the PNG and prints the rest", async () => {
  const [before, afterArgs] = await Promise.all([
    cli(["call", "--out", "before.png", "depict", '{"smiles":"c1ccccc1O"}']),
    cli(["call", "depict", '{"smiles":"c1ccccc1O","width":200,"height":150}', "--out", join(dir, "after.png")]),
  ]);
  for (const [r, file, width] of [
    [before, join(dir, "before.png"), 400],
    [afterArgs, join(dir, "after.png"), 200],
  ] as const) {
    assert.equal(r.code, 0, r.stderr);
    const png = readFileSync(file);
    assert.equal(png.subarray(0, 8).toString("latin1"), PNG_SIGNATURE);
    assert.equal(png.readUInt32BE(16), width, "the IHDR width is the one asked for");
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(printed.mime_type, "image/png");
    assert.equal(printed.byte_length, png.length, "the file holds exactly the image the answer carried");
    assert.match(r.stderr, new RegExp(`wrote image/png \\(${png.length} bytes\\) to ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  }
});

test("call depict with format svg and --out writes the markup; the printed result names the file instead of holding it", async () => {
  const r = await cli(["call", "depict", '{"smiles_list":["CCO","CCN"],"format":"svg"}', "--out=grid.svg"]);
  assert.equal(r.code, 0, r.stderr);
  const svg = readFileSync(join(dir, "grid.svg"), "utf8");
  assert.match(svg, /<svg[\s>]/);
  const printed = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(printed.svg, undefined);
  assert.equal(printed.svg_file, join(dir, "grid.svg"));
  assert.equal(printed.byte_length, Buffer.byteLength(svg, "utf8"));
});

test("without --out an image is left out, saying so; --out on an answer without a picture writes nothing and exits 1", async () => {
  const [plain, none, missing] = await Promise.all([
    cli(["call", "depict", '{"smiles":"CCO"}']),
    cli(["call", "calc_properties", '{"smiles":"CCO"}', "--out", "nothing.png"]),
    cli(["call", "depict", '{"smiles":"CCO"}', "--out"]),
  ]);
  assert.equal(plain.code, 0);
  assert.equal((JSON.parse(plain.stdout) as { mime_type: string }).mime_type, "image/png");
  assert.match(plain.stderr, /image was left out; pass --out <file>/);
  assert.equal(none.code, 1);
  assert.equal((JSON.parse(none.stdout) as { mw: number }).mw, 46.069, "the result is still printed");
  assert.match(none.stderr, /answered no picture; nothing\.png was not written/);
  assert.ok(!existsSync(join(dir, "nothing.png")));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--out needs a file name/);
});

test("--out to a folder or into a missing folder: one line naming the path and the reason, the answer still printed, exit 1", async () => {
  const [folder, missingDir] = await Promise.all([
    cli(["call", "depict", '{"smiles":"CCO"}', "--out", dir]),
    cli(["call", "depict", '{"smiles":"CCO"}', "--out", join("no-such-folder", "x.png")]),
  ]);
  for (const [r, code] of [
    [folder, "EISDIR"],
    [missingDir, "ENOENT"],
  ] as const) {
    assert.equal(r.code, 1, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { mime_type: string }).mime_type, "image/png", "the rest of the answer is printed");
    assert.match(r.stderr, new RegExp(`^chematic-mcp: cannot write \\S+: ${code}; pass --out a file path`));
    assert.ok(!/fatal|\n\s+at /.test(r.stderr), `no stack trace: ${r.stderr}`);
  }
});

test("call: a tool of a set left out answers TOOL_DISABLED (exit 1); an unknown tool is a usage error (exit 2)", async () => {
  const [disabled, unknown] = await Promise.all([
    cli(["call", "chembl_search_targets", '{"query":"EGFR"}'], { CHEMATIC_TOOLSETS: "chem" }),
    cli(["call", "no_such_tool", "{}"]),
  ]);
  assert.equal(disabled.code, 1);
  assert.equal((JSON.parse(disabled.stderr) as { error: { code: string } }).error.code, "TOOL_DISABLED");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown tool "no_such_tool"/);
});

test("-v is --version; --help lists every environment variable; a usage error points at --help for them", async () => {
  const [short, long, help, usage] = await Promise.all([cli(["-v"]), cli(["--version"]), cli(["--help"]), cli(["--no-such-option"])]);
  assert.equal(short.code, 0);
  assert.equal(short.stdout, `${PACKAGE.version}\n`);
  assert.equal(long.stdout, short.stdout);
  assert.equal(help.code, 0);
  for (const v of ENVIRONMENT) assert.match(help.stdout, new RegExp(`^  ${v.name} +\\S`, "m"), `--help lists ${v.name}`);
  assert.match(help.stdout, /call <tool> '<json-args>' \[--out <file>\]/);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /Environment variables: chematic-mcp --help/);
  assert.doesNotMatch(usage.stderr, /CHEMATIC_WORKERS/, "the usage error stays short");
});

test("tools prints each tool's whole first sentence", async () => {
  const r = await cli(["tools"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.trim().split("\n").slice(2);
  const tools = allTools({}).filter((t) => t.name !== "chembl_dataframe_drop");
  assert.equal(rows.length, tools.length);
  for (const [i, tool] of tools.entries()) {
    const sentence = firstSentence(tool.description);
    assert.ok(rows[i]!.startsWith(`| \`${tool.name}\` | ${tool.title} | `), rows[i]);
    assert.ok(rows[i]!.endsWith(`${sentence.replace(/\|/g, "\\|")} |`), rows[i]);
    assert.match(sentence, /[.!?]$/, `${tool.name}: a whole sentence`);
    assert.doesNotMatch(sentence, /(e\.g|i\.e|et al)\.$/, `${tool.name}: not cut at an abbreviation`);
  }
  // A sentence with a parenthesis holding a semicolon and a colon after it is printed whole.
  assert.ok(rows.some((row) => row.includes("(reactive, toxic, unstable; RDKit FilterCatalog): passes, alert_count, each alert with its atoms.")));
});

test("firstSentence keeps parentheses, abbreviations and ellipses whole", () => {
  assert.equal(firstSentence("Runs a reaction (e.g. an amide coupling). Then more."), "Runs a reaction (e.g. an amide coupling).");
  assert.equal(firstSentence("Decomposes (Degen et al. 2008) into fragments. Then more."), "Decomposes (Degen et al. 2008) into fragments.");
  assert.equal(firstSentence("R groups R1, R2, ... as SMILES. Next."), "R groups R1, R2, ... as SMILES.");
  assert.equal(firstSentence("Threshold 0.4 is a distance, i.e. similarity 0.6. Next."), "Threshold 0.4 is a distance, i.e. similarity 0.6.");
  assert.equal(firstSentence("No period at all"), "No period at all");
});
