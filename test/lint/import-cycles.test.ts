/**
 * No import circle in src/ (issue 38 item 5): the layers rule keeps imports running one way between folders; this
 * keeps modules within a folder from importing each other round (server/list.ts and server/registry.ts did). Value
 * imports only: `import type` is erased at compile time and cannot form a load-order circle.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Each module's value imports of other modules of src/ (relative specifiers, .js mapped back to .ts). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const deps: string[] = [];
    for (const m of text.matchAll(/^(import|export)\s([^;]*?)\sfrom\s+"(\.[^"]+)"/gms)) {
      if (/^type\s/.test(m[2]!)) continue;
      const target = resolve(dirname(file), m[3]!.replace(/\.js$/, ".ts"));
      if (known.has(target)) deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

test("no module of src/ imports itself round through others", () => {
  const graph = importGraph(sources(SRC));
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(SRC, f)).join(" -> "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.ok(graph.size > 100, `the sources were found (${graph.size})`);
  assert.deepEqual(cycles, []);
});
