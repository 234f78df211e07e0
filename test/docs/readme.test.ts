/** The README's tool table and environment table stay in step with the code. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { allTools } from "../../src/tools/index.js";

const root = projectRoot();
const readme = readFileSync(join(root, "README.md"), "utf8");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

test("the README's tool table lists exactly the shipped tools", () => {
  const block = readme.slice(readme.indexOf("<!-- tools:start"), readme.indexOf("<!-- tools:end"));
  const documented = [...block.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]).sort();
  const shipped = allTools({}).map((t) => t.name).sort();
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
  for (const name of names) assert.match(readme, new RegExp(`\\| \`${name}\` \\|`), `${name} is documented in the README's table`);
});
