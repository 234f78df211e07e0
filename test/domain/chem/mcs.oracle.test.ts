/**
 * find_mcs against native RDKit's rdFMCS.FindMCS with the same options (Debian python3-rdkit via
 * /usr/bin/python3, scripts/oracle-alerts.py mcs): drug pairs, near-neighbour pairs from RDKit's NCI
 * first_5K.smi, option variants and multi-molecule sets. Equal means: the same atom and bond counts, and
 * in every input molecule the two SMARTS match the same atom sets. The SMILES answer must have exactly the
 * MCS's atoms and bonds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { ToolError } from "../../../src/domain/errors.js";
import { loadRDKit, parseSmiles, type RDKit, type RDKitMol } from "../../../src/domain/chem/rdkit.js";
import { findMcsTool } from "../../../src/tools/find_mcs.js";
import type { AtomCompare, BondCompare } from "../../../src/domain/chem/mcs.js";
import { nativeRDKitMissing, oracleLines, skipOracle } from "../../helpers/oracle.js";

const SMI_FILE = "/usr/share/RDKit/Data/NCI/first_5K.smi";

interface Case {
  label: string;
  smiles_list: string[];
  ring_matches_ring_only: boolean;
  complete_rings_only: boolean;
  atom_compare: AtomCompare;
  bond_compare: BondCompare;
}

// Kept to pairs FMCS solves in under about 2 s each, so the whole comparison stays near half a minute
// (sildenafil/vardenafil, for one, takes about 10 s in each engine).
const DRUG_PAIRS: Array<[string, string, string]> = [
  [
    "imatinib/nilotinib",
    "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
    "Cc1cn(-c2cc(NC(=O)c3ccc(C)c(Nc4nccc(-c5cccnc5)n4)c3)cc(C(F)(F)F)c2)cn1",
  ],
  ["aspirin/salicylic acid", "CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O"],
  ["testosterone/estradiol", "CC12CCC3C(CCC4=CC(=O)CCC34C)C1CCC2O", "CC12CCC3c4ccc(O)cc4CCC3C1CCC2O"],
  ["morphine/codeine", "CN1CCC23C4Oc5c3c(ccc5O)CC1C2C=CC4O", "COc1ccc2CC3N(C)CCC45C(Oc1c24)C(O)C=CC35"],
  ["caffeine/theophylline", "Cn1cnc2c1c(=O)n(C)c(=O)n2C", "Cn1c(=O)c2[nH]cnc2n(C)c1=O"],
  ["ibuprofen/naproxen", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "COc1ccc2cc(ccc2c1)C(C)C(=O)O"],
  ["diazepam/lorazepam", "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc12", "OC1N=C(c2ccccc2Cl)c2cc(Cl)ccc2NC1=O"],
  ["chlorpromazine/promazine", "CN(C)CCCN1c2ccccc2Sc2ccc(Cl)cc12", "CN(C)CCCN1c2ccccc2Sc2ccccc12"],
  ["atenolol/propranolol", "CC(C)NCC(O)COc1ccc(CC(N)=O)cc1", "CC(C)NCC(O)COc1cccc2ccccc12"],
  ["penicillin G/amoxicillin", "CC1(C)SC2C(NC(=O)Cc3ccccc3)C(=O)N2C1C(=O)O", "CC1(C)SC2C(NC(=O)C(N)c3ccc(O)cc3)C(=O)N2C1C(=O)O"],
  ["ciprofloxacin/levofloxacin", "OC(=O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O", "CC1COc2c(N3CCN(C)CC3)c(F)cc3c(=O)c(C(=O)O)cn1c23"],
];

const MULTI_SETS: Array<[string, string[]]> = [
  ["three steroids", ["CC12CCC3C(CCC4=CC(=O)CCC34C)C1CCC2O", "CC12CCC3c4ccc(O)cc4CCC3C1CCC2O", "CC(=O)C1CCC2C3CCC4=CC(=O)CCC4(C)C3CCC12C"]],
  [
    "four kinase inhibitors",
    [DRUG_PAIRS[0]![1], DRUG_PAIRS[0]![2], "CN1CCN(Cc2ccc(cc2)C(=O)Nc2ccc(C)c(Nc3nccc(n3)-c3cccnc3)c2)CC1", "Cc1ccc(NC(=O)c2ccccc2)cc1Nc1nccc(-c2cccnc2)n1"],
  ],
];

async function oracleUnavailable(): Promise<string | undefined> {
  if (!existsSync(SMI_FILE)) return `${SMI_FILE} is absent (Debian package rdkit-data provides it)`;
  return nativeRDKitMissing("from rdkit.Chem import rdFMCS");
}

const ATOM_NATIVE: Record<AtomCompare, string> = { elements: "Elements", any: "Any", isotopes: "Isotopes" };
const BOND_NATIVE: Record<BondCompare, string> = { order: "Order", any: "Any", order_exact: "OrderExact" };

const BITS = Uint8Array.from({ length: 256 }, (_, b) => {
  let c = 0;
  for (let x = b; x; x >>= 1) c += x & 1;
  return c;
});

/** Near-neighbour pairs (ECFP4 Tanimoto 0.45 to 0.95) among the first molecules of first_5K.smi. */
function nciPairs(rdkit: RDKit, count: number): Array<[string, string, number]> {
  const smiles = readFileSync(SMI_FILE, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .slice(0, 600)
    .map((l) => l.trim().split(/\s+/)[0]!)
    .filter((s) => !s.includes("."));
  const fps: Array<Uint8Array | undefined> = smiles.map((s) => {
    try {
      const mol = parseSmiles(rdkit, s, { maxAtoms: 60 });
      try {
        return mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius: 2, nBits: 2048 })) as Uint8Array;
      } finally {
        mol.delete();
      }
    } catch (err) {
      if (err instanceof ToolError) return undefined;
      throw err;
    }
  });
  const pairs: Array<[string, string, number]> = [];
  const used = new Set<number>();
  for (let i = 0; i < smiles.length && pairs.length < count; i++) {
    const a = fps[i];
    if (a === undefined || used.has(i)) continue;
    let best = -1;
    let bestSim = 0;
    for (let j = i + 1; j < smiles.length; j++) {
      const b = fps[j];
      if (b === undefined || used.has(j)) continue;
      let and = 0;
      let or = 0;
      for (let k = 0; k < a.length; k++) {
        and += BITS[a[k]! & b[k]!]!;
        or += BITS[a[k]! | b[k]!]!;
      }
      const sim = or === 0 ? 0 : and / or;
      if (sim > bestSim && sim < 0.95) {
        bestSim = sim;
        best = j;
      }
    }
    if (best >= 0 && bestSim >= 0.45) {
      used.add(i).add(best);
      pairs.push([smiles[i]!, smiles[best]!, bestSim]);
    }
  }
  return pairs;
}

