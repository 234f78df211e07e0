/**
 * enumerate_reaction (src/domain/chem/reaction.ts) against native RDKit 2022.09: per reaction, every
 * combination of its reactant lists run through AllChem.ReactionFromSmarts(smarts).RunReactants (maxProducts
 * 1000), each outcome's products sanitised (Chem.SanitizeMol; an outcome with a product that fails is counted
 * and dropped), written with MolToSmiles and joined with ".", de-duplicated keeping the first combination.
 * The reactants are molecules of RDKit's data files (NCI first_5K, WEHI PAINS set, ChEMBL_11265 actives,
 * benzodiazepines, the hand-picked stereo/charge/salt/macrocycle cases) that carry the template's group,
 * plus small hand-made lists (boronic acids, sulfonyl chlorides, dienophiles). Native SMILES are
 * re-canonicalised by the WASM RDKit so a canonical-order change between versions is not counted. Compared:
 * the product set, each product's first reactant indices, and the count of outcomes that fail sanitisation.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { loadRDKit, type RDKit, type RDKitMol } from "../../../src/domain/chem/rdkit.js";
import { enumerateReaction } from "../../../src/domain/chem/reaction.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../../helpers/oracle.js";
import { NCI_FILE, mixedSet } from "../../helpers/rdkit-data-sets.js";

const BORONIC = ["OB(O)c1ccccc1", "OB(O)c1ccc(C)cc1", "OB(O)c1cccnc1", "OB(O)c1ccc(F)cc1C", "OB(O)c1ccsc1", "CC1(C)OB(c2ccccc2)OC1(C)C"];
const SULFONYL = ["CS(=O)(=O)Cl", "Cc1ccc(S(=O)(=O)Cl)cc1", "O=S(=O)(Cl)c1cccs1"];
const DIENOPHILES = ["C=CC(=O)OC", "O=C1C=CC(=O)O1", "C=CC#N", "C/C=C/C(=O)O", "O=C1C=CC(=O)N1C"];
const DIENES = ["C=CC=C", "CC(=C)C=C", "C1=CCC=C1", "C/C=C/C=C", "C=CC(=C)C"];

interface Reaction {
  name: string;
  smarts: string;
  /** Per template: SMARTS selecting molecules of the pool, and how many; or a fixed list. */
  lists: Array<{ select: string; count: number } | string[]>;
}

