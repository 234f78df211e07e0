/**
 * canvas_annotate's parent, standardisation and descriptor kinds (issue 31 item 2) against native RDKit 2022.09
 * (scripts/oracle-annotate-kinds.py under /usr/bin/python3), each plain and with parent: true, through the tool
 * (a staged canvas table, DuckDB's types) on hand-picked molecules (stereo assigned and not, double-bond stereo,
 * charges, zwitterions, HCl, sodium and mesylate salts, metal complexes, organometallics, macrocycles) and on a
 * few hundred molecules of RDKit's data files (NCI first_5K, the WEHI PAINS set, ChEMBL_11265, the
 * benzodiazepines), when they are installed.
 *
 * What each kind equals natively:
 *   standardized_smiles      Chem.MolToSmiles(rdMolStandardize.Cleanup(mol))
 *   parent_smiles            the standardize tool's default pipeline run natively: Cleanup, SaltRemover
 *                            (dontRemoveEverything), LargestFragmentChooser(preferOrganic=True), Uncharger, Cleanup
 *   both, by the project's rule METAL_COMPLEX_KEPT (issue 34 item 6; standardize.ts keepsItselfAsParent), the
 *                            input itself when it holds a metal and native's answer is no organic molecule
 *   parent_inchikey          the InChIKey representation_router gives for that parent (this python3-rdkit has no InChI)
 *   fsp3                     rdMolDescriptors.CalcFractionCSP3, unrounded, exactly
 *   ring_count               CalcNumRings
 *   aromatic_ring_count      CalcNumAromaticRings
 *   stereocentre_count       CalcNumAtomStereoCenters (= the legacy FindMolChiralCenters(includeUnassigned=True))
 *   unassigned_...           CalcNumUnspecifiedAtomStereoCenters (= its '?' centres)
 *   formal_charge            Chem.GetFormalCharge
 *   <rule>_pass              druglikeness_filters' published thresholds on native descriptors
 *   parent: true             the same natively on the parent above, read back from its SMILES (mw, logp, tpsa and
 *                            canonical_smiles too, to prove the mechanism on the older kinds)
 * Differences are excused only by a named upstream change under an exact rule (UPSTREAM), counted and printed.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { ToolError } from "../../src/domain/errors.js";
import { CanvasManager } from "../../src/domain/canvas/manager.js";
import { loadRDKit, parseSmiles, substructMatches, type RDKit } from "../../src/domain/chem/rdkit.js";
import { keepsItselfAsParent } from "../../src/domain/chem/standardize.js";
import { DRUG_RULE_KEYS } from "../../src/domain/chem/druglikeness.js";
import { createCanvasAnnotateTool } from "../../src/tools/canvas_annotate.js";
import { representationRouterTool } from "../../src/tools/representation_router.js";
import { ok, serviceContext } from "../fixtures/chembl/harness.js";
import { localRunner, stageSmiles } from "../helpers/annotate.js";
import { VALENCE_7491, valenceModelChange } from "../helpers/upstream.js";
import { nativeRDKitMissing, oracleLines, skipOracle } from "../helpers/oracle.js";
import { NCI_FILE, SPECIAL_CASES, bondedElements, metalValenceExcuse, mixedSet } from "../helpers/rdkit-data-sets.js";

/** Hand-picked beyond the shared SPECIAL_CASES: each names what it exercises. */
const CASES = [
  // Stereo: assigned, unassigned, both, pseudo-asymmetric ring centres, sulfoxides, double bonds.
  "C[C@H](F)[C@@H](C)F",
  "CC(F)C(C)F",
  "C[C@H](O)C(C)N",
  "C[C@H]1CC[C@@H](C)CC1",
  "C[S@](=O)c1ccccc1",
  "C[S+]([O-])c1ccccc1",
  "F/C=C/F",
  "F/C=C\\F",
  "C/C=C\\C[C@@H](N)C(=O)O",
  "C1CC[C@H]2CCCC[C@@H]2C1",
  // Charges and zwitterions.
  "C[N+](C)(C)CC(=O)[O-]",
  "[NH3+][C@@H](Cc1ccccc1)C(=O)[O-]",
  "[O-][N+](=O)c1ccccc1",
  "NC(=[NH2+])NCCC[C@H](N)C(=O)O",
  "CC(=O)[O-]",
  "C[N+](C)(C)C",
  // Salts: HCl, sodium, mesylate, sulfate, a salt whose counter-ion is larger than the drug.
  "Cl.CN(C)CCCN1c2ccccc2CCc2ccccc21",
  "CC(=O)Oc1ccccc1C(=O)[O-].[Na+]",
  "CS(=O)(=O)O.Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
  "OS(=O)(=O)O.C[C@@H](N)Cc1ccccc1.C[C@@H](N)Cc1ccccc1",
  "C[NH3+].Cc1ccc(cc1)S(=O)(=O)[O-]",
  "[CH3:1]C(=O)[O-].[Na+]",
  // Metals: complexes, salts with no organic parent, organometallics.
  "C[Mg]Br",
  "CC[Zn]CC",
  "CC(=O)O[Zn]OC(C)=O",
  "[Na+].[Cl-]",
  "[Cu+2].CC(=O)[O-].CC(=O)[O-]",
  "O=C([O-])c1ccccc1.[Li+]",
  "C[Hg]Cl",
  // One example of each upstream change (UPSTREAM): a chelating aromatic N (rdkit#7434), N-substituted pyrazoles whose
  // rule-of-three verdict flips on NumHBA (rdkit#8997), hexafluorosilicate (rdkit#7491), from NCI first_5K.
  "C[N+]12CCCC1C3=CC=C[N+](=C3)[Zn++]24OC(=O)C(=O)O4.O=C5[OH+][Zn++]6([OH+]C5=O)[OH+]C(=O)C(=O)[OH+]6",
  "CN1N=CC2=C(Cl)N=CN=C12",
  "Cl.CN(C)C1=C(C)N(C)N(C2=CC=CC=C2)C1=O",
  "CCCCNCCCC.F[Si](F)(F)(F)(F)F",
  // Macrocycles.
  "C1COCCOCCOCCOCCOCCO1",
  "CC[C@@H]1[C@@]([C@@H]([C@H](C(=O)[C@@H](C[C@@]([C@@H]([C@H]([C@@H]([C@H](C(=O)O1)C)O[C@H]2C[C@@]([C@H]([C@@H](O2)C)O)(C)OC)C)O[C@H]3[C@@H]([C@H](C[C@H](O3)C)N(C)C)O)(C)O)C)C)O)(C)O",
];

