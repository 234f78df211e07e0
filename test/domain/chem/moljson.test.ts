/**
 * MolJSON: conventions (chirality neighbour order, implicit H last, cis/trans reference atoms), validation paths
 * of INVALID_MOLJSON, the two tools, and the acceptance check: the round trip SMILES -> MolJSON -> SMILES keeps
 * RDKit's canonical isomeric SMILES on every molecule of RDKit's NCI first_5K.smi that parses - also after the
 * atoms and bonds are shuffled, with Kekulé orders only (no aromatic flags), and with aromatic bonds as 1.5.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { ToolError } from "../../../src/domain/errors.js";
import { loadRDKit, withMol, type RDKit } from "../../../src/domain/chem/rdkit.js";
import {
  MOLJSON_SCHEMA,
  molJsonToSmiles,
  molToMolJson,
  validateMolJson,
  type MolJson,
  type MolJsonAtom,
  type MolJsonBond,
} from "../../../src/domain/chem/moljson.js";
import { smilesToMoljsonTool } from "../../../src/tools/smiles_to_moljson.js";
import { moljsonToSmilesTool } from "../../../src/tools/moljson_to_smiles.js";
import { createAjv } from "../../../src/server/registry.js";
import { skipOracle } from "../../helpers/oracle.js";

const SMI_FILE = "/usr/share/RDKit/Data/NCI/first_5K.smi";

const canonical = (rdkit: RDKit, smiles: string) => withMol(rdkit, smiles, (m) => m.get_smiles());
const moljsonOf = (rdkit: RDKit, smiles: string) => withMol(rdkit, smiles, (m) => molToMolJson(m));
const ctx = (rdkit: RDKit) => ({ rdkit, progress: () => {} });

function atom(element: string, implicit_hydrogens: number, extra: Partial<MolJsonAtom> = {}): Record<string, unknown> {
  return { element, implicit_hydrogens, ...extra };
}

function invalidPath(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolError, `a ToolError, got ${String(e)}`);
    assert.equal(e.code, "INVALID_MOLJSON", e.message);
    return String(e.details.path);
  }
  assert.fail("expected INVALID_MOLJSON");
}

test("MolJSON of L-alanine: Kekulé graph, RDKit atom order, chirality with its neighbour list", async () => {
  const rdkit = await loadRDKit();
  const m = moljsonOf(rdkit, "C[C@H](N)C(=O)O");
  assert.equal(m.format, "chematic-moljson");
  assert.equal(m.version, 1);
  assert.deepEqual(
    m.atoms.map((a) => [a.element, a.implicit_hydrogens, a.charge, a.isotope, a.aromatic]),
    [
      ["C", 3, 0, null, false],
      ["C", 1, 0, null, false],
      ["N", 2, 0, null, false],
      ["C", 0, 0, null, false],
      ["O", 0, 0, null, false],
      ["O", 1, 0, null, false],
    ],
  );
  assert.deepEqual(m.atoms[1]!.chirality, { winding: "ccw", neighbors: [0, 2, 3] });
  assert.deepEqual(
    m.bonds.map((b) => [b.atoms, b.order]),
    [
      [[0, 1], 1],
      [[1, 2], 1],
      [[1, 3], 1],
      [[3, 4], 2],
      [[3, 5], 1],
    ],
  );
  const validate = createAjv().compile(MOLJSON_SCHEMA);
  assert.ok(validate(m), JSON.stringify(validate.errors));
});

test("chirality: looking from neighbors[0], implicit H last; the winding follows the listed order, not the bond order", async () => {
  const rdkit = await loadRDKit();
  const base = (neighbors: number[], winding: "cw" | "ccw") => ({
    atoms: [atom("C", 1, { chirality: { winding, neighbors } }), atom("F", 0), atom("Cl", 0), atom("Br", 0)],
    bonds: [
      { atoms: [0, 1], order: 1 },
      { atoms: [0, 2], order: 1 },
      { atoms: [0, 3], order: 1 },
    ],
  });
  const S = canonical(rdkit, "F[C@H](Cl)Br"); // from F: H, Cl, Br anticlockwise == F; Cl, Br, H anticlockwise
  const R = canonical(rdkit, "F[C@@H](Cl)Br");
  assert.notEqual(S, R);
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(base([1, 2, 3], "ccw"))), S);
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(base([1, 2, 3], "cw"))), R);
  // An odd permutation of the list with the same winding is the other enantiomer; an even one is the same.
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(base([2, 1, 3], "ccw"))), R);
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(base([2, 3, 1], "ccw"))), S);
  // Reordering the bonds does not change the meaning of an explicit neighbour list.
  const reordered = base([1, 2, 3], "ccw");
  reordered.bonds.reverse();
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(reordered)), S);
  // A three-coordinate centre (sulfoxide lone pair in the implicit-H place).
  const sulfoxide = moljsonOf(rdkit, "C[S@@](=O)c1ccccc1");
  assert.equal(sulfoxide.atoms[1]!.chirality?.neighbors.length, 3);
  sulfoxide.atoms[1]!.chirality.winding = sulfoxide.atoms[1]!.chirality.winding === "cw" ? "ccw" : "cw";
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(sulfoxide)), canonical(rdkit, "C[S@](=O)c1ccccc1"));
});

test("a secondary phosphine keeps its tag with two bonded atoms (hydrogen, then lone pair, last); every tag RDKit keeps round-trips", async () => {
  const rdkit = await loadRDKit();
  // Found by the pool fuzzer: RDKit keeps @ on P with two carbons, a hydrogen and a lone pair.
  const phosphine = moljsonOf(rdkit, "C([P@H]C)C");
  assert.deepEqual(phosphine.atoms[1]!.chirality?.neighbors.length, 2);
  assert.equal(phosphine.atoms[1]!.implicit_hydrogens, 1);
  const schema = createAjv().compile(MOLJSON_SCHEMA);
  for (const smiles of ["C([P@H]C)C", "CC[P@@H]C", "C[S@@](=O)c1ccccc1", "[P@H3]", "C[P@@H]c1ccccc1", "F[C@H](Cl)Br"]) {
    const m = moljsonOf(rdkit, smiles);
    assert.ok(schema(m), `${smiles}: ${JSON.stringify(schema.errors)}`);
    assert.equal(molJsonToSmiles(rdkit, validateMolJson(m)), canonical(rdkit, smiles), smiles);
  }
  // The enantiomer by inverting the winding; the two are distinct SMILES.
  phosphine.atoms[1]!.chirality.winding = phosphine.atoms[1]!.chirality.winding === "cw" ? "ccw" : "cw";
  const other = molJsonToSmiles(rdkit, validateMolJson(phosphine));
  assert.equal(other, canonical(rdkit, "C([P@@H]C)C"));
  assert.notEqual(other, canonical(rdkit, "C([P@H]C)C"));
  // Fewer than three counting hydrogens is no tetrahedron.
  const bent = {
    atoms: [atom("O", 0, { chirality: { winding: "cw", neighbors: [1, 2] } }), atom("C", 3), atom("C", 3)],
    bonds: [
      { atoms: [0, 1], order: 1 },
      { atoms: [0, 2], order: 1 },
    ],
  };
  assert.equal(
    invalidPath(() => validateMolJson(bent)),
    "/atoms/0/chirality",
  );
});

test("inverting every winding gives the enantiomer; flipping cis/trans gives the other isomer", async () => {
  const rdkit = await loadRDKit();
  const l = moljsonOf(rdkit, "N[C@@H](Cc1ccccc1)C(=O)O");
  for (const a of l.atoms) if (a.chirality) a.chirality.winding = a.chirality.winding === "cw" ? "ccw" : "cw";
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(l)), canonical(rdkit, "N[C@H](Cc1ccccc1)C(=O)O"));

  const e = moljsonOf(rdkit, "C/C=C/C(=O)O");
  const db = e.bonds.find((b) => b.stereo !== null)!;
  assert.equal(db.stereo!.config, "trans");
  db.stereo!.config = "cis";
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(e)), canonical(rdkit, "C/C=C\\C(=O)O"));
  // Reference atoms may be given in either order; [d, a] is read as [a, d].
  const swapped = moljsonOf(rdkit, "C/C=C/C(=O)O");
  const sb = swapped.bonds.find((b) => b.stereo !== null)!;
  sb.stereo!.atoms = [sb.stereo!.atoms[1], sb.stereo!.atoms[0]];
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(swapped)), canonical(rdkit, "C/C=C/C(=O)O"));
});

test("aromatic input: order 1.5, or aromatic flags on any Kekulé orders; charges, isotopes, radicals, dative bonds", async () => {
  const rdkit = await loadRDKit();
  const ring = (order: number, aromatic: boolean | undefined) => ({
    atoms: [atom("N", 0), ...Array.from({ length: 5 }, () => atom("C", 1))],
    bonds: [0, 1, 2, 3, 4, 5].map((i) => ({ atoms: [i, (i + 1) % 6], order, ...(aromatic === undefined ? {} : { aromatic }) })),
  });
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(ring(1.5, undefined))), "c1ccncc1");
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(ring(1, true))), "c1ccncc1");
  for (const smi of ["[13CH3][NH3+]", "[2H]C([2H])([2H])Cl", "[CH2]C", "[O-][n+]1ccccc1", "C->[Fe]", "[Na+].[Cl-]", "*c1ccccc1", "[H][H]"]) {
    const m = moljsonOf(rdkit, smi);
    assert.equal(molJsonToSmiles(rdkit, validateMolJson(JSON.parse(JSON.stringify(m)))), canonical(rdkit, smi), smi);
  }
  const radical = moljsonOf(rdkit, "[CH2]C");
  assert.equal(radical.atoms[0]!.radical_electrons, 1);
  assert.equal(radical.atoms[1]!.radical_electrons, undefined);
  assert.equal(moljsonOf(rdkit, "C->[Fe]").bonds[0]!.dative, true);
});

test("INVALID_MOLJSON names the JSON Pointer of the bad field", async () => {
  const rdkit = await loadRDKit();
  const ok = () => ({
    atoms: [atom("C", 3), atom("C", 1), atom("C", 1), atom("C", 3)],
    bonds: [
      { atoms: [0, 1], order: 1 },
      { atoms: [1, 2], order: 2 },
      { atoms: [2, 3], order: 1 },
    ] as Record<string, unknown>[],
  });
  const cases: Array<[string, (d: ReturnType<typeof ok>) => unknown, string]> = [
    ["not an object", () => [1, 2], "/"],
    ["unknown top-level key", (d) => ({ ...d, molecules: [] }), "/molecules"],
    ["wrong version", (d) => ({ ...d, version: 2 }), "/version"],
    ["no atoms", () => ({ bonds: [] }), "/atoms"],
    ["empty atoms", () => ({ atoms: [], bonds: [] }), "/atoms"],
    ["atom not an object", (d) => ({ ...d, atoms: [d.atoms[0], "C", d.atoms[2], d.atoms[3]] }), "/atoms/1"],
    ["unknown element", (d) => ((d.atoms[2]!.element = "Xx"), d), "/atoms/2/element"],
    ["lower-case element", (d) => ((d.atoms[2]!.element = "cl"), d), "/atoms/2/element"],
    ["missing hydrogens", (d) => (delete d.atoms[3]!.implicit_hydrogens, d), "/atoms/3/implicit_hydrogens"],
    ["negative hydrogens", (d) => ((d.atoms[3]!.implicit_hydrogens = -1), d), "/atoms/3/implicit_hydrogens"],
    ["fractional charge", (d) => ((d.atoms[0]!.charge = 0.5), d), "/atoms/0/charge"],
    ["typo in atom key", (d) => ((d.atoms[1]!.implicitHydrogens = 1), d), "/atoms/1/implicitHydrogens"],
    ["atom index out of range", (d) => ((d.bonds[2]!.atoms = [2, 7]), d), "/bonds/2/atoms/1"],
    ["atom index not an integer", (d) => ((d.bonds[0]!.atoms = ["0", 1]), d), "/bonds/0/atoms/0"],
    ["self bond", (d) => ((d.bonds[0]!.atoms = [1, 1]), d), "/bonds/0/atoms"],
    ["duplicate bond", (d) => (d.bonds.push({ atoms: [1, 0], order: 1 }), d), "/bonds/3/atoms"],
    ["bad order", (d) => ((d.bonds[1]!.order = 4), d), "/bonds/1/order"],
    ["order 1.5 not aromatic", (d) => ((d.bonds[1]!.order = 1.5), (d.bonds[1]!.aromatic = false), d), "/bonds/1/aromatic"],
    ["stereo on a single bond", (d) => ((d.bonds[0]!.stereo = { config: "cis", atoms: [1, 2] }), d), "/bonds/0/stereo"],
    ["stereo config", (d) => ((d.bonds[1]!.stereo = { config: "E", atoms: [0, 3] }), d), "/bonds/1/stereo/config"],
    ["stereo atom not a neighbour", (d) => ((d.bonds[1]!.stereo = { config: "cis", atoms: [0, 1] }), d), "/bonds/1/stereo/atoms/1"],
    ["chirality not listing the neighbours", (d) => ((d.atoms[1]!.chirality = { winding: "cw", neighbors: [0, 2, 3] }), d), "/atoms/1/chirality/neighbors"],
    ["chirality winding", (d) => ((d.atoms[1]!.chirality = { winding: "R", neighbors: [0, 2] }), d), "/atoms/1/chirality/winding"],
    [
      "chirality on a two-neighbour atom without hydrogens",
      (d) => ((d.atoms[1] = atom("C", 0, { chirality: { winding: "cw", neighbors: [0, 2] } })), d),
      "/atoms/1/chirality",
    ],
    ["too many hydrogens (RDKit valence)", (d) => ((d.atoms[0]!.implicit_hydrogens = 4), d), "/atoms/0"],
    ["aromatic chain (RDKit)", (d) => ((d.bonds[0]!.aromatic = true), d), "/atoms/0"],
  ];
  for (const [label, make, path] of cases) {
    assert.equal(
      invalidPath(() => molJsonToSmiles(rdkit, validateMolJson(make(ok())))),
      path,
      label,
    );
  }
  // The unmodified document is fine.
  assert.equal(molJsonToSmiles(rdkit, validateMolJson(ok())), "CC=CC");
});

test("the tools: both argument names, object or string, exactly one; output matches the schemas", async () => {
  const rdkit = await loadRDKit();
  const ajv = createAjv();
  const out = smilesToMoljsonTool.run({ smiles: "OC(=O)c1ccccc1OC(C)=O" }, ctx(rdkit));
  assert.ok(ajv.compile(smilesToMoljsonTool.outputSchema)(out));
  assert.equal(out.canonical_smiles, "CC(=O)Oc1ccccc1C(=O)O");
  const moljson = out.moljson as MolJson;
  const check = ajv.compile(moljsonToSmilesTool.outputSchema);
  for (const args of [{ json: JSON.stringify(moljson) }, { json: moljson }, { moljson }, { moljson: JSON.stringify(moljson) }]) {
    const back = moljsonToSmilesTool.run(args as never, ctx(rdkit));
    assert.ok(check(back));
    assert.deepEqual(back, { canonical_smiles: "CC(=O)Oc1ccccc1C(=O)O", atom_count: 13, bond_count: 13 });
  }
  const validInput = ajv.compile(moljsonToSmilesTool.inputSchema);
  assert.ok(validInput({ moljson }), "a MolJSON object passes the input schema");
  assert.ok(validInput({ json: JSON.stringify(moljson) }));
  for (const args of [{}, { json: moljson, moljson }]) {
    assert.throws(
      () => moljsonToSmilesTool.run(args as never, ctx(rdkit)),
      (e: unknown) => e instanceof ToolError && e.code === "INVALID_ARGUMENTS",
    );
  }
  assert.throws(
    () => moljsonToSmilesTool.run({ json: '{"atoms": [' }, ctx(rdkit)),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_MOLJSON" && e.details.path === "/" && e.details.argument === "json",
  );
  assert.equal(out.notes, undefined);
  const mapped = smilesToMoljsonTool.run({ smiles: "[CH3:1][OH:2]" }, ctx(rdkit));
  assert.match((mapped.notes as string[])[0]!, /Atom-map numbers/);
  const planar = smilesToMoljsonTool.run({ smiles: "[Pt@SP1](Cl)(Cl)(N)N" }, ctx(rdkit));
  assert.match((planar.notes as string[])[0]!, /Non-tetrahedral stereo/);
  assert.throws(
    () => smilesToMoljsonTool.run({ smiles: "[Na+].".repeat(2_100) + "[Cl-]" }, ctx(rdkit)),
    (e: unknown) => e instanceof ToolError && e.code === "MOLECULE_TOO_LARGE",
  );
});

function shuffled<T>(items: T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** Renumbers atoms and reorders bonds (and each bond's two atoms) at random, remapping every reference. */
function permute(m: MolJson, random: () => number): MolJson {
  const order = shuffled([...m.atoms.keys()], random);
  const newIndex = new Array<number>(m.atoms.length);
  order.forEach((oldIndex, i) => (newIndex[oldIndex] = i));
  const map = (i: number) => newIndex[i]!;
  const atoms = order.map((oldIndex) => {
    const a = m.atoms[oldIndex]!;
    return { ...a, chirality: a.chirality ? { winding: a.chirality.winding, neighbors: a.chirality.neighbors.map(map) } : null };
  });
  const bonds: MolJsonBond[] = shuffled(
    m.bonds.map((b) => {
      const flip = random() < 0.5;
      const ends: [number, number] = flip ? [map(b.atoms[1]), map(b.atoms[0])] : [map(b.atoms[0]), map(b.atoms[1])];
      const refs = b.stereo ? (flip ? [b.stereo.atoms[1], b.stereo.atoms[0]] : [b.stereo.atoms[0], b.stereo.atoms[1]]).map(map) : null;
      return { ...b, atoms: ends, stereo: b.stereo && refs ? { config: b.stereo.config, atoms: [refs[0]!, refs[1]!] as [number, number] } : null };
    }),
    random,
  );
  return { ...m, atoms, bonds };
}