/** Sorted, de-duplicated atom sets of every (uniquified) match of `smarts` in `mol`. */
function matchSets(rdkit: RDKit, mol: RDKitMol, smarts: string): string[] {
  const q = rdkit.get_qmol(smarts);
  if (q === null) throw new Error(`cannot parse SMARTS ${smarts}`);
  try {
    const parsed = JSON.parse(mol.get_substruct_matches(q, JSON.stringify({ maxMatches: 1000 }))) as unknown;
    if (!Array.isArray(parsed)) return [];
    return [...new Set(parsed.map((m) => [...(m as { atoms: number[] }).atoms].sort((x, y) => x - y).join(",")))].sort();
  } finally {
    q.delete();
  }
}

/** Native RDKit's FindMCS on each JSON line of `input` (scripts/oracle-alerts.py mcs), one answer per case. */
async function nativeMcs(
  input: string,
  count: number,
): Promise<Array<{ numAtoms: number; numBonds: number; smarts: string; canceled: boolean; error?: string }>> {
  const native = await oracleLines<{ numAtoms: number; numBonds: number; smarts: string; canceled: boolean; error?: string }>(
    { script: "oracle-alerts.py" },
    { args: ["mcs"], input: input + "\n", timeoutMs: 600_000 },
  );
  assert.equal(native.length, count);
  return native;
}