/** Kinds written plain, and kinds written with parent: true. */
const PLAIN = [
  "parent_smiles",
  "parent_inchikey",
  "standardized_smiles",
  "fsp3",
  "ring_count",
  "aromatic_ring_count",
  "stereocentre_count",
  "unassigned_stereocentre_count",
  "formal_charge",
  "druglikeness",
] as const;
const ON_PARENT = [
  "fsp3",
  "ring_count",
  "aromatic_ring_count",
  "stereocentre_count",
  "unassigned_stereocentre_count",
  "formal_charge",
  "druglikeness",
  "mw",
  "logp",
  "tpsa",
  "canonical_smiles",
] as const;
const COUNTS = ["fsp3", "ring_count", "aromatic_ring_count", "stereocentre_count", "unassigned_stereocentre_count", "formal_charge"] as const;

interface NativeValues {
  fsp3: number;
  ring_count: number;
  aromatic_ring_count: number;
  stereocentre_count: number;
  unassigned_stereocentre_count: number;
  chiral_legacy: [number, number];
  chiral_new: [number, number];
  centres_7434: [number, number];
  formal_charge: number;
  pass: Record<string, boolean>;
  hba_8997_matches: number;
  pass_8997: Record<string, boolean>;
  mw: number;
  logp: number;
  tpsa: number;
  canonical_smiles: string;
}
interface NativeRow {
  smiles: string;
  error?: string;
  errors?: Record<string, string>;
  values?: NativeValues;
  standardized?: string | null;
  parent?: string | null;
  charge_parent?: string | null;
  parent_values?: NativeValues | null;
}
type Row = Record<string, unknown>;

/**
 * Upstream changes between native RDKit 2022.09 and the WASM 2026.09 build, with the exact rule under which each
 * excuses a difference.
 */
