/**
 * rgroup_decompose against native RDKit 2022.09 rdRGroupDecomposition.RGroupDecompose([core], mols,
 * asSmiles=True, asRows=True) at default parameters, on series from RDKit's data files (the ChEMBL series of
 * Contrib/FreeWilson, NCI first_5K.smi) and on hand-made series with stereo, charges, salts and metals. Each job's list
 * holds only molecules both RDKits parse (as the tool's contract says); the molecules are given to both sides
 * in the same order, and every row (labelled core and each R group as SMILES) and the unmatched indices must
 * be equal. Both sides' SMILES are rewritten by the same (WASM) RDKit before comparing, so a canonical-order
 * change between the versions is not counted; the differences left must each follow a named upstream rule.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { loadRDKit, type RDKit } from "../../../src/domain/chem/rdkit.js";
import { runRgroupDecompose } from "../../../src/tools/rgroup_decompose.js";
import { oracleOutput, PYTHON, skipOracle } from "../../helpers/oracle.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
/** A ChEMBL SAR series (CHEMBL2321810, 1,017 sulfonamides) that RDKit ships for its Free-Wilson example. */
const FREE_WILSON = "/usr/share/RDKit/Contrib/FreeWilson/data/CHEMBL2321810.smi";

interface Job {
  name: string;
  core: string;
  smiles: string[];
}

interface NativeAnswer {
  rows: Array<Record<string, string>>;
  unmatched: number[];
}

/** A program in the shared native RDKit process, its input and answer one JSON value each. */
async function python(script: string, input: unknown): Promise<unknown> {
  return JSON.parse(await oracleOutput({ program: script }, { input: JSON.stringify(input) })) as unknown;
}

const PARSE_SCRIPT = [
  "import sys, json",
  "from rdkit import Chem, RDLogger",
  "RDLogger.DisableLog('rdApp.*')",
  "print(json.dumps([Chem.MolFromSmiles(s) is not None for s in json.load(sys.stdin)]))",
].join("\n");

const RGD_SCRIPT = [
  "import sys, json",
  "from rdkit import Chem, RDLogger",
  "from rdkit.Chem import rdRGroupDecomposition as R",
  "RDLogger.DisableLog('rdApp.*')",
  "out = []",
  "for job in json.load(sys.stdin):",
  "    core = Chem.MolFromSmarts(job['core']) if job['read_as'] == 'smarts' else Chem.MolFromSmiles(job['core'])",
  "    mols = [Chem.MolFromSmiles(s) for s in job['smiles']]",
  "    rows, unmatched = R.RGroupDecompose([core], mols, asSmiles=True, asRows=True)",
  "    out.append({'rows': rows, 'unmatched': list(unmatched)})",
  "print(json.dumps(out))",
].join("\n");

function smilesFile(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[0] ?? "")
    .filter((s) => s.length > 0);
}

/** Molecules of `pool` matching `smarts` in the WASM RDKit (so each series mostly matches its core), at most `n`. */
function series(rdkit: RDKit, pool: readonly string[], smarts: string, n: number): string[] {
  const q = rdkit.get_qmol(smarts);
  const out: string[] = [];
  try {
    for (const s of pool) {
      if (out.length >= n) break;
      const m = rdkit.get_mol(s);
      if (!m) continue;
      try {
        if (q && m.is_valid() && m.get_num_atoms() <= 60 && m.get_substruct_match(q) !== "{}") out.push(s);
      } finally {
        m.delete();
      }
    }
  } finally {
    q?.delete();
  }
  return out;
}

const HAND_MADE: Job[] = [
  {
    name: "benzene, stereo, charges, salts, metals",
    core: "c1ccccc1",
    smiles: [
      "C[C@H](N)c1ccccc1",
      "C[C@@H](N)c1ccc(Cl)cc1",
      "O=C([O-])c1ccccc1.[Na+]",
      "C[N+](C)(C)c1ccc(O)cc1",
      "Cl.NCc1ccccc1F",
      "[Li]c1ccccc1",
      "C/C=C/c1ccccc1",
      "C/C=C\\c1ccc(Br)cc1",
      "OC(=O)c1ccccc1O",
      "CC(C)(C)c1ccc(C(C)(C)C)cc1",
      "CCO",
      "C1CCCCC1",
    ],
  },
  {
    name: "labelled piperidine core",
    core: "C1CN([*:1])CCC1[*:2]",
    smiles: ["CN1CCC(O)CC1", "CC(=O)N1CCC(C(=O)O)CC1", "C1CCNCC1", "OC1CCN(Cc2ccccc2)CC1", "C[C@@H]1CN(C)CCC1O", "c1ccncc1"],
  },
  {
    name: "SMARTS core",
    core: "[#6]1:[#6]:[#7]:[#6]:[#6]:[#6]:1[*:1]",
    smiles: ["Cc1ccncc1", "Clc1cccnc1", "c1ccncc1", "OCc1ccc(N)nc1", "c1ccccc1", "[O-][n+]1ccc(C)cc1"],
  },
  {
    name: "macrocycles on an amide core",
    core: "O=C(N[*:2])[*:1]",
    smiles: ["O=C1CCCCCCCCCCCN1", "CC(=O)NC", "O=C(Nc1ccccc1)c1ccccc1", "CCCCC(=O)NCC", "CCN"],
  },
];