test("find_mcs equals native rdFMCS.FindMCS (same options) on drug pairs, NCI near neighbours, option variants and sets", async (t) => {
  const reason = await oracleUnavailable();
  if (reason !== undefined) {
    skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    return;
  }
  const rdkit = await loadRDKit();
  const defaults = { ring_matches_ring_only: true, complete_rings_only: true, atom_compare: "elements", bond_compare: "order" } as const;
  const cases: Case[] = [];
  for (const [label, a, b] of DRUG_PAIRS) cases.push({ label, smiles_list: [a, b], ...defaults });
  for (const [a, b, sim] of nciPairs(rdkit, 15)) cases.push({ label: `NCI pair (Tanimoto ${sim.toFixed(2)})`, smiles_list: [a, b], ...defaults });
  const variants: Array<Partial<Case> & { name: string }> = [
    { name: "any atom, any bond", atom_compare: "any", bond_compare: "any" },
    { name: "partial rings allowed", ring_matches_ring_only: false, complete_rings_only: false },
    { name: "ring-only, partial rings", ring_matches_ring_only: true, complete_rings_only: false },
    { name: "exact bond order", bond_compare: "order_exact" },
  ];
  for (const v of variants) {
    for (const [label, a, b] of DRUG_PAIRS.slice(1, 7)) cases.push({ ...defaults, ...v, label: `${label}, ${v.name}`, smiles_list: [a, b] });
  }
  for (const [label, list] of MULTI_SETS) cases.push({ label, smiles_list: list, ...defaults });

  const input = cases
    .map((c) =>
      JSON.stringify({
        smiles_list: c.smiles_list,
        ringMatchesRingOnly: c.ring_matches_ring_only,
        completeRingsOnly: c.complete_rings_only,
        atomCompare: ATOM_NATIVE[c.atom_compare],
        bondCompare: BOND_NATIVE[c.bond_compare],
        timeout: 30,
      }),
    )
    .join("\n");
  const native = await nativeMcs(input, cases.length);

  let equal = 0;
  let pairCases = 0;
  let ms = 0;
  const failures: string[] = [];
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const ref = native[i]!;
    assert.equal(ref.error, undefined, `native parses ${c.label}`);
    const { label, ...args } = c;
    const t0 = performance.now();
    const ours = findMcsTool.run({ ...args, timeout_s: 30 }, { rdkit, progress: () => {} }) as {
      mcs: string | null;
      mcs_smarts: string;
      atom_count: number;
      bond_count: number;
      timed_out: boolean;
    };
    const elapsed = performance.now() - t0;
    ms += elapsed;
    assert.equal(ours.timed_out, false, `${label}: no timeout`);
    assert.equal(ref.canceled, false, `${label}: native did not time out`);
    const problems: string[] = [];
    if (ours.atom_count !== ref.numAtoms || ours.bond_count !== ref.numBonds) {
      problems.push(`counts ours ${ours.atom_count}/${ours.bond_count} native ${ref.numAtoms}/${ref.numBonds}`);
    }
    const mols = c.smiles_list.map((s) => parseSmiles(rdkit, s));
    try {
      mols.forEach((mol, k) => {
        const a = matchSets(rdkit, mol, ours.mcs_smarts);
        const b = matchSets(rdkit, mol, ref.smarts);
        if (a.length === 0) problems.push(`our SMARTS does not match molecule ${k}`);
        if (JSON.stringify(a) !== JSON.stringify(b))
          problems.push(`molecule ${k}: SMARTS match different atoms (ours ${a.slice(0, 3).join(" | ")}; native ${b.slice(0, 3).join(" | ")})`);
      });
    } finally {
      for (const m of mols) m.delete();
    }
    // The SMILES answer is the MCS itself: same atoms and bonds.
    if (ours.mcs === null) problems.push("no SMILES");
    else {
      const frag = parseSmiles(rdkit, ours.mcs);
      try {
        if (frag.get_num_atoms() !== ours.atom_count || frag.get_num_bonds() !== ours.bond_count)
          problems.push(`SMILES ${ours.mcs} has ${frag.get_num_atoms()} atoms / ${frag.get_num_bonds()} bonds`);
      } finally {
        frag.delete();
      }
    }
    if (c.smiles_list.length === 2) pairCases++;
    if (problems.length === 0) equal++;
    else failures.push(`${label}: ${problems.join("; ")}`);
    t.diagnostic(`${label}: ${ours.atom_count} atoms, ${ours.bond_count} bonds, ${ours.mcs ?? "-"} (${elapsed.toFixed(0)} ms)`);
  }
  t.diagnostic(`equal to native FindMCS: ${equal}/${cases.length} cases (${pairCases} pairs); ${(ms / cases.length).toFixed(1)} ms per find_mcs call`);
  assert.ok(pairCases >= 20, "at least 20 pairs compared");
  assert.deepEqual(failures, []);
});