const UPSTREAM = {
  stereo7434:
    "rdkit/rdkit#7434 (PR #7446, RDKit 2024.09): the legacy stereo perception no longer flags a three-coordinate N that is not sp3 " +
    "or has a conjugated bond (an aromatic N chelating a metal, shared by three rings); the two counts are excused only when " +
    "native's minus ours equal exactly the native centres that are such N (all of them, and the unassigned ones)",
  hba8997:
    "rdkit/rdkit#8997 (after 2025.09): NumHBA's SMARTS no longer counts a three-connected aromatic N; a rule set's verdict is " +
    "excused only when the molecule has such N ([n;H0;+0;!X2], the same count in both RDKits) and native's verdicts with NumHBA " +
    "lowered by that count equal ours on all six rule sets",
  valence7491: VALENCE_7491,
  metalValence6357:
    "rdkit/rdkit#6038 and #6357 (2023.09, cleanupOrganometallics): sanitisation makes a hypervalent atom's bond to a metal dative, so " +
    "WASM reads what 2022.09 refuses (an explicit valence on a molecule with a bond to a metal); excused by metalValenceExcuse's rule",
} as const;

/** WASM RDKit's refusal of a SMILES (its message), or undefined when it reads it. */
function wasmRefusal(rdkit: RDKit, smiles: string): string | undefined {
  try {
    parseSmiles(rdkit, smiles).delete();
    return undefined;
  } catch (e) {
    if (e instanceof ToolError) return e.message;
    throw e;
  }
}

/** A native SMILES in WASM RDKit's canonical form (null stays null). */
function canonical(rdkit: RDKit, smiles: string | null | undefined): string | null {
  if (smiles === null || smiles === undefined) return null;
  const m = rdkit.get_mol(smiles);
  try {
    return m?.is_valid() ? m.get_smiles() : `(unparsable) ${smiles}`;
  } finally {
    m?.delete();
  }
}

async function ours(rdkit: RDKit, molecules: readonly string[]): Promise<Row[]> {
  const manager = new CanvasManager({ enabled: true, dir: null, maxSpillRows: 50_000 });
  try {
    const chem = await localRunner(rdkit);
    const id = await stageSmiles(manager, molecules);
    const columns = [...PLAIN, ...ON_PARENT.map((kind) => ({ kind, parent: true }))];
    for (let calls = 0; ; calls++) {
      assert.ok(calls < 20, "canvas_annotate completes");
      const { value } = await ok(
        createCanvasAnnotateTool(() => manager),
        { canvas_id: id, table: "library", columns },
        serviceContext(40_000, { chem }),
      );
      if (value.complete === true) break;
    }
    const canvas = await manager.get(id);
    const { rows } = await canvas.query("SELECT * FROM library ORDER BY id", { maxRows: molecules.length + 1, maxBytes: 64 * 1024 * 1024 });
    return rows;
  } finally {
    await manager.close();
  }
}

