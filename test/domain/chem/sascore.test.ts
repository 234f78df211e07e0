/**
 * The SA score fragment table asset (format, integrity, sidecar with licence and citation), the score's
 * scaling, the sa_score tool's output, and the TypeScript Morgan implementation against MinimalLib's own
 * folded fingerprints on molecules that exercise rare invariant paths (no native RDKit needed here; the
 * oracle test compares with native RDKit).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { performance } from "node:perf_hooks";
import { assetPath } from "../../../src/domain/assets.js";
import { loadRDKit, withMol } from "../../../src/domain/chem/rdkit.js";
import { foldMorgan, hashCombine, hashRange, morganEnvironments, onBits } from "../../../src/domain/chem/morgan.js";
import { molGraph } from "../../../src/domain/chem/graph.js";
import { decodeFragmentTable, fragmentScoreOf, fragmentTable, scaleSaScore } from "../../../src/domain/chem/sascore.js";
import { saScoreTool } from "../../../src/tools/sa_score.js";
import { ToolError } from "../../../src/domain/errors.js";

const rdkit = await loadRDKit();
const ctx = { rdkit, progress: () => {} };

interface Sidecar {
  asset: string;
  citation: string;
  license: { spdx: string; rdkit: string; sa_score_contrib: string };
  counts: { rows: number; ids: number; score_min: number; score_max: number };
  sha256: string;
  bytes: number;
}

test("fragment table asset: decodes to RDKit's 705,292 ids and 3,549 scores, matching its sidecar", (t) => {
  const file = assetPath("sascore-fragments.bin.gz");
  const packed = readFileSync(file);
  const sidecar = JSON.parse(readFileSync(assetPath("sascore-fragments.json"), "utf8")) as Sidecar;
  assert.equal(sidecar.asset, "sascore-fragments.bin.gz");
  assert.equal(createHash("sha256").update(packed).digest("hex"), sidecar.sha256, "the asset is the one the sidecar describes");
  assert.equal(packed.length, sidecar.bytes);
  assert.equal(sidecar.license.spdx, "BSD-3-Clause");
  assert.match(sidecar.license.rdkit, /Rational Discovery/);
  assert.match(sidecar.license.sa_score_contrib, /Copyright \(c\) 2013, Novartis/);
  assert.match(sidecar.license.sa_score_contrib, /Redistributions in binary form must reproduce/);
  assert.match(sidecar.citation, /Ertl.*Schuffenhauer.*Journal of Cheminformatics, 1, 8/);

  const t0 = performance.now();
  const table = decodeFragmentTable(packed);
  const ms = performance.now() - t0;
  assert.equal(table.ids.length, sidecar.counts.ids);
  assert.equal(table.ids.length, 705_292);
  assert.equal(table.scores.length, sidecar.counts.rows);
  assert.equal(table.scores.length, 3_549);
  for (let k = 1; k < table.ids.length; k++) if (!(table.ids[k]! > table.ids[k - 1]!)) assert.fail(`ids not ascending at ${k}`);
  assert.equal(Math.min(...table.scores), sidecar.counts.score_min);
  assert.equal(Math.max(...table.scores), sidecar.counts.score_max);
  // Spot values of RDKit's fpscores.pkl.gz (its first row has score -2.8254 and id 910163969 among others).
  assert.equal(fragmentScoreOf(910_163_969, table), -2.8254);
  assert.equal(fragmentScoreOf(0, table), undefined);
  assert.equal(fragmentScoreOf(table.ids[0]!, table), table.scores[table.rows[0]!]);
  assert.equal(fragmentScoreOf(table.ids.at(-1)!, table), table.scores[table.rows.at(-1)!]);
  assert.equal(fragmentScoreOf(table.ids.at(-1)! + 1, table), undefined);
  t.diagnostic(`asset ${statSync(file).size} bytes; decoded in ${ms.toFixed(1)} ms`);
});

test("fragment table decoder refuses damaged data", () => {
  const raw = readFileSync(assetPath("sascore-fragments.bin.gz"));
  // Damage the decompressed bytes, so each edit hits one field.
  const gunzipped = gunzipSync(raw);
  const damaged = (edit: (b: Buffer) => Buffer) => gzipSync(edit(Buffer.from(gunzipped)));
  assert.throws(() => decodeFragmentTable(damaged((b) => (b.write("XXXX", 0, "latin1"), b))), /bad magic/);
  assert.throws(() => decodeFragmentTable(damaged((b) => (b.writeUInt32LE(2, 4), b))), /unknown version/);
  assert.throws(() => decodeFragmentTable(damaged((b) => b.subarray(0, b.length - 1))), /length mismatch|truncated/);
  assert.throws(() => decodeFragmentTable(damaged((b) => Buffer.concat([b, Buffer.from([0])]))), /length mismatch/);
  assert.throws(() => decodeFragmentTable(damaged((b) => (b.writeUInt32LE(0, 8), b))), /bad row count/);
  assert.throws(() => decodeFragmentTable(raw.subarray(0, 100)));
});

test("scaleSaScore: sascorer.py's 1-10 scale, including its clamp and the smoothing above 8", () => {
  assert.equal(scaleSaScore(10), 1, "clamped at 1");
  assert.equal(scaleSaScore(-20), 10, "clamped at 10");
  // 11 - (raw + 5) / 6.5 * 9 = 5 at raw = -0.6666...
  assert.ok(Math.abs(scaleSaScore(-5 + (6 * 6.5) / 9) - 5) < 1e-12);
  // Above 8 the score becomes 8 + ln(score - 8): just above 8 it drops sharply (RDKit behaves the same).
  const justAbove = -5 + ((11 - 8.5) * 6.5) / 9; // linear score 8.5
  assert.ok(Math.abs(scaleSaScore(justAbove) - (8 + Math.log(0.5))) < 1e-12);
});

test("sa_score tool: known values and self-consistent terms", () => {
  // Native RDKit 2022.09 sascorer: aspirin 1.580, imatinib 2.332, artemisinin 5.668 (below); and the
  // first zim.100.txt entries (values from that file).
  for (const [smiles, expected] of [
    ["CC(=O)Oc1ccccc1C(=O)O", 1.58],
    ["Cc1ccc(cc1Nc2nccc(n2)c3cccnc3)NC(=O)c4ccc(cc4)CN5CCN(CC5)C", 2.332],
    ["Cc1c(C(=O)NCCO)[n+](=O)c2ccccc2n1[O-]", 3.166],
    ["CC(C(=O)[O-])c1ccc(-c2ccccc2)cc1", 2.462],
  ] as const) {
    const out = saScoreTool.run({ smiles }, ctx) as Record<string, unknown> & {
      sa_score: number;
      easy_to_synthesize: boolean;
      fragment_score: number;
      complexity_penalty: number;
      penalties: Record<string, number>;
      symmetry_correction: number;
      raw_score: number;
      counts: Record<string, number>;
    };
    assert.equal(out.sa_score, expected, smiles);
    assert.equal(out.easy_to_synthesize, expected < 6);
    const sum = Object.values(out.penalties).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - out.complexity_penalty) < 5e-4, "penalties add up");
    assert.ok(Math.abs(out.fragment_score - out.complexity_penalty + out.symmetry_correction - out.raw_score) < 5e-4, "raw score adds up");
    assert.ok(Math.abs(scaleSaScore(out.raw_score) - out.sa_score) < 0.01, "the scale maps raw to final");
    assert.ok(out.counts.fragments! >= out.counts.distinct_fragments! && out.counts.distinct_fragments! > 0);
    assert.equal(out.note, "1 = easiest, 10 = hardest; < 6 = synthesizable, > 6 = challenging");
    assert.match(String(out.citation), /Ertl.*Schuffenhauer.*2009/);
  }
  // Stereo, spiro, bridgehead and macrocycle terms appear when the structure has them.
  const hard = saScoreTool.run({ smiles: "C[C@@H]1CC[C@H]2[C@@H](C)C(=O)O[C@@H]3O[C@@]4(C)CC[C@@H]1[C@]32OO4" }, ctx) as {
    sa_score: number;
    counts: Record<string, number>;
    penalties: Record<string, number>;
  };
  assert.equal(hard.sa_score, 5.668, "artemisinin (native sascorer: 7 centres, 1 spiro, 2 bridgeheads)");
  assert.deepEqual([hard.counts.stereocenters, hard.counts.spiro_atoms, hard.counts.bridgehead_atoms], [7, 1, 2]);
  assert.ok(hard.penalties.stereo! > 0 && hard.penalties.bridgehead! > 0);
  const macro = saScoreTool.run({ smiles: "C1CCCCCCCCCCC1" }, ctx) as { counts: Record<string, number>; penalties: Record<string, number> };
  assert.equal(macro.counts.macrocycles, 1);
  assert.equal(macro.penalties.macrocycle, Math.round(Math.log10(2) * 1e4) / 1e4);
  const spiro = saScoreTool.run({ smiles: "C1CCC2(CC1)CCCC2" }, ctx) as { counts: Record<string, number> };
  assert.equal(spiro.counts.spiro_atoms, 1);
  assert.throws(
    () => saScoreTool.run({ smiles: "C1CC" }, ctx),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_SMILES",
  );
});

test("TypeScript Morgan: hash primitives and fragment ids folded onto MinimalLib's bits for rare cases", () => {
  // boost hash_combine with a 32-bit seed: seed ^= v + 0x9e3779b9 + (seed << 6) + (seed >> 2)
  assert.equal(hashCombine(0, 1), 0x9e3779ba);
  assert.equal(hashCombine(0xffffffff, 0xffffffff), (0xffffffff ^ ((0xffffffff + 0x9e3779b9 + 0xffffffc0 + 0x3fffffff) % 2 ** 32)) >>> 0);
  assert.equal(hashRange([-1]), hashRange([0xffffffff]), "negative values wrap like a uint32 cast");
  // RDKit's invariant of the carbon in [1H]C: [Z 6, degree 4, Hs 4 (the H atom counts), charge 0, delta mass 0].
  assert.equal(hashRange([6, 4, 4, 0, 0]), 2_246_733_040);
  const molecules = [
    "[13CH3]C(=O)O",
    "[2H]C([2H])([2H])Cl",
    "[1H]C",
    "[3H]O",
    "[H][H]",
    "[14*]c1ccccc1",
    "*C",
    "[18F]c1ccccc1",
    "[NH3]->[Cu+2]<-[NH3]",
    "C[N+](C)(C)C.[Cl-]",
    "[CH2]C",
    "[Na+].[O-]C(=O)C",
    "[235U]",
    "C1CC12CC2",
    "C1CC2CCC1CC2",
    "c1ccccc1.c1ccccc1",
    "F/C=C/F",
    "C$C",
    "*1**1",
    "C1CCCCCCCCCCC1",
    "O=C1c2ccccc2C(=O)c2c1cccc2",
    "[Fe]",
  ];
  let checked = 0;
  for (const smiles of molecules) {
    withMol(rdkit, smiles, (mol) => {
      const graph = molGraph(mol);
      for (const radius of [0, 1, 2, 3, 6]) {
        const ids = morganEnvironments(rdkit, graph, radius).map((e) => e.id);
        for (const nBits of [64, 2048, 16384]) {
          const theirs = onBits(mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius, nBits })) as Uint8Array);
          assert.deepEqual(onBits(foldMorgan(ids, nBits)), theirs, `${smiles} radius ${radius} nBits ${nBits}`);
          checked++;
        }
      }
    });
  }
  assert.equal(checked, molecules.length * 15);
});

test("MinimalLib uses legacy stereo perception by default (the stereocentre count the SA score relies on)", () => {
  // use_legacy_stereo_perception(value) sets the flag and answers the previous value; true is the default.
  assert.equal(rdkit.use_legacy_stereo_perception(true), true);
});

test("fragmentTable() loads once per thread", () => {
  const a = fragmentTable();
  assert.equal(fragmentTable(), a);
});
