/**
 * The documentation stays in step with the code: the tool table, the environment tables and the error table (in
 * docs/, where the README's front page sends a reader), and the front page stays a front page: at most 15,000
 * bytes, every relative link of the README and docs/ resolving (file and heading), every section of the moved
 * documents linked from it (issue 34 item 7).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { allTools } from "../../src/tools/index.js";
import { ERROR_CODES } from "../../src/domain/errors.js";
import { ENVIRONMENT } from "../../src/environment.js";

const root = projectRoot();
const DOCS = readdirSync(join(root, "docs"))
  .filter((f) => f.endsWith(".md"))
  .sort();
/** The front page, then every document of docs/: what the tests below call the README, wherever a table now lives. */
const frontPage = readFileSync(join(root, "README.md"), "utf8");
const readme = [frontPage, ...DOCS.map((f) => readFileSync(join(root, "docs", f), "utf8"))].join("\n");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

test("the README's tool table lists exactly the shipped tools", () => {
  const block = readme.slice(readme.indexOf("<!-- tools:start"), readme.indexOf("<!-- tools:end"));
  const documented = [...block.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]).sort();
  const shipped = allTools({})
    .map((t) => t.name)
    .sort();
  assert.deepEqual(documented, shipped);
});

test("every environment variable the code reads is in the README", () => {
  const names = new Set<string>();
  for (const file of sourceFiles(join(root, "src"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\benv\[["']([A-Z][A-Z0-9_]+)["']\]/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\(\s*"([A-Z][A-Z0-9_]+)",\s*env\./g)) names.add(m[1]!);
  }
  assert.ok(names.size >= 4, `found ${[...names].join(", ")}`);
  const listed = new Set(ENVIRONMENT.map((v) => v.name));
  for (const name of names) {
    assert.match(readme, new RegExp(`\\| \`${name}\` \\|`), `${name} is documented in the README's table`);
    assert.ok(listed.has(name), `${name} is in src/environment.ts (--help, server.json and the bundle read that list)`);
  }
});

test("the README's Configuration tables hold exactly the variables of src/environment.ts, numeric defaults equal", () => {
  const section = readme.slice(readme.indexOf("\n## Configuration"), readme.indexOf("\n## ", readme.indexOf("\n## Configuration") + 5));
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]*) \|/gm)) rows.set(m[1]!, m[2]!.trim());
  assert.deepEqual([...rows.keys()].sort(), ENVIRONMENT.map((v) => v.name).sort(), "README rows vs src/environment.ts");
  for (const v of ENVIRONMENT) {
    if (v.format !== "number" || !/^\d+$/.test(v.default)) continue;
    assert.equal(numberIn(rows.get(v.name)!), Number(v.default), `${v.name}: README default ${rows.get(v.name)}, list ${v.default}`);
  }
});

/** The README's environment table: variable name -> {default cell, meaning cell}. Rows may add text after the name. */
function envTable(): Map<string, { defaultCell: string; meaning: string }> {
  const rows = new Map<string, { defaultCell: string; meaning: string }>();
  for (const line of readme.split("\n")) {
    const m = /^\| `([A-Z][A-Z0-9_]+)`[^|]*\|/.exec(line);
    if (!m) continue;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.length >= 3 && !rows.has(m[1]!)) rows.set(m[1]!, { defaultCell: cells[1]!, meaning: cells.slice(2).join(" | ") });
  }
  return rows;
}

const numberIn = (text: string): number | undefined => {
  const m = /\d[\d,_\u202f ]*/.exec(text);
  return m ? Number(m[0].replace(/[,_\u202f ]/g, "")) : undefined;
};

test("the README's defaults and ranges agree with the code (integers, booleans, log settings, base URLs)", async () => {
  const table = envTable();
  const literal = "(\\d[\\d_]*)";
  const checked: string[] = [];
  for (const file of sourceFiles(join(root, "src"))) {
    const text = readFileSync(file, "utf8");
    // parseInteger("NAME", env.NAME, default, min, max) with literal numbers.
    for (const m of text.matchAll(
      new RegExp(`parseInteger\\(\\s*"([A-Z][A-Z0-9_]+)",\\s*env\\.\\1,\\s*${literal},\\s*${literal},\\s*${literal}\\s*\\)`, "g"),
    )) {
      const [, name, def, min, max] = m;
      const row = table.get(name!);
      if (!row) continue; // reported by the test above
      const n = (s: string) => Number(s.replace(/_/g, ""));
      assert.equal(numberIn(row.defaultCell), n(def!), `${name}: README default "${row.defaultCell}", code ${def}`);
      const range = /\((\d[\d,_ ]*) to (\d[\d,_ ]*)\)/.exec(row.meaning);
      if (range) assert.deepEqual([numberIn(range[1]!), numberIn(range[2]!)], [n(min!), n(max!)], `${name}: README range ${range[0]}, code ${min} to ${max}`);
      checked.push(name!);
    }
    // parseBoolean("NAME", env.NAME, false): the README says it is off by default.
    for (const m of text.matchAll(/parseBoolean\(\s*"([A-Z][A-Z0-9_]+)",\s*env\.\1,\s*(true|false)\s*\)/g)) {
      const row = table.get(m[1]!);
      if (!row) continue;
      assert.match(row.defaultCell, m[2] === "false" ? /unset|off|false|no/i : /on|true|yes/i, `${m[1]}: README default "${row.defaultCell}", code ${m[2]}`);
      checked.push(m[1]!);
    }
  }
  const { LOG_FORMATS, LOG_LEVELS, parseLogFormat, parseLogLevel } = await import("../../src/logger.js");
  for (const [name, values, fallback] of [
    ["CHEMATIC_LOG_LEVEL", LOG_LEVELS, parseLogLevel(undefined)],
    ["CHEMATIC_LOG_FORMAT", LOG_FORMATS, parseLogFormat(undefined)],
  ] as const) {
    const row = table.get(name);
    assert.ok(row, `${name} has a row`);
    assert.ok(row.defaultCell.includes(fallback), `${name}: README default "${row.defaultCell}", code ${fallback}`);
    for (const v of values) if (v !== fallback) assert.ok(row.meaning.includes(v), `${name}: the README names the value ${v}`);
    checked.push(name);
  }
  const { CHEMBL_DEFAULT_BASE_URL } = await import("../../src/config.js");
  const { PUBCHEM_DEFAULT_BASE_URL } = await import("../../src/domain/net/pubchem.js");
  for (const [name, url] of [
    ["CHEMBL_API_BASE_URL", CHEMBL_DEFAULT_BASE_URL],
    ["PUBCHEM_API_BASE_URL", PUBCHEM_DEFAULT_BASE_URL],
  ] as const) {
    const row = table.get(name);
    if (!row) continue;
    assert.ok(row.defaultCell.includes(url), `${name}: README default "${row.defaultCell}", code ${url}`);
    checked.push(name);
  }
  assert.ok(checked.length >= 6, `checked ${checked.join(", ")}`);
});

