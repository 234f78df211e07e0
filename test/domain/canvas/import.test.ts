/**
 * The record readers behind canvas_import: RFC 4180 CSV (quotes, doubled quotes, newlines in fields, CRLF,
 * delimiters), per-column type inference, repeated CSV headers, .smi lines, SDF records via splitSdf; and the naming
 * rules of its columns (issue 31 item 3): the import reserves only the columns it writes for the source and options,
 * and a data column is renamed only on a real clash.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  csvDelimiter,
  csvSource,
  importColumns,
  importKind,
  inferColumnType,
  nameDataColumns,
  parseCsv,
  sdfSource,
  smiSource,
  toCell,
} from "../../../src/domain/canvas/import.js";

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
  assert.equal(sdf.records[0]!.title, null, "a blank title is no title");
  assert.deepEqual(sdf.dataColumns, ["a b"]);
  assert.equal(importKind("x.SDF.GZ"), "sdf.gz");
  assert.equal(importKind("x.smi"), "smi");
  assert.equal(importKind("x.txt"), null);
});

const names = (shape: Parameters<typeof importColumns>[0]) => importColumns(shape).map((c) => c.name);
const SDF = { sdf: true, titleColumn: "title", hasId: false, standardize: false, dedupe: false };

test("importColumns: what the import writes for the source and its options, in order", () => {
  assert.deepEqual(names(SDF), ["row_id", "title", "smiles", "error"]);
  assert.deepEqual(names({ ...SDF, titleColumn: "name", standardize: true, dedupe: true }), [
    "row_id",
    "name",
    "smiles",
    "original_smiles",
    "parent_inchikey",
    "duplicates",
    "error",
  ]);
  assert.deepEqual(names({ ...SDF, sdf: false, hasId: true, dedupe: true }), ["row_id", "input", "smiles", "parent_inchikey", "duplicates", "error", "id"]);
  assert.deepEqual(names({ ...SDF, sdf: false }), ["row_id", "input", "smiles", "error"], "a SMILES list or CSV keeps its columns as before");
});

test("nameDataColumns: names as given unless they clash with a written column or each other (case-insensitively); renames said; earlier renames held", () => {
  // An SDF without an id column: a data item ID stays ID; smiles clashes with ours; two items equal but for case clash.
  const sdf = nameDataColumns(["ID", "smiles", "Name", "NAME", "input", "Title"], names(SDF));
  assert.deepEqual([...sdf.columns.values()], ["ID", "smiles_2", "Name", "NAME_2", "input", "Title_2"]);
  assert.deepEqual(sdf.renamed, { smiles: "smiles_2", NAME: "NAME_2", Title: "Title_2" });
  // A CSV with an id_column reserves id; without one it does not.
  assert.deepEqual([...nameDataColumns(["id"], names({ ...SDF, sdf: false, hasId: true })).columns.values()], ["id_2"]);
  assert.deepEqual(nameDataColumns(["id"], names({ ...SDF, sdf: false })).renamed, {});
  // A suffix free of every other column, as given too (a data item error_2 keeps its name); control characters
  // become spaces; long names are cut.
  const crowded = nameDataColumns(["error", "error_2", "a\tb", "x".repeat(150)], names(SDF));
  assert.deepEqual([...crowded.columns.values()], ["error_3", "error_2", "a b", "x".repeat(100)]);
  assert.deepEqual(crowded.renamed, { error: "error_3", "a\tb": "a b", ["x".repeat(150)]: "x".repeat(100) });
  // Appending: a name renamed before keeps its column; a new clash avoids it and the names already taken.
  const again = nameDataColumns(["smiles", "smiles_2", "mw"], [...names(SDF), "mw"], { smiles: "smiles_2" });
  assert.deepEqual([...again.columns.values()], ["smiles_2", "smiles_2_2", "mw_2"]);
  assert.deepEqual(again.renamed, { smiles: "smiles_2", smiles_2: "smiles_2_2", mw: "mw_2" });
  // Empty names become column (then column_2, ...).
  assert.deepEqual([...nameDataColumns([" ", "\t"], names(SDF)).columns.values()], ["column", "column_2"]);
  // A name ending in dots is kept as it is.
  assert.deepEqual(nameDataColumns(["note..."], names(SDF)).renamed, {});
});
