/**
 * One reader from RDKit JSON to the molecule graph (issue 38 item 4): graph.ts reads MinimalLib's get_json() output
 * (molGraph, readRdkitJson); no other module parses it on its own (brics.ts and standardize.ts did).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

test("only domain/chem/graph.ts reads RDKit JSON into a graph", () => {
  const readers = sources(SRC)
    .filter((f) => relative(SRC, f) !== join("domain", "chem", "graph.ts"))
    .filter((f) => {
      const text = readFileSync(f, "utf8");
      return /JSON\.parse\(\s*[\w.]*get_json\(\)/.test(text) || /\breadRdkitJson\(/.test(text);
    })
    .map((f) => relative(SRC, f));
  assert.deepEqual(readers, []);
});
