/**
 * The record readers behind canvas_import: RFC 4180 CSV (quotes, doubled quotes, newlines in fields, CRLF,
 * delimiters), per-column type inference, repeated CSV headers, .smi lines, SDF records via splitSdf.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { csvDelimiter, csvSource, importKind, inferColumnType, parseCsv, sdfSource, smiSource, toCell } from "../../../src/domain/canvas/import.js";

test("parseCsv reads quoted fields with delimiters, doubled quotes and newlines, CRLF lines, and skips blank lines", () => {
  assert.deepEqual(parseCsv('a,b\r\n"x, y","say ""hi"""\r\n\r\n"multi\nline",2\n', ","), [
    ["a", "b"],
    ["x, y", 'say "hi"'],
    ["multi\nline", "2"],
  ]);
  assert.deepEqual(parseCsv("a\tb\n1\t2", "\t"), [
    ["a", "b"],
    ["1", "2"],
  ]);
  assert.equal(csvDelimiter("smiles\tname\nC\tx"), "\t");
  assert.equal(csvDelimiter("smiles;name\n"), ";");
  assert.equal(csvDelimiter("smiles,name;x\n"), ",");
});

test("inferColumnType: all integers BIGINT, all numbers DOUBLE, anything else VARCHAR; empty values do not vote", () => {
  assert.equal(inferColumnType(["1", "-2", "", null, " 3 "]), "BIGINT");
  assert.equal(inferColumnType(["1", "2.5", "1e-3"]), "DOUBLE");
  assert.equal(inferColumnType(["1", "x"]), "VARCHAR");
  assert.equal(inferColumnType(["NaN"]), "VARCHAR");
  assert.equal(inferColumnType(["12345678901234567890"]), "DOUBLE");
  assert.equal(inferColumnType(["", undefined]), "VARCHAR");
  assert.equal(toCell("BIGINT", " 7 "), 7);
  assert.equal(toCell("VARCHAR", " kept "), " kept ");
  assert.equal(toCell("DOUBLE", ""), null);
});

test("csvSource: the SMILES and id columns come out; repeated or empty header names get unique keys; an empty SMILES cell is a problem", () => {
  const s = csvSource("smiles,x,X,,name\nCCO,1,2,3,a\n,4,5,6,b\n", "smiles", "name");
  assert.deepEqual(s.dataColumns, ["x", "X_2", "column_4"]);
  assert.deepEqual(s.records[0], { input: "CCO", molecule: "CCO", data: { x: "1", X_2: "2", column_4: "3" }, id: "a" });
  assert.equal(typeof s.records[1]!.problem, "string");
  assert.equal(s.hasId, true);
});

test("smiSource and sdfSource; importKind by extension", () => {
  const smi = smiSource("smiles name\nCCO ethanol\n\n# note\nc1ccccc1\n");
  assert.deepEqual(smi.records, [
    { input: "CCO", molecule: "CCO", id: "ethanol" },
    { input: "c1ccccc1", molecule: "c1ccccc1", id: null },
  ]);
  const sdf = sdfSource("\n     RDKit\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n> <a b>\n1\n\n$$$$\n");
  assert.equal(sdf.records[0]!.input, "sdf record 1");
  assert.deepEqual(sdf.dataColumns, ["a b"]);
  assert.equal(importKind("x.SDF.GZ"), "sdf.gz");
  assert.equal(importKind("x.smi"), "smi");
  assert.equal(importKind("x.txt"), null);
});