/** Canonical SMILES as the WASM RDKit writes it (so a canonical-order change between RDKit versions is not counted). */
function rewrite(rdkit: RDKit, smiles: string): string {
  const m = rdkit.get_mol(smiles);
  try {
    return m && m.is_valid() ? m.get_smiles() : `unparsable:${smiles}`;
  } finally {
    m?.delete();
  }
}

/** A row's groups, each rewritten by the same RDKit, keys sorted: one string to compare. */
function sameWriter(rdkit: RDKit, groups: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(groups)
      .sort()
      .map((k) => [k, rewrite(rdkit, groups[k]!)]),
  );
}

/**
 * Both rules below follow one upstream change, rdkit/rdkit#5735 ("Bug/github5613", commit 0d68b2f, merged
 * 2022-12-15, first released in Release_2023_03_1, absent from every Release_2022_09_* tag). It replaced how the
 * decomposition's output core is built:
 * - Release_2022_09_3, RGroupCore.cpp: RCore::coreWithMatches copies the labelled *query* core and, through
 *   RCore::replaceCoreAtom, gives each matched atom the molecule's aromatic flag and formal charge only; its
 *   hydrogens are then implicit from the query core's own bonds, and its bonds are the query's bonds.
 * - Release_2023_03_1 onwards (and 2026.09): RCore::extractCoreFromMolMatch copies the *molecule*, keeps the
 *   matched atoms (and the hydrogens needed for chirality) and deletes the rest, so the core keeps the molecule's
 *   hydrogen counts and every bond the molecule has between two core atoms.
 *
 * Hydrogen rule: a charged core atom whose R group holds two side chains (a quaternary N+, R group
 * 'C[*:3].C[*:3]') has, in the 2022.09 core, one attachment bond where the molecule has two, so the implicit
 * valence of N+ gives it a hydrogen the molecule lacks: '[NH+]([*:3])' where 2026.09 writes '[N+]([*:3])'.
 * The rule: every R group is equal, the native core equals ours with one [N+] written [NH+], and an R group of
 * that row holds two side chains.
 */
function rule5735(rdkit: RDKit, _smiles: string, mine: Record<string, unknown>, row: Record<string, string | number>, theirs: Record<string, string>): boolean {
  const { index: _index, ...groups } = row;
  const core = (mine.core as string | undefined) ?? (groups.Core as string | undefined);
  if (core === undefined || theirs.Core === undefined) return false;
  const { Core: _c, ...ourR } = groups as Record<string, string>;
  const { Core: nativeCore, ...nativeR } = theirs;
  if (sameWriter(rdkit, ourR) !== sameWriter(rdkit, nativeR)) return false;
  if (!Object.values(nativeR).some((r) => r.includes("."))) return false;
  const ourCore = core;
  return [...ourCore.matchAll(/\[N\+\]/g)].some(
    (m) => rewrite(rdkit, ourCore.slice(0, m.index) + "[NH+]" + ourCore.slice(m.index + 4)) === rewrite(rdkit, nativeCore),
  );
}

/**
 * Bond rule (rdkit#5735, above): a bond the molecule has between two core atoms that the query core lacks
 * (a cyclopropane fused across the steroid core) is in our core and not in native 2022.09's, whose core has the
 * query's bonds only. The rule: every R group is equal, both cores have the same atoms, native's core has
 * exactly the query core's bonds plus one bond per attachment atom it adds, ours has more, and native's core is a
 * substructure of ours.
 */
function ruleCoreBonds(
  rdkit: RDKit,
  query: { core: string; readAs: string },
  mine: Record<string, unknown>,
  row: Record<string, string | number>,
  theirs: Record<string, string>,
): boolean {
  const { index: _index, ...groups } = row;
  const core = (mine.core as string | undefined) ?? (groups.Core as string | undefined);
  const { Core: _c, ...ourR } = groups as Record<string, string>;
  const { Core: nativeCore, ...nativeR } = theirs;
  if (core === undefined || nativeCore === undefined || sameWriter(rdkit, ourR) !== sameWriter(rdkit, nativeR)) return false;
  const a = rdkit.get_mol(core);
  const b = rdkit.get_mol(nativeCore);
  const q = query.readAs === "smarts" ? rdkit.get_qmol(query.core) : rdkit.get_mol(query.core);
  try {
    if (!a || !b || !q) return false;
    const queryBondsOnly = b.get_num_bonds() - q.get_num_bonds() === b.get_num_atoms() - q.get_num_atoms();
    return queryBondsOnly && a.get_num_atoms() === b.get_num_atoms() && a.get_num_bonds() > b.get_num_bonds() && a.get_substruct_match(b) !== "{}";
  } finally {
    a?.delete();
    b?.delete();
    q?.delete();
  }
}

