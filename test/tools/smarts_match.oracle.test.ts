/**
 * smarts_match golden values: native RDKit's Mol.GetSubstructMatches (Debian python3-rdkit via
 * /usr/bin/python3, scripts/oracle-alerts.py smarts) with the same uniquify / maxMatches / useChirality,
 * on the first 60 molecules of RDKit's NCI first_5K.smi plus a few drugs, for a panel of SMARTS.
 * Counts and atom maps (target indices in query-atom order, in RDKit's order) must be identical.
 * Also: the tool's error order, truncation and output bound.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import {
  SMARTS_MAX_QUERY_ATOMS,
  SMARTS_MAX_RECURSION_DEPTH,
  SMARTS_MAX_REPORTED_INDICES,
  recursionDepth,
  smartsMatchTool,
  type SmartsMatchResult,
} from "../../src/tools/smarts_match.js";
import { nativeRDKitMissing, oracleLines, skipOracle } from "../helpers/oracle.js";

const SMI_FILE = "/usr/share/RDKit/Data/NCI/first_5K.smi";

const PATTERNS = [
  "[#6]", // every carbon
  "c1ccccc1", // benzene ring (12 automorphisms without uniquify)
  "[CX3]=[OX1]", // carbonyl
  "[CX3](=O)[OX2H1]", // carboxylic acid
  "[NX3;H2,H1;!$(NC=O)]", // primary/secondary amine, not amide
  "[OX2H]", // hydroxyl
  "[#7,#8]~[#6]~[#7,#8]", // hetero-carbon-hetero
  "[R2]", // ring-fusion atoms
  "*~*~*", // any three-atom path
  "[$([NX3](=O)=O),$([NX3+](=O)[O-])]", // nitro (recursive)
  "[F,Cl,Br,I]", // halogen
  "[#6]@[#6]!@[#6]", // ring bond then chain bond
  "[+,-]", // charged atom
  "[C@H](N)C(=O)O", // chiral alpha-amino acid pattern (only differs with use_chirality)
];

const EXTRA_MOLECULES = [
  "N[C@@H](C)C(=O)O", // L-alanine
  "N[C@H](C)C(=O)O", // D-alanine
  "CC(=O)Oc1ccccc1C(=O)O",
  "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
  "c1ccc2cc3ccccc3cc2c1",
];

const PARAMS = [
  { uniquify: true, maxMatches: 1000, useChirality: false },
  { uniquify: false, maxMatches: 1000, useChirality: false },
  { uniquify: true, maxMatches: 3, useChirality: false },
  { uniquify: true, maxMatches: 1000, useChirality: true },
];

async function oracleUnavailable(): Promise<string | undefined> {
  if (!existsSync(SMI_FILE)) return `${SMI_FILE} is absent (Debian package rdkit-data provides it)`;
  return nativeRDKitMissing();
}

type Result = SmartsMatchResult;

/**
 * The one upstream change between native RDKit 2022.09 and the WASM 2026.09 build that this comparison
 * meets. rdkit/rdkit#888 (fixed by PR #6018, January 2023, first in release 2023.03): with uniquify on,
 * RDKit used to stop after maxMatches raw mappings and de-duplicate afterwards, so it could answer fewer
 * than maxMatches unique matches while more existed; since the fix duplicates are skipped during the
 * search and maxMatches counts unique matches. A difference is excused only when our answer equals the
 * first maxMatches entries of native RDKit's complete unique list (native rerun with maxMatches 100000),
 * which is exactly what the fixed algorithm returns.
 */
const UPSTREAM_888 = "uniquify with maxMatches counts unique matches since rdkit/rdkit#888 (RDKit 2023.03)";
const FULL_MAX_MATCHES = 100_000;