/** A copy with random tetrahedral windings and random cis/trans geometries wherever the graph allows them. */
function enrichStereo(m: MolJson, random: () => number): MolJson {
  const neighbours: number[][] = m.atoms.map(() => []);
  for (const b of m.bonds) {
    neighbours[b.atoms[0]]!.push(b.atoms[1]);
    neighbours[b.atoms[1]]!.push(b.atoms[0]);
  }
  const atoms = m.atoms.map((a, i) => {
    const n = neighbours[i]!;
    const fits = !a.aromatic && (n.length === 4 ? a.implicit_hydrogens === 0 : n.length === 3 && a.implicit_hydrogens <= 1);
    return { ...a, chirality: fits ? { winding: random() < 0.5 ? ("cw" as const) : ("ccw" as const), neighbors: shuffled(n, random) } : a.chirality };
  });
  const bonds = m.bonds.map((b) => {
    if (b.order !== 2 || b.aromatic) return b;
    const a = neighbours[b.atoms[0]]!.filter((x) => x !== b.atoms[1]);
    const d = neighbours[b.atoms[1]]!.filter((x) => x !== b.atoms[0]);
    if (a.length === 0 || d.length === 0) return b;
    return { ...b, stereo: { config: random() < 0.5 ? ("cis" as const) : ("trans" as const), atoms: [a[0]!, d[0]!] as [number, number] } };
  });
  return { ...m, atoms, bonds };
}

