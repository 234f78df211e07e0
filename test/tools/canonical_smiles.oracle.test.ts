/**
 * canonical_smiles against native RDKit (Debian python3-rdkit via /usr/bin/python3, scripts/oracle-canonical.py)
 * on RDKit's own data files (half of NCI first_5K, all with ORACLE_LIMIT=5000, a WEHI PAINS sample, ChEMBL_11265 actives, the
 * benzodiazepines) and hand-picked molecules with stereo, charges, salts, metals and macrocycles.
 *
 * - The default (isomeric) and non-isomeric forms must equal native's text exactly. The one upstream change
 *   between native 2022.09 and the WASM 2026.09 build that alters that text, rdkit/rdkit#8318 (atoms bonded to
 *   a metal written in brackets with their H count), is applied to native's output by the oracle script as an
 *   exact rule.
 * - The Kekulé form is checked as the same molecule (native reads ours back to its own canonical SMILES) with
 *   no aromatic atom left: its text is not comparable, because which bonds come out double changed upstream
 *   (rdkit/rdkit#9125, "Deterministic kekulize, independent of atom and bond order", merged 2026-02) and the
 *   canonical ranking of a Kekulé form counts bond orders, so the atom order moves with it (about a quarter of
 *   the set).
 * - A molecule only one side refuses is excused by a named change with an exact rule: native refusing a
 *   hypervalent bond to a metal (rdkit-data-sets.ts' metalValenceExcuse), or ours refusing a valence state
 *   that rdkit/rdkit#7491 (RDKit 2024.09, "Switch to isoelectronic valence model") removed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { canonicalSmilesTool } from "../../src/tools/canonical_smiles.js";
import { nativeRDKitMissing, oracleLines, skipOracle } from "../helpers/oracle.js";
import { NCI_FILE, bondedElements, metalValenceExcuse, mixedSet } from "../helpers/rdkit-data-sets.js";

/** NCI molecules compared (evenly spaced over first_5K); ORACLE_LIMIT=5000 runs the whole file. */
const NCI_COUNT = Number(process.env.ORACLE_LIMIT ?? 2500);

/** More stereo, charges, salts, metals and macrocycles than the shared special cases hold. */
const EXTRA = [
  "F/C=C/F",
  "F/C=C\\F",
  "C[C@@]1(O)CC[C@H](C(C)=O)CC1",
  "O=C(O)[C@H]1CCCN1C(=O)[C@@H](CS)C",
  "C[C@H]1CC[C@@H](C)CC1",
  "[2H]C([2H])([2H])Oc1ccccc1",
  "[13CH3]C(=O)O",
  "C[N+](C)(C)C.[I-]",
  "[O-][n+]1ccccc1",
  "CC(=O)[O-].CC(=O)[O-].[Ca+2]",
  "Cl[Pt]Cl",
  "CC(C)(C)c1cc(C)c(O[Zn]Oc2c(C)cc(C(C)(C)C)cc2)c(C)c1",
  "[Li]CCCC",
  "C[Mg]Br",
  "O=C1C[C@@H]2OCC=C3CN4CC[C@]56[C@H]4C[C@H]3[C@H]2[C@H]6N1c1ccccc15",
  "CC[C@H]1OC(=O)[C@H](C)[C@@H](O[C@H]2C[C@@](C)(OC)[C@@H](O)[C@H](C)O2)[C@H](C)[C@@H](O[C@@H]2O[C@H](C)C[C@H](N(C)C)[C@H]2O)[C@](C)(O)C[C@@H](C)C(=O)[C@H](C)[C@@H](O)[C@]1(C)O",
  "C1CCCCCCCCCCCCCCCCCCCCC1",
  "c1ccc2c(c1)-c1ccccc1-2",
  "C[S@@](=O)c1ccccc1",
  "C=C=C",
  "C[C@H]1C[C@@H]1C",
];

/**
 * rdkit/rdkit#7491 removed valence 6 of Al and Si and valence 7 of P, As, Sb and Bi (their highest are now 3, 4
 * and 5): a valence above the new highest and at most the old one is refused by 2026.09 and read by 2022.09.
 */