/** Compares every molecule's columns with native RDKit; answers how many differences each upstream rule excused. */
async function compare(t: TestContext, molecules: readonly string[]): Promise<Record<keyof typeof UPSTREAM, number>> {
  const rdkit = await loadRDKit();
  const native = await oracleLines<NativeRow>({ script: "oracle-annotate-kinds.py" }, { input: molecules.join("\n") + "\n", timeoutMs: 300_000 });
  assert.equal(native.length, molecules.length, "one native line per molecule");
  const rows = await ours(rdkit, molecules);
  assert.equal(rows.length, molecules.length);
  const q8997 = rdkit.get_qmol("[n;H0;+0;!X2]")!;
  const excused: Record<keyof typeof UPSTREAM, number> = { stereo7434: 0, hba8997: 0, valence7491: 0, metalValence6357: 0 };
  const unexplained: string[] = [];
  let compared = 0;
  let kept = 0;
  let bothRefuse = 0;
  let chargeParentDiffers = 0;
  let legacyNotCalc = 0;
  let newPerceptionDiffers = 0;
  const columnsOf = (parent: boolean) => [
    ...COUNTS,
    ...DRUG_RULE_KEYS.map((k) => `${k}_pass`),
    ...(parent ? ["mw", "logp", "tpsa", "canonical_smiles"] : ["parent_smiles", "parent_inchikey", "standardized_smiles"]),
  ];
  try {
    for (const [i, smiles] of molecules.entries()) {
      const n = native[i]!;
      const row = rows[i]!;
      const where = `${smiles}`;
      const refusal = wasmRefusal(rdkit, smiles);
      if (refusal !== undefined || n.error !== undefined) {
        if (refusal !== undefined && n.error !== undefined) bothRefuse++;
        else if (refusal !== undefined && valenceModelChange(refusal)) excused.valence7491++;
        else if (n.error !== undefined && metalValenceExcuse(n.error, bondedElements(rdkit, smiles)) !== undefined) excused.metalValence6357++;
        else unexplained.push(`${where}: WASM ${refusal ?? "reads it"}, native ${n.error ?? "reads it"}`);
        if (refusal !== undefined) {
          const filled = Object.entries(row).filter(([k, v]) => k !== "id" && k !== "smiles" && k !== "_row" && v !== null);
          if (filled.length > 0) unexplained.push(`${where}: WASM refuses it, yet ${filled.map(([k]) => k).join(", ")} hold values`);
        }
        continue;
      }
      assert.equal(n.errors, undefined, `${where}: a native step failed: ${JSON.stringify(n.errors)}`);
      const v = n.values!;
      if (v.stereocentre_count !== v.chiral_legacy[0] || v.unassigned_stereocentre_count !== v.chiral_legacy[1]) legacyNotCalc++;
      if (v.chiral_new[0] !== v.chiral_legacy[0] || v.chiral_new[1] !== v.chiral_legacy[1]) newPerceptionDiffers++;
      if (canonical(rdkit, n.parent) !== canonical(rdkit, n.charge_parent)) chargeParentDiffers++;

      // The project's rule (not an upstream change): a molecule holding a metal with no organic parent is its own parent.
      const mol = parseSmiles(rdkit, smiles);
      const input = mol.get_smiles();
      const ruled = (nativeSmiles: string | null | undefined): { smiles: string | null; kept: boolean } => {
        const c = canonical(rdkit, nativeSmiles);
        return c !== null && keepsItselfAsParent(rdkit, mol, c) ? { smiles: input, kept: true } : { smiles: c, kept: false };
      };
      let parent: { smiles: string | null; kept: boolean };
      let standardized: { smiles: string | null; kept: boolean };
      let n8997 = 0;
      try {
        parent = ruled(n.parent);
        standardized = ruled(n.standardized);
        n8997 = substructMatches(mol, q8997, 10_000).length;
      } finally {
        mol.delete();
      }
      if (parent.kept) kept++;

      const check = (column: string, same: boolean, want: unknown) => {
        compared++;
        if (!same) unexplained.push(`${where}: ${column} ${JSON.stringify(row[column])}, native ${JSON.stringify(want)}`);
      };
      const close = (a: unknown, b: unknown) => typeof a === "number" && Math.abs(a - (b as number)) < 1.5e-3;
      /** The kinds of one molecule (the input, or its parent with prefix parent_) against native's values. */
      const checkValues = (prefix: string, nv: NativeValues, matches8997: number) => {
        const [gone, goneUnassigned] = nv.centres_7434;
        const stereo =
          row[`${prefix}stereocentre_count`] !== nv.stereocentre_count || row[`${prefix}unassigned_stereocentre_count`] !== nv.unassigned_stereocentre_count;
        if (
          stereo &&
          gone > 0 &&
          row[`${prefix}stereocentre_count`] === nv.stereocentre_count - gone &&
          row[`${prefix}unassigned_stereocentre_count`] === nv.unassigned_stereocentre_count - goneUnassigned
        ) {
          excused.stereo7434++;
          compared += 2;
          for (const k of COUNTS) if (!k.includes("stereocentre")) check(`${prefix}${k}`, row[`${prefix}${k}`] === nv[k], nv[k]);
        } else for (const k of COUNTS) check(`${prefix}${k}`, row[`${prefix}${k}`] === nv[k], nv[k]);
        const verdicts = (want: Record<string, boolean>) => DRUG_RULE_KEYS.every((k) => row[`${prefix}${k}_pass`] === want[k]);
        if (!verdicts(nv.pass) && nv.hba_8997_matches > 0 && nv.hba_8997_matches === matches8997 && verdicts(nv.pass_8997)) {
          excused.hba8997++;
          compared += DRUG_RULE_KEYS.length;
        } else for (const k of DRUG_RULE_KEYS) check(`${prefix}${k}_pass`, row[`${prefix}${k}_pass`] === nv.pass[k], nv.pass[k]);
      };

      checkValues("", v, n8997);
      check("standardized_smiles", row.standardized_smiles === standardized.smiles, standardized.smiles);
      check("parent_smiles", row.parent_smiles === parent.smiles, parent.smiles);
      const key =
        parent.smiles === null
          ? null
          : ((
              representationRouterTool.run({ smiles: parent.smiles, formats: ["inchikey"] }, { rdkit, progress() {} }) as {
                representations: { inchikey: string | null };
              }
            ).representations.inchikey ?? null);
      check("parent_inchikey", row.parent_inchikey === key, key);

      // parent: true: native's values of the parent read back (or of the input itself, kept by the rule).
      const pv = parent.kept ? v : n.parent_values;
      if (pv === null || pv === undefined) {
        unexplained.push(`${where}: native cannot read its parent ${n.parent} back`);
        continue;
      }
      let parentMatches = 0;
      if (parent.smiles !== null) {
        const p = parseSmiles(rdkit, parent.smiles);
        try {
          parentMatches = substructMatches(p, q8997, 10_000).length;
        } finally {
          p.delete();
        }
      }
      checkValues("parent_", pv, parentMatches);
      check("parent_mw", close(row.parent_mw, pv.mw), pv.mw);
      check("parent_logp", close(row.parent_logp, pv.logp), pv.logp);
      check("parent_tpsa", close(row.parent_tpsa, pv.tpsa), pv.tpsa);
      const want = canonical(rdkit, pv.canonical_smiles);
      check("parent_canonical_smiles", row.parent_canonical_smiles === want, want);
    }
  } finally {
    q8997.delete();
  }
  t.diagnostic(
    `${molecules.length} molecules, ${compared} values compared (${columnsOf(false).length} plain and ${columnsOf(true).length} parent columns each); ` +
      `${bothRefuse} refused by both RDKits; ${kept} kept as their own parent (METAL_COMPLEX_KEPT, the project's rule); ` +
      `excused by upstream changes: ${Object.entries(excused)
        .map(([k, c]) => `${c} by ${k}`)
        .join(", ")}`,
  );
  t.diagnostic(
    `native cross-checks: CalcNumAtomStereoCenters/CalcNumUnspecifiedAtomStereoCenters differ from legacy FindMolChiralCenters(includeUnassigned=True) on ${legacyNotCalc}; ` +
      `the new stereo perception's FindMolChiralCenters differs from the legacy one on ${newPerceptionDiffers}; the default parent differs from ChargeParent on ${chargeParentDiffers} (the salt list)`,
  );
  for (const [k, why] of Object.entries(UPSTREAM)) t.diagnostic(`${k}: ${why}`);
  assert.deepEqual(unexplained.slice(0, 30), [], `${unexplained.length} values differ without an upstream explanation`);
  assert.equal(legacyNotCalc, 0, "native CalcNumAtomStereoCenters counts the legacy FindMolChiralCenters(includeUnassigned=True) centres");
  return excused;
}

