/**
 * The canvas in rooms (issue 38 item 3): every file of src/domain/canvas/ opens with a comment saying its one job,
 * none grows back into a file doing several (a bound on its length, with the largest named), and a query reaches
 * DuckDB's parser only through sql-guard.ts, the one SQL lock.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));
const CANVAS = join(SRC, "domain", "canvas");
/** canvas.ts was 1,461 lines doing seven jobs; the largest room is about 500. */
const MAX_LINES = 550;

const rooms = readdirSync(CANVAS).filter((f) => f.endsWith(".ts"));

test("every canvas file opens with a comment saying its job, and stays one room's size", () => {
  assert.ok(rooms.length >= 10, `the canvas rooms are in ${CANVAS}`);
  for (const file of rooms) {
    const text = readFileSync(join(CANVAS, file), "utf8");
    assert.match(text, /^\/\*\*(\n \*)? \S/, `${file} opens with a /** comment saying its one job`);
    const lines = text.split("\n").length;
    assert.ok(lines <= MAX_LINES, `${file} has ${lines} lines (at most ${MAX_LINES}): split it by job`);
  }
});

test("only sql-guard.ts hands a query to DuckDB's parser (one SQL lock)", () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
    );
  const parsing = sources(SRC)
    .filter((f) => /\bextractStatements\(|json_serialize_sql\(|getTableNames\(/.test(readFileSync(f, "utf8")))
    .map((f) => f.slice(SRC.length));
  assert.deepEqual(parsing, ["domain/canvas/sql-guard.ts"]);
});