test("acceptance: the MolJSON round trip keeps the canonical SMILES on every NCI first_5K molecule", async (t) => {
  if (!existsSync(SMI_FILE)) {
    skipOracle(t, `${SMI_FILE} is absent (Debian package rdkit-data provides it)`);
    return;
  }
  const rdkit = await loadRDKit();
  const validate = createAjv().compile(MOLJSON_SCHEMA);
  let seed = 20260501;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 4294967296);
  const lines = readFileSync(SMI_FILE, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0);
  const stats = {
    lines: lines.length,
    parsed: 0,
    plain: 0,
    permuted: 0,
    kekule: 0,
    aromatic15: 0,
    stereo: 0,
    stereoPermuted: 0,
    variantMolecules: 0,
    chiral: 0,
    cisTrans: 0,
    charged: 0,
  };
  const failures: string[] = [];
  for (const line of lines) {
    const smi = line.trim().split(/\s+/)[0]!;
    const mol = rdkit.get_mol(smi);
    if (!mol) continue;
    let can: string;
    let m: MolJson;
    try {
      if (!mol.is_valid()) continue;
      can = mol.get_smiles();
      m = molToMolJson(mol);
    } finally {
      mol.delete();
    }
    stats.parsed++;
    if (!validate(m)) failures.push(`${smi}: schema ${JSON.stringify(validate.errors?.[0])}`);
    if (m.atoms.some((a) => a.charge !== 0)) stats.charged++;
    // The plain round trip runs on every molecule; the variants on every third one (keeps the test near 25 s).
    const variants: Array<[keyof typeof stats, unknown]> = [["plain", JSON.parse(JSON.stringify(m))]];
    if (stats.parsed % 3 === 1) {
      variants.push(
        ["permuted", permute(m, random)],
        ["kekule", { ...m, atoms: m.atoms.map((a) => ({ ...a, aromatic: false })), bonds: m.bonds.map((b) => ({ ...b, aromatic: false })) }],
        ["aromatic15", { ...m, bonds: m.bonds.map((b) => (b.aromatic ? { ...b, order: 1.5 } : b)) }],
      );
    }
    for (const [name, doc] of variants) {
      let back: string;
      try {
        back = molJsonToSmiles(rdkit, validateMolJson(doc));
      } catch (e) {
        failures.push(`${name} ${smi}: ${(e as Error).message}`);
        continue;
      }
      if (back === can) stats[name]++;
      else failures.push(`${name} ${smi}: ${can} -> ${back}`);
    }
    if (stats.parsed % 3 !== 1) continue;
    stats.variantMolecules++;
    // NCI SMILES carry no stereo: a stereo-enriched copy gets a random winding on every atom with 3-4 neighbours
    // and a random geometry on every non-aromatic double bond with substituents at both ends. RDKit keeps the real
    // stereo elements among them when it writes the SMILES; that SMILES must survive its own round trip too.
    const enriched = enrichStereo(m, random);
    let stereoSmiles: string | undefined;
    try {
      stereoSmiles = molJsonToSmiles(rdkit, validateMolJson(enriched));
    } catch (e) {
      failures.push(`enrich ${smi}: ${(e as Error).message}`);
    }
    if (stereoSmiles !== undefined) {
      const sm = withMol(rdkit, stereoSmiles, (x) => molToMolJson(x));
      if (sm.atoms.some((a) => a.chirality)) stats.chiral++;
      if (sm.bonds.some((b) => b.stereo)) stats.cisTrans++;
      for (const [name, doc] of [
        ["stereo", sm],
        ["stereoPermuted", permute(sm, random)],
      ] as const) {
        try {
          const back = molJsonToSmiles(rdkit, validateMolJson(JSON.parse(JSON.stringify(doc))));
          if (back === stereoSmiles) stats[name]++;
          else failures.push(`${name} ${smi}: ${stereoSmiles} -> ${back}`);
        } catch (e) {
          failures.push(`${name} ${smi} (${stereoSmiles}): ${(e as Error).message}`);
        }
      }
    }
  }
  t.diagnostic(`MolJSON round trip on NCI first_5K: ${JSON.stringify(stats)}`);
  for (const f of failures.slice(0, 20)) t.diagnostic(f);
  assert.deepEqual(failures.slice(0, 20), []);
  assert.ok(stats.parsed >= 4900, `most lines parse (${stats.parsed})`);
  assert.ok(stats.chiral > 300 && stats.cisTrans > 100, "the stereo-enriched set exercises tetrahedral and double-bond stereo");
  assert.equal(stats.plain, stats.parsed, "plain round trip on every molecule");
  for (const k of ["permuted", "kekule", "aromatic15", "stereo", "stereoPermuted"] as const) assert.equal(stats[k], stats.variantMolecules, k);
});