test("rgroup_decompose equals native RGroupDecompose on a ChEMBL series, NCI series and hand-made sets", { timeout: 120_000 }, async (t) => {
  if (!existsSync(PYTHON) || !existsSync(NCI) || !existsSync(FREE_WILSON)) return skipOracle(t, `native RDKit (${PYTHON}), ${NCI} or ${FREE_WILSON} is absent`);
  const rdkit = await loadRDKit();
  const nci = smilesFile(NCI);
  const chembl = smilesFile(FREE_WILSON);
  const jobs: Job[] = [
    { name: "ChEMBL Free-Wilson series, labelled core", core: "O=S(=O)([*:1])c1cc([*:2])c(O[*:3])c(C#N)c1", smiles: chembl.slice(0, 100) },
    { name: "ChEMBL Free-Wilson series, unlabelled core", core: "O=S(=O)c1ccc(O)c(C#N)c1", smiles: chembl.slice(500, 560) },
    { name: "NCI: pyridines on pyridine", core: "c1ccncc1", smiles: series(rdkit, nci, "c1ccncc1", 40) },
    { name: "NCI: piperidines on piperidine", core: "C1CCNCC1", smiles: series(rdkit, nci, "C1CCNCC1", 60) },
    { name: "NCI: carboxylic acids on [*:1]C(=O)O", core: "[*:1]C(=O)O", smiles: series(rdkit, nci, "C(=O)[OH]", 60) },
    { name: "NCI: first 20, benzene (matched and unmatched)", core: "c1ccccc1", smiles: nci.slice(0, 20) },
    { name: "NCI: steroids", core: "C1CCC2C(C1)CCC1C2CCC2CCCC12", smiles: series(rdkit, nci, "C1CCC2C(C1)CCC1C2CCC2CCCC12", 40) },
    ...HAND_MADE,
  ];
  // Only the molecules both RDKits parse.
  const nativeParses = (await python(
    PARSE_SCRIPT,
    jobs.flatMap((j) => j.smiles),
  )) as boolean[];
  let k = 0;
  for (const job of jobs) {
    job.smiles = job.smiles.filter(() => nativeParses[k++] === true);
  }
  const ours = jobs.map((job) => runRgroupDecompose(rdkit, { core: job.core, smiles_list: job.smiles }));
  const native = (await python(
    RGD_SCRIPT,
    jobs.map((job, i) => ({ core: job.core, read_as: ours[i]!.core_read_as, smiles: job.smiles })),
  )) as NativeAnswer[];
  let molecules = 0;
  let agreeing = 0;
  let byUpstream = 0;
  let byCoreBonds = 0;
  const differences: string[] = [];
  jobs.forEach((job, i) => {
    const mine = ours[i]!;
    const theirs = native[i]!;
    assert.equal(mine.invalid, undefined, `${job.name}: every molecule parses`);
    assert.deepEqual(mine.unmatched, theirs.unmatched, `${job.name}: unmatched`);
    const matchedIdx = job.smiles.map((_, j) => j).filter((j) => !theirs.unmatched.includes(j));
    const myRows = mine.rows as Array<Record<string, string | number>>;
    assert.equal(myRows.length, theirs.rows.length, `${job.name}: rows`);
    molecules += job.smiles.length;
    agreeing += theirs.unmatched.length;
    myRows.forEach((row, r) => {
      const { index, ...groups } = row;
      assert.equal(index, matchedIdx[r], `${job.name}: row ${r} is molecule ${matchedIdx[r]}`);
      const ourGroups = sameWriter(rdkit, { ...(mine.core !== undefined ? { Core: mine.core as string } : {}), ...(groups as Record<string, string>) });
      const nativeGroups = sameWriter(rdkit, theirs.rows[r]!);
      if (ourGroups === nativeGroups) agreeing++;
      else if (rule5735(rdkit, job.smiles[index as number]!, mine, row, theirs.rows[r]!)) byUpstream++;
      else if (ruleCoreBonds(rdkit, { core: job.core, readAs: mine.core_read_as as string }, mine, row, theirs.rows[r]!)) byCoreBonds++;
      else differences.push(`${job.name} #${String(index)} ${job.smiles[index as number]}: ours ${ourGroups} native ${nativeGroups}`);
    });
    t.diagnostic(`${job.name}: ${job.smiles.length} molecules, ${theirs.rows.length} decomposed, ${theirs.unmatched.length} unmatched`);
  });
  t.diagnostic(`rdkit#5735 hydrogen rule (core hydrogens copied from the molecule): ${byUpstream} molecules`);
  t.diagnostic(`rdkit#5735 bond rule (bonds between core atoms copied from the molecule): ${byCoreBonds} molecules`);
  t.diagnostic(
    `rgroup_decompose: ${agreeing}/${molecules} molecules equal to native RGroupDecompose over ${jobs.length} series, ${byUpstream} differ by the rdkit#5735 hydrogen rule only, ${byCoreBonds} by its bond rule only`,
  );
  assert.deepEqual(differences, []);
});