const REACTIONS: Reaction[] = [
  {
    name: "amide coupling",
    smarts: "[C:1](=[O:2])[OH].[N;!H0;!$(NC=O);!$(N-[!#6;!#1]):3]>>[C:1](=[O:2])[N:3]",
    lists: [
      { select: "C(=O)[OH]", count: 15 },
      { select: "[N;!H0;!$(NC=O)]", count: 15 },
    ],
  },
  {
    name: "ester hydrolysis (two products)",
    smarts: "[C:1](=[O:2])[O:3][C;!$(C=O):4]>>[C:1](=[O:2])[OH:3].[OH][C:4]",
    lists: [{ select: "C(=O)O[C;!$(C=O)]", count: 60 }],
  },
  { name: "Suzuki coupling", smarts: "[c:1][Br,I].[c:2]B(O)O>>[c:1][c:2]", lists: [{ select: "c[Br,I]", count: 30 }, BORONIC] },
  {
    name: "reductive amination",
    smarts: "[CX3;!$(C[O,N,S]):1]=[O].[N;!H0;!$(NC=O);!$(N[a]):2]>>[C:1][N:2]",
    lists: [
      { select: "[CX3;!$(C[O,N,S])]=O", count: 15 },
      { select: "[N;!H0;!$(NC=O);!$(N[a])]", count: 10 },
    ],
  },
  { name: "nitro reduction (charge kept from the reactant)", smarts: "[N+:1](=O)[O-]>>[N:1]", lists: [{ select: "[N+](=O)[O-]", count: 50 }] },
  { name: "Boc removal", smarts: "[N:1]C(=O)OC(C)(C)C>>[N:1]", lists: [{ select: "NC(=O)OC(C)(C)C", count: 30 }] },
  { name: "pyridine N-methylation", smarts: "[n;X2;+0:1]>>[n+:1]C", lists: [{ select: "[n;X2;+0]", count: 60 }] },
  { name: "pentavalent carbon (every outcome fails sanitisation)", smarts: "[CH3:1]>>[C:1](F)(F)(F)F", lists: [{ select: "[CH3]", count: 40 }] },
  { name: "Diels-Alder", smarts: "[C:1]=[C:2][C:3]=[C:4].[C:5]=[C:6]>>[C:1]1[C:2]=[C:3][C:4][C:5][C:6]1", lists: [DIENES, DIENOPHILES] },
  { name: "stereocentre inversion", smarts: "[C:1][C@H:2]([N:3])[C:4]>>[C:1][C@@H:2]([N:3])[C:4]", lists: [{ select: "[C][C@H](N)[C]", count: 30 }] },
  {
    name: "SNAr",
    smarts: "[c:1][F,Cl].[N;!H0;!$(NC=O);!$(N[a]):2]>>[c:1][N:2]",
    lists: [
      { select: "c[F,Cl]", count: 20 },
      { select: "[N;!H0;!$(NC=O);!$(N[a])]", count: 8 },
    ],
  },
  {
    name: "sulfonamide",
    smarts: "[S:1](=[O:2])(=[O:3])Cl.[N;!H0;!$(NC=O):4]>>[S:1](=[O:2])(=[O:3])[N:4]",
    lists: [SULFONYL, { select: "[N;!H0;!$(NC=O)]", count: 30 }],
  },
  {
    name: "Williamson ether",
    smarts: "[c:1][OH].[CX4;!$(C[O,N]):2][Br,I,Cl]>>[c:1]O[C:2]",
    lists: [
      { select: "c[OH]", count: 15 },
      { select: "[CX4;!$(C[O,N])][Br,I,Cl]", count: 12 },
    ],
  },
  {
    name: "benzene ring saturation (aromatic flags in the product)",
    smarts: "[c:1]1[c:2][c:3][c:4][c:5][c:6]1>>[C:1]1[C:2][C:3][C:4][C:5][C:6]1",
    lists: [{ select: "c1ccccc1", count: 25 }],
  },
  { name: "double-bond geometry set", smarts: "[C:1][CH:2]=[CH:3][C:4]>>[C:1]/[CH:2]=[CH:3]/[C:4]", lists: [{ select: "C[CH]=[CH]C", count: 30 }] },
];

const SCRIPT = String.raw`
import sys, json, itertools
from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem
RDLogger.DisableLog('rdApp.*')
job = json.load(sys.stdin)
out = []
for r in job:
  rxn = AllChem.ReactionFromSmarts(r['smarts'])
  lists = [[(i, Chem.MolFromSmiles(s)) for i, s in enumerate(l)] for l in r['lists']]
  lists = [[(i, m) for i, m in l if m is not None] for l in lists]
  seen = {}
  failures = 0
  for combo in itertools.product(*lists):
    for ps in rxn.RunReactants(tuple(m for _, m in combo)):
      try:
        parts = []
        for p in ps:
          Chem.SanitizeMol(p)
          parts.append(Chem.MolToSmiles(p))
      except Exception:
        failures += 1
        continue
      s = '.'.join(parts)
      if s not in seen:
        seen[s] = [i for i, _ in combo]
  out.append({'products': [[s, ix] for s, ix in seen.items()], 'failures': failures})
print(json.dumps(out))
`;

async function skipReason(): Promise<string | undefined> {
  if (!existsSync(NCI_FILE)) return `${NCI_FILE} is absent (Debian package rdkit-data provides it)`;
  return nativeRDKitMissing();
}

function canonical(rdkit: RDKit, smiles: string): string {
  const m = rdkit.get_mol(smiles);
  if (m === null) return `unparsable:${smiles}`;
  try {
    return m.get_smiles();
  } finally {
    m.delete();
  }
}

/** The first `count` molecules of the pool (parsed once) holding `smarts`. */
function select(rdkit: RDKit, pool: Array<{ smiles: string; mol: RDKitMol }>, smarts: string, count: number): string[] {
  const q = rdkit.get_qmol(smarts)!;
  const out: string[] = [];
  try {
    for (const { smiles, mol } of pool) {
      if (out.length >= count) break;
      if (mol.get_substruct_match(q) !== "{}") out.push(smiles);
    }
  } finally {
    q.delete();
  }
  return out;
}