test("find_mcs complete_rings_only: norbornane with naphthalene gives the 6-ring, not a ring plus a dangling ring atom", async () => {
  const rdkit = await loadRDKit();
  type Out = { mcs: string | null; mcs_smarts: string; atom_count: number; bond_count: number; note?: string };
  const run = (args: Record<string, unknown>) =>
    findMcsTool.run({ smiles_list: ["C1CC2CCC1C2", "c1ccc2ccccc2c1"], ...args }, { rdkit, progress: () => {} }) as Out;
  // Native rdFMCS.FindMCS(completeRingsOnly=True) gives 6 atoms, 6 bonds, with ringMatchesRingOnly on or off.
  for (const ringOnly of [true, false]) {
    const r = run({ ring_matches_ring_only: ringOnly });
    assert.equal(r.atom_count, 6, `ring_matches_ring_only ${ringOnly}`);
    assert.equal(r.bond_count, 6);
    assert.equal(r.mcs, "C1CCCCC1");
    assert.match(r.note ?? "", /trimmed/);
    const q = rdkit.get_qmol(r.mcs_smarts);
    assert.ok(q !== null);
    try {
      assert.equal(q.get_num_atoms(), 6, "the SMARTS is the trimmed MCS");
    } finally {
      q.delete();
    }
  }
  // Partial rings allowed: the ring plus the bridge atom stays.
  const open = run({ complete_rings_only: false, ring_matches_ring_only: false });
  assert.equal(open.atom_count, 7);
  assert.equal(open.note, undefined);
});

/**
 * Issue 13 item 10 on many ring systems: pairs and triples of consecutive NCI first_5K.smi molecules with 8-30
 * heavy atoms and at least two rings, complete_rings_only on, ring_matches_ring_only on and off. Equal as above
 * (counts and the atom sets both SMARTS match). Measured on 666 cases: 649 equal before the trim, 655 after
 * (the 6 gained were each a ring plus a partial ring; none lost). The 11 that differ fall in two named classes,
 * checked case by case:
 *  - single-atom MCS: native FMCS (2022.09) answers one atom and no bond; the WASM FMCS (2026.09) answers no
 *    MCS, another element, or two atoms whose chain bond joins ring atoms, which native does not accept;
 *  - trimmed smaller: with ring_matches_ring_only off, the WASM FMCS grew the ring through a partial ring bond
 *    where native grew it through a chain bond (same size); the trimmed answer keeps complete rings but has
 *    fewer atoms than native's.
 */