test("smarts_match counts and atom maps equal native GetSubstructMatches on 65 molecules", async (t) => {
  const reason = await oracleUnavailable();
  if (reason !== undefined) {
    skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    return;
  }
  const molecules = [
    ...readFileSync(SMI_FILE, "utf8")
      .split("\n")
      .filter((l) => l.trim().length > 0)
      .slice(0, 60)
      .map((l) => l.trim().split(/\s+/)[0]!),
    ...EXTRA_MOLECULES,
  ];
  const requests = molecules.flatMap((smiles) => PATTERNS.flatMap((smarts) => PARAMS.map((p) => ({ smarts, smiles, ...p }))));
  // Each request is followed by its complete form (same parameters, maxMatches 100000) for the #888 check.
  const input = requests.flatMap((q) => [JSON.stringify(q), JSON.stringify({ ...q, maxMatches: FULL_MAX_MATCHES })]);
  const lines = await oracleLines<{ count?: number; matches?: number[][]; error?: string }>(
    { script: "oracle-alerts.py" },
    { args: ["smarts"], input: input.join("\n") + "\n", timeoutMs: 300_000 },
  );
  assert.equal(lines.length, input.length);
  const native = lines.filter((_, k) => k % 2 === 0);
  const nativeFull = lines.filter((_, k) => k % 2 === 1);

  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  const mismatches: string[] = [];
  const molsCompared = new Set<string>();
  let compared = 0;
  let nonEmpty = 0;
  let truncatedSeen = 0;
  let upstream = 0;
  let ms = 0;
  for (let i = 0; i < requests.length; i++) {
    const q = requests[i]!;
    const ref = native[i]!;
    let ours: Result | undefined;
    try {
      const t0 = performance.now();
      ours = smartsMatchTool.run({ smarts: q.smarts, smiles: q.smiles, max_matches: q.maxMatches, uniquify: q.uniquify, use_chirality: q.useChirality }, ctx);
      ms += performance.now() - t0;
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
    }
    if (ref.error !== undefined || ours === undefined) {
      assert.ok(ref.error === "smiles" && ours === undefined, `${q.smiles}: both fail to parse (native ${ref.error ?? "ok"})`);
      continue;
    }
    compared++;
    molsCompared.add(q.smiles);
    if (ref.count! > 0) nonEmpty++;
    if (ours.truncated) truncatedSeen++;
    const consistent = ours.matches === ref.count! > 0 && ours.truncated === ours.match_count >= q.maxMatches && ours.atom_maps_complete;
    const identical = ours.match_count === ref.count && JSON.stringify(ours.atom_maps) === JSON.stringify(ref.matches);
    if (consistent && !identical && q.uniquify && JSON.stringify(ours.atom_maps) === JSON.stringify(nativeFull[i]!.matches!.slice(0, q.maxMatches))) {
      upstream++;
      t.diagnostic(`upstream change '${UPSTREAM_888}': ${q.smarts} in ${q.smiles} maxMatches ${q.maxMatches}: ours ${ours.match_count} native ${ref.count}`);
      continue;
    }
    if (!consistent || !identical) {
      mismatches.push(
        `${q.smarts} in ${q.smiles} ${JSON.stringify({ u: q.uniquify, m: q.maxMatches, c: q.useChirality })}: ours ${ours.match_count} ` +
          `${JSON.stringify(ours.atom_maps).slice(0, 80)} truncated ${ours.truncated}; native ${ref.count} ${JSON.stringify(ref.matches).slice(0, 80)}`,
      );
    }
  }
  t.diagnostic(
    `${compared} calls over ${molsCompared.size} molecules x ${PATTERNS.length} SMARTS x ${PARAMS.length} parameter sets; ` +
      `${nonEmpty} with matches, ${truncatedSeen} truncated; ${compared - mismatches.length - upstream} identical, ` +
      `${upstream} excused by rdkit/rdkit#888, ${mismatches.length} different; ${(ms / Math.max(compared, 1)).toFixed(3)} ms per call`,
  );
  assert.ok(molsCompared.size >= 50, "at least 50 molecules compared");
  assert.deepEqual(mismatches, []);
});