test("enumerate_reaction: products, first reactant indices and sanitisation failures equal native RDKit 2022.09 RunReactants on 15 reactions", async (t) => {
  const reason = await skipReason();
  if (reason) return skipOracle(t, reason);
  const t0 = performance.now();
  const rdkit = await loadRDKit();
  // Metal complexes left out of the pool: native 2022.09 refuses some that 2026.09 reads (see druglikeness.oracle.test.ts).
  const pool: Array<{ smiles: string; mol: RDKitMol }> = [];
  for (const smiles of mixedSet({ nci: 1500, wehi: 500 }).filter((s) => !/Pt|Co|Sb|Fe|Sn|Hg|Cu|Zn|Ni|Pd|Mn|Cr|V\b/.test(s))) {
    const mol = rdkit.get_mol(smiles);
    if (mol !== null) pool.push({ smiles, mol });
  }
  let jobs: Array<{ smarts: string; lists: string[][] }>;
  try {
    jobs = REACTIONS.map((r) => ({ smarts: r.smarts, lists: r.lists.map((l) => (Array.isArray(l) ? l : select(rdkit, pool, l.select, l.count))) }));
  } finally {
    for (const { mol } of pool) mol.delete();
  }
  const t1 = performance.now();
  const native = JSON.parse(await oracleOutput({ program: SCRIPT }, { input: JSON.stringify(jobs), timeoutMs: 120_000 })) as Array<{
    products: Array<[string, number[]]>;
    failures: number;
  }>;
  const t2 = performance.now();
  let ourMs = 0;
  let products = 0;
  let combinations = 0;
  let failures = 0;
  const reactantsUsed = new Set<string>();
  const differences: string[] = [];
  for (const [k, r] of REACTIONS.entries()) {
    const job = jobs[k]!;
    for (const l of job.lists) for (const s of l) reactantsUsed.add(s);
    const t3 = performance.now();
    const ours = enumerateReaction(rdkit, r.smarts, job.lists, { deadline: Date.now() + 60_000 });
    ourMs += performance.now() - t3;
    const ref = native[k]!;
    const theirs = new Map<string, number[]>();
    for (const [smi, ix] of ref.products) {
      const c = canonical(rdkit, smi);
      if (!theirs.has(c)) theirs.set(c, ix);
    }
    const mine = new Map(ours.products.map((p) => [p.smiles, p.reactant_indices]));
    const onlyOurs = [...mine.keys()].filter((s) => !theirs.has(s));
    const onlyNative = [...theirs.keys()].filter((s) => !mine.has(s));
    const indexDiffs = [...mine].filter(([s, ix]) => theirs.has(s) && JSON.stringify(theirs.get(s)) !== JSON.stringify(ix)).map(([s]) => s);
    if (onlyOurs.length + onlyNative.length + indexDiffs.length > 0 || ours.sanitization_failures !== ref.failures)
      differences.push(
        `${r.name}: only ours ${JSON.stringify(onlyOurs.slice(0, 5))}, only native ${JSON.stringify(onlyNative.slice(0, 5))}, ` +
          `indices differ ${JSON.stringify(indexDiffs.slice(0, 5))}, failures ours ${ours.sanitization_failures} native ${ref.failures}`,
      );
    assert.equal(ours.truncated, false);
    products += mine.size;
    combinations += ours.combinations;
    failures += ours.sanitization_failures;
    t.diagnostic(
      `${r.name}: ${job.lists.map((l) => l.length).join(" x ")} reactants, ${ours.combinations} combinations, ${mine.size} products, ${ours.sanitization_failures} sanitisation failures`,
    );
  }
  t.diagnostic(
    `enumerate_reaction: ${REACTIONS.length} reactions, ${reactantsUsed.size} distinct reactants, ${combinations} combinations, ${products} products, ${failures} failed outcomes; ${differences.length} reactions differ; ms: pool ${Math.round(t1 - t0)}, native ${Math.round(t2 - t1)}, ours ${Math.round(ourMs)}`,
  );
  assert.deepEqual(differences, []);
  assert.ok(products > 300, `products ${products}`);
});