async function nativeMissing(): Promise<string | undefined> {
  return nativeRDKitMissing("from rdkit.Chem.MolStandardize import rdMolStandardize; from rdkit.Chem.SaltRemover import SaltRemover");
}

test("canvas_annotate's new kinds, plain and with parent: true, equal native RDKit on hand-picked stereo, charged, salt, metal and macrocycle molecules", async (t) => {
  const missing = await nativeMissing();
  if (missing) return skipOracle(t, `native RDKit oracle unavailable: ${missing}`);
  const excused = await compare(t, [...new Set([...CASES, ...SPECIAL_CASES])]);
  // Each rule is live: its example is excused by it, and by nothing else.
  for (const [rule, count] of Object.entries(excused)) assert.ok(count > 0, `${rule} excuses its example`);
});

test("canvas_annotate's new kinds, plain and with parent: true, equal native RDKit on a few hundred molecules of RDKit's data files", async (t) => {
  const missing = existsSync(NCI_FILE) ? await nativeMissing() : `${NCI_FILE} is absent (Debian package rdkit-data)`;
  if (missing) return skipOracle(t, `native RDKit oracle or data files unavailable: ${missing}`);
  // An even sample of each file, and NCI's first 150 salts and charged molecules (the parent's work).
  const charged = readFileSync(NCI_FILE, "utf8")
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[0] ?? "")
    .filter((s) => /[.+-]/.test(s))
    .slice(0, 150);
  const molecules = [...new Set([...mixedSet({ nci: 300, wehi: 50, chembl: 50 }), ...charged])].filter((s) => !SPECIAL_CASES.includes(s));
  assert.ok(molecules.length >= 400, `${molecules.length} molecules`);
  await compare(t, molecules);
});