/** The README's error table: the codes in its `| \`CODE\` | meaning |` rows. */
function errorTableCodes(): Set<string> {
  return new Set(
    [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (?!`)/gm)]
      .map((m) => m[1]!)
      .filter((code) => !code.includes("CHEMATIC_") && !/^[A-Z]+_[A-Z_]*_(MS|URL|DIR)$/.test(code)),
  );
}

test("every code of the error vocabulary has a row in the README's error table (DISCONNECTED_MOLECULE was missing)", () => {
  const documented = errorTableCodes();
  for (const code of ERROR_CODES) assert.ok(documented.has(code), `${code} has a row in the README's error table`);
});

test("the HTTP examples agree with the deployment they point to: claude mcp add --transport http sends the bearer token nginx checks", () => {
  const lines = readme.split("\n").filter((l) => /claude mcp add\b.*--transport http/.test(l));
  assert.ok(lines.length > 0, "the README shows claude mcp add --transport http");
  for (const line of lines) assert.match(line, /--header "Authorization: Bearer \$TOKEN"/, line);
  if (/auth_request|Authorization/.test(readme.slice(readme.indexOf("```nginx")))) assert.match(readme, /"headers": \{ "Authorization": "Bearer \.\.\." \}/);
});

test("the README's 2026-07-28 header rules name Mcp-Name for tools/call, resources/read and prompts/get, and resources/* are served with 200", () => {
  const rule = readme.slice(readme.indexOf("`Mcp-Name` for `tools/call`"), readme.indexOf("### Status codes"));
  for (const method of ["tools/call", "resources/read", "prompts/get"]) assert.ok(rule.includes(`\`${method}\``), `Mcp-Name is required for ${method}`);
  const status404 = readme.split("\n").find((l) => l.startsWith("| `404` |")) ?? "";
  assert.doesNotMatch(status404, /resources\//, "resources/* are served, not 404");
  const status200 = readme.split("\n").find((l) => l.startsWith("| `200` |")) ?? "";
  assert.match(status200, /resources\/read/);
});

/** GitHub's anchor for a heading: lower case, punctuation but hyphens and underscores dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The headings of a markdown text outside code fences. */
function headings(text: string): Array<{ level: number; text: string }> {
  const out: Array<{ level: number; text: string }> = [];
  let fence = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const m = /^(#{1,6}) (.*)$/.exec(line);
    if (!fence && m) out.push({ level: m[1]!.length, text: m[2]! });
  }
  return out;
}

test("the README is a front page of at most 15,000 bytes that names the two commands first", () => {
  const bytes = Buffer.byteLength(frontPage);
  assert.ok(bytes <= 15_000, `README.md is ${bytes} bytes`);
  assert.match(frontPage.split("\n").slice(0, 6).join("\n"), /npm start[\s\S]*npm test/);
});

test("every relative link of the README and docs/ resolves, to the file and to the heading it names", () => {
  const files = ["README.md", ...DOCS.map((f) => `docs/${f}`)];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    let fence = false;
    for (const line of text.split("\n")) {
      if (line.startsWith("```")) fence = !fence;
      if (fence) continue;
      // Inline code holds SMILES such as C[C@@H](N)C that only look like links.
      for (const m of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const resolved = path === "" ? file : join(file, "..", path);
        checked++;
        let targetText: string;
        try {
          targetText = readFileSync(join(root, resolved), "utf8");
        } catch {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && !headings(targetText).some((h) => slug(h.text) === anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  assert.ok(checked > 50, `${checked} links checked`);
  assert.deepEqual(broken, []);
});

test("every section moved off the front page is linked from it (nothing dropped)", () => {
  const moved = ["install.md", "tools.md", "chembl.md", "canvas.md", "http.md", "configuration.md", "serving.md", "design.md", "tests.md"];
  const missing: string[] = [];
  for (const doc of moved) {
    for (const h of headings(readFileSync(join(root, "docs", doc), "utf8"))) {
      if (h.level < 2 || h.level > 3) continue;
      if (!frontPage.includes(`(docs/${doc}#${slug(h.text)})`)) missing.push(`docs/${doc}: ${h.text}`);
    }
  }
  assert.deepEqual(missing, []);
});