const REMOVED_VALENCES: Record<string, { now: number; before: number }> = {
  Al: { now: 3, before: 6 },
  Si: { now: 4, before: 6 },
  P: { now: 5, before: 7 },
  As: { now: 5, before: 7 },
  Sb: { now: 5, before: 7 },
  Bi: { now: 5, before: 7 },
};
function removedValenceExcuse(ourError: string): string | undefined {
  const m = /Explicit valence for atom # \d+ ([A-Z][a-z]?), (\d+), is greater than permitted/.exec(ourError);
  const rule = m ? REMOVED_VALENCES[m[1]!] : undefined;
  const valence = Number(m?.[2]);
  return rule && valence > rule.now && valence <= rule.before ? `${m![1]} valence ${valence} removed (rdkit/rdkit#7491)` : undefined;
}

async function skipReason(): Promise<string | undefined> {
  if (!existsSync(NCI_FILE)) return `${NCI_FILE} is absent (Debian package rdkit-data provides it)`;
  return nativeRDKitMissing();
}

interface NativeRow {
  smiles: string;
  error?: string;
  isomeric?: string;
  plain?: string;
  kekule?: string;
}

/** Native canonical SMILES of each input (the oracle's isomeric form), or the native error. */
async function nativeCanonical(smiles: string[]): Promise<NativeRow[]> {
  const rows = await oracleLines<NativeRow>({ script: "oracle-canonical.py" }, { input: smiles.join("\n") + "\n" });
  assert.equal(rows.length, smiles.length);
  return rows;
}

test("canonical_smiles equals native RDKit's text with and without stereo on RDKit's data files (rdkit/rdkit#8318 as the one rule), and its Kekulé form is the same molecule", async (t) => {
  const reason = await skipReason();
  if (reason) {
    skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    return;
  }
  const set = [...new Set([...mixedSet({ nci: NCI_COUNT, wehi: 500, chembl: 100 }), ...EXTRA])];
  const native = await nativeCanonical(set);
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  let compared = 0;
  const excused: string[] = [];
  const kekule: Array<{ smiles: string; ours: string; native: string }> = [];
  const mismatches: string[] = [];
  for (const [i, smiles] of set.entries()) {
    const n = native[i]!;
    let ours: { isomeric: string; plain: string; kekule: string } | undefined;
    let ourError = "";
    try {
      ours = {
        isomeric: canonicalSmilesTool.run({ smiles }, ctx).canonical as string,
        plain: canonicalSmilesTool.run({ smiles, isomeric: false }, ctx).canonical as string,
        kekule: canonicalSmilesTool.run({ smiles, kekulize: true }, ctx).canonical as string,
      };
    } catch (e) {
      ours = undefined;
      ourError = (e as Error).message;
    }
    if (n.error !== undefined) {
      if (ours === undefined) continue; // both refuse
      const excuse = metalValenceExcuse(n.error, bondedElements(rdkit, smiles));
      if (excuse) excused.push(smiles);
      else mismatches.push(`${smiles}: native refuses (${n.error}), ours ${ours.isomeric}`);
      continue;
    }
    if (ours === undefined) {
      if (removedValenceExcuse(ourError)) excused.push(smiles);
      else mismatches.push(`${smiles}: native ${n.isomeric}, ours refuses (${ourError})`);
      continue;
    }
    compared++;
    for (const form of ["isomeric", "plain"] as const) {
      if (ours[form] !== n[form]) mismatches.push(`${smiles} (${form}): native ${n[form]}, ours ${ours[form]}`);
    }
    if (/[a-z]/.test(ours.kekule.replace(/\[[^\]]*\]|Cl|Br/g, ""))) mismatches.push(`${smiles} (kekule): aromatic atoms left in ${ours.kekule}`);
    if (ours.kekule !== n.kekule) kekule.push({ smiles, ours: ours.kekule, native: n.isomeric! });
  }
  // The Kekulé texts that differ from native's: native reads each back to the molecule's own canonical SMILES.
  const back = await nativeCanonical(kekule.map((k) => k.ours));
  for (const [i, k] of kekule.entries()) {
    if (back[i]!.isomeric !== k.native)
      mismatches.push(`${k.smiles} (kekule): ours ${k.ours} reads back as ${back[i]!.isomeric ?? back[i]!.error}, native ${k.native}`);
  }
  t.diagnostic(
    `${compared} molecules compared; ${compared - kekule.length} Kekulé texts equal native's, ${kekule.length} the same molecule in another Kekulé order; ${excused.length} refused by one side only (named changes)`,
  );
  assert.ok(compared >= Math.min(NCI_COUNT, 5000) * 0.9 + 500, `only ${compared} molecules compared`);
  assert.deepEqual(mismatches, []);
});