test("find_mcs complete_rings_only equals native FindMCS on NCI ring-system pairs and triples, except two named classes", async (t) => {
  const reason = await oracleUnavailable();
  if (reason !== undefined) {
    skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    return;
  }
  const rdkit = await loadRDKit();
  const picked: string[] = [];
  for (const line of readFileSync(SMI_FILE, "utf8").split("\n")) {
    const s = line.trim().split(/\s+/)[0] ?? "";
    if (s.length === 0 || s.includes(".")) continue;
    let mol: RDKitMol;
    try {
      mol = parseSmiles(rdkit, s, { maxAtoms: 30 });
    } catch (err) {
      if (err instanceof ToolError) continue;
      throw err;
    }
    try {
      const rings = (JSON.parse(mol.get_descriptors()) as { NumRings: number }).NumRings;
      if (mol.get_num_atoms() >= 8 && rings >= 2) picked.push(s);
    } finally {
      mol.delete();
    }
    if (picked.length >= 300) break; // 500 cases (400 gave 666; trimmed for CI time)
  }
  const sets: string[][] = [];
  for (let i = 0; i + 1 < picked.length; i += 2) sets.push([picked[i]!, picked[i + 1]!]);
  for (let i = 0; i + 2 < picked.length; i += 3) sets.push([picked[i]!, picked[i + 1]!, picked[i + 2]!]);
  const cases = [true, false].flatMap((ringOnly) => sets.map((smiles_list) => ({ smiles_list, ringOnly })));
  const input = cases
    .map((c) => JSON.stringify({ smiles_list: c.smiles_list, ringMatchesRingOnly: c.ringOnly, completeRingsOnly: true, timeout: 10 }))
    .join("\n");
  const native = await nativeMcs(input, cases.length);
  let equal = 0;
  let trimmed = 0;
  const singleAtom: string[] = [];
  const smaller: string[] = [];
  const unexplained: string[] = [];
  cases.forEach((c, i) => {
    const ref = native[i]!;
    assert.equal(ref.error, undefined);
    assert.equal(ref.canceled, false, "native finished");
    const ours = findMcsTool.run(
      { smiles_list: c.smiles_list, ring_matches_ring_only: c.ringOnly, complete_rings_only: true, timeout_s: 10 },
      { rdkit, progress: () => {} },
    ) as {
      mcs_smarts: string;
      atom_count: number;
      bond_count: number;
      timed_out: boolean;
      note?: string;
    };
    assert.equal(ours.timed_out, false);
    const wasTrimmed = /trimmed/.test(ours.note ?? "");
    if (wasTrimmed) trimmed++;
    let same = ours.atom_count === ref.numAtoms && ours.bond_count === ref.numBonds;
    if (same && ref.numAtoms > 0) {
      for (const s of c.smiles_list) {
        const mol = parseSmiles(rdkit, s);
        try {
          if (JSON.stringify(matchSets(rdkit, mol, ours.mcs_smarts)) !== JSON.stringify(matchSets(rdkit, mol, ref.smarts))) same = false;
        } finally {
          mol.delete();
        }
      }
    }
    const line = `${c.smiles_list.join(" ")} (ring-only ${c.ringOnly}): ours ${ours.atom_count}/${ours.bond_count} ${ours.mcs_smarts}, native ${ref.numAtoms}/${ref.numBonds} ${ref.smarts}`;
    if (same) equal++;
    else if (ref.numBonds === 0 && ref.numAtoms === 1 && ours.bond_count <= 1) singleAtom.push(line);
    else if (wasTrimmed && !c.ringOnly && ours.atom_count < ref.numAtoms) smaller.push(line);
    else unexplained.push(line);
  });
  t.diagnostic(
    `${equal} of ${cases.length} equal to native FindMCS; ${trimmed} trimmed; ${singleAtom.length} single-atom MCS; ${smaller.length} trimmed smaller`,
  );
  for (const l of singleAtom) t.diagnostic(`single-atom: ${l}`);
  for (const l of smaller) t.diagnostic(`trimmed smaller: ${l}`);
  assert.deepEqual(unexplained, [], "every difference is in a named class");
  assert.ok(cases.length >= 500, `${cases.length} cases`);
  assert.ok(equal >= cases.length - 15, `${equal} of ${cases.length} equal`);
});