test("smarts_match: SMARTS checked first, typed errors, chirality, truncation and the output bound", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  const code = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      if (e instanceof ToolError) return e.code;
      throw e;
    }
    return "none";
  };
  assert.equal(
    code(() => smartsMatchTool.run({ smarts: "[C", smiles: "C1CC" }, ctx)),
    "INVALID_SMARTS",
  );
  assert.equal(
    code(() => smartsMatchTool.run({ smarts: "C", smiles: "C1CC" }, ctx)),
    "INVALID_SMILES",
  );
  // Limits that keep RDKit's recursive matcher inside the WASM stack (it traps near 220 nested levels).
  const nested = (n: number): string => "[$(".repeat(n) + "C" + ")]".repeat(n);
  assert.equal(recursionDepth("[$(C[$(N=O)])]C([$(O)])C"), 2);
  assert.equal(smartsMatchTool.run({ smarts: nested(SMARTS_MAX_RECURSION_DEPTH), smiles: "CCO" }, ctx).match_count, 2);
  assert.equal(
    code(() => smartsMatchTool.run({ smarts: nested(SMARTS_MAX_RECURSION_DEPTH + 1), smiles: "CCO" }, ctx)),
    "INVALID_SMARTS",
  );
  assert.equal(
    code(() => smartsMatchTool.run({ smarts: nested(300), smiles: "C1CC" }, ctx)),
    "INVALID_SMARTS",
    "checked before the SMILES",
  );
  const bigQuery = `C${"C(C)".repeat(SMARTS_MAX_QUERY_ATOMS / 2)}`; // 501 atoms
  assert.equal(
    code(() => smartsMatchTool.run({ smarts: bigQuery, smiles: "CCO" }, ctx)),
    "MOLECULE_TOO_LARGE",
  );

  const none = smartsMatchTool.run({ smarts: "N", smiles: "CCO" }, ctx);
  assert.deepEqual([none.matches, none.match_count, none.atom_maps, none.truncated], [false, 0, [], false]);

  // Query-atom order: the acid pattern lists C, =O, O-H as the pattern does.
  const acid = smartsMatchTool.run({ smarts: "[CX3](=O)[OX2H1]", smiles: "OC(=O)CC" }, ctx);
  assert.deepEqual(acid.atom_maps, [[1, 2, 0]]);

  const l = "N[C@@H](C)C(=O)O";
  const d = "N[C@H](C)C(=O)O";
  const pattern = "N[C@@H](C)C(=O)O";
  assert.equal(smartsMatchTool.run({ smarts: pattern, smiles: d }, ctx).match_count, 1, "chirality ignored by default");
  assert.equal(smartsMatchTool.run({ smarts: pattern, smiles: d, use_chirality: true }, ctx).match_count, 0);
  assert.equal(smartsMatchTool.run({ smarts: pattern, smiles: l, use_chirality: true }, ctx).match_count, 1);

  // Benzene: 1 unique match, 12 mappings without uniquify; a cap of 5 truncates.
  assert.equal(smartsMatchTool.run({ smarts: "c1ccccc1", smiles: "c1ccccc1" }, ctx).match_count, 1);
  assert.equal(smartsMatchTool.run({ smarts: "c1ccccc1", smiles: "c1ccccc1", uniquify: false }, ctx).match_count, 12);
  const capped = smartsMatchTool.run({ smarts: "c1ccccc1", smiles: "c1ccccc1", uniquify: false, max_matches: 5 }, ctx);
  assert.deepEqual([capped.match_count, capped.truncated, capped.atom_maps.length], [5, true, 5]);

  // A 2,102-atom branched alkane has more than 10,000 six-carbon paths: the count stops at the cap, and the
  // maps are cut at the index bound.
  const branched = `C${"C(C)(C)".repeat(700)}C`;
  const big = smartsMatchTool.run({ smarts: "[#6]~[#6]~[#6]~[#6]~[#6]~[#6]", smiles: branched, uniquify: false, max_matches: 10_000 }, ctx);
  assert.deepEqual([big.match_count, big.truncated, big.atom_maps_complete], [10_000, true, false]);
  assert.equal(big.atom_maps.length, Math.floor(SMARTS_MAX_REPORTED_INDICES / 6));
  assert.ok(JSON.stringify(big).length < 400_000, "the answer stays well under the 1 MiB response limit");
});
