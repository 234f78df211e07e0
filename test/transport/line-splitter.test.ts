import { test } from "node:test";
import assert from "node:assert/strict";
import { LineSplitter } from "../../src/transport/stdio.js";

function split(chunks: Buffer[], max = 16) {
  const lines: string[] = [];
  let overflows = 0;
  const s = new LineSplitter(
    max,
    (l) => lines.push(l.toString()),
    () => overflows++,
  );
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, overflows };
}

test("lines split across chunks are joined; CRLF and blank lines are tolerated", () => {
  const { lines } = split([Buffer.from("ab"), Buffer.from("c\r\n\n  \nde"), Buffer.from("f\n")]);
  assert.deepEqual(lines, ["abc", "def"]);
});

test("an over-long line is reported once and skipped up to its newline; the next line still arrives", () => {
  const { lines, overflows } = split([Buffer.from("x".repeat(10)), Buffer.from("y".repeat(10)), Buffer.from("zz\nok\n")]);
  assert.equal(overflows, 1);
  assert.deepEqual(lines, ["ok"]);
});

test("a final line without newline is delivered at end of input", () => {
  assert.deepEqual(split([Buffer.from("last")]).lines, ["last"]);
});
