import { VIEWER3D_APP_URI } from "../contract/apps.js";
import {
  DUPLICATE_RMSD,
  FORCE_FIELD,
  FORCE_FIELD_LABEL,
  MAX_RING_ATOMS,
  bestRmsd,
  embeddingFailed,
  generateConformers,
  reproducibleSeeds,
  xyzFromMolfile,
} from "../domain/chem/conformers.js";
import type { Conformer, ConformerStep } from "../domain/chem/conformers.js";
import { molGraph } from "../domain/chem/graph.js";
import { parseSmiles, rewrittenSmiles, round } from "../domain/chem/rdkit.js";
import { inputFormatOf } from "../domain/chem/input-format.js";
import type { RDKit, RDKitMol } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { type ChemTool, type ProgressReporter } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

/**
 * Heavy-atom cap. Measured CPU time for one conformer (generator plus MMFF minimisation, fragment cache
 * emptied per call for reproducibility): imatinib (37 heavy atoms) 5-7 s, atorvastatin (41) 9 s, a
 * 78-atom decapeptide 23 s, rifampicin (59, macrocycle) 29 s. Beyond about 100 heavy atoms one conformer
 * no longer fits the 45 s budget, and MMFF geometries of such molecules are rarely what one call should give.
 */
export const GENERATE_3D_MAX_HEAVY_ATOMS = 100;
const GENERATE_3D_MAX_CONFORMERS = 10;
const DEFAULT_SEED = 42;
/** Hard budget under clients' 60 s; no new conformer starts after SOFT_MS, minimisation stops at HARD_MS. */
const BUDGET_MS = 45_000;
const SOFT_MS = 25_000;
const HARD_MS = 38_000;

interface Args {
  smiles: string;
  num_conformers?: number;
  seed?: number;
  add_hydrogens?: boolean;
}

interface StereoElement {
  atoms: number[];
  label: string;
}

interface Checked {
  smiles: string;
  assigned: StereoElement[];
}

interface StereoTags {
  CIP_atoms: [number, string][];
  CIP_bonds: [number, number, string][];
}

function stereoTags(mol: RDKitMol): StereoTags {
  const tags = JSON.parse(mol.get_stereo_tags()) as Partial<StereoTags>;
  return { CIP_atoms: tags.CIP_atoms ?? [], CIP_bonds: tags.CIP_bonds ?? [] };
}

const clean = (label: string) => label.replace(/[()]/g, "");
/** RDKit labels a stereocentre the input leaves open "(?)": it is not a specified one. */
const specified = (label: string) => clean(label) !== "?";

/** Symmetries of the heavy-atom graph (self-matches), at most 1000; none when explicit H atoms shift indices. */
function automorphisms(mol: RDKitMol): number[][] {
  if (mol.get_num_atoms() !== mol.get_num_atoms(true)) return [];
  const parsed = JSON.parse(mol.get_substruct_matches(mol, JSON.stringify({ uniquify: false, maxMatches: 1000 }))) as unknown;
  return Array.isArray(parsed) ? (parsed as { atoms: number[] }[]).map((m) => m.atoms) : [];
}

/**
 * RDKit keeps an explicit hydrogen read from a 3D molfile when its bond direction could define a double
 * bond's E/Z (the H of a neutral C=NH, as in imines, amidines and guanidines), so the read-back SMILES says
 * [H]N=C... where the input says N=C...: reading that SMILES again drops every hydrogen that defines no
 * stereo (a non-isomeric SMILES loses them all). Unchanged when the SMILES has no [H].
 */
function withoutLooseHydrogens(rdkit: RDKit, smiles: string): string {
  if (!smiles.includes("[H]")) return smiles;
  return rewrittenSmiles(rdkit, smiles) ?? smiles;
}

/**
 * Reads a conformer's molfile back with RDKit (stereo from the 3D coordinates) and checks it is the input
 * molecule: the same constitution, and every stereo element the input specifies kept (a chirality-aware
 * substructure match of the input onto the read-back molecule, which also checks E/Z). Returns the
 * read-back canonical SMILES and the stereo elements the input left open that the geometry fixed
 * (atom indices of the input), or what the conformer does not keep: its constitution, or its stereo.
 */
function checkConformer(rdkit: RDKit, input: RDKitMol, inputCanonical: string, molfile: string): Checked | "constitution" | "stereo" {
  const back = rdkit.get_mol(molfile, JSON.stringify({ removeHs: true }));
  if (back === null) return "constitution";
  try {
    if (!back.is_valid()) return "constitution";
    const smiles = withoutLooseHydrogens(rdkit, back.get_smiles());
    if (smiles === inputCanonical) return { smiles, assigned: [] };
    const flat = JSON.stringify({ doIsomericSmiles: false });
    if (withoutLooseHydrogens(rdkit, back.get_smiles(flat)) !== input.get_smiles(flat)) return "constitution";
    const match = JSON.parse(back.get_substruct_match(input, JSON.stringify({ useChirality: true }))) as { atoms?: number[] };
    if (!match.atoms || match.atoms.length !== input.get_num_atoms()) return "stereo";
    const toInput = new Map(match.atoms.map((backIdx, inputIdx) => [backIdx, inputIdx]));
    const before = stereoTags(input);
    const labelledAtoms = new Set(before.CIP_atoms.filter(([, l]) => specified(l)).map(([a]) => a));
    const labelledBonds = new Set(before.CIP_bonds.filter(([, , l]) => specified(l)).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`));
    const after = stereoTags(back);
    const assigned: StereoElement[] = [];
    for (const [a, label] of after.CIP_atoms) {
      const i = toInput.get(a);
      if (i !== undefined && specified(label) && !labelledAtoms.has(i)) assigned.push({ atoms: [i], label: clean(label) });
    }
    for (const [a, b, label] of after.CIP_bonds) {
      const [i, j] = [toInput.get(a), toInput.get(b)];
      if (i === undefined || j === undefined || !specified(label)) continue;
      if (!labelledBonds.has(`${Math.min(i, j)}-${Math.max(i, j)}`)) assigned.push({ atoms: [Math.min(i, j), Math.max(i, j)], label: clean(label) });
    }
    return { smiles, assigned };
  } finally {
    back.delete();
  }
}

function tooLarge(heavy: number): ToolError {
  return new ToolError(
    "MOLECULE_TOO_LARGE",
    `Molecule has ${Number.isFinite(heavy) ? heavy : "too many"} heavy atoms; generate_3d accepts at most ${GENERATE_3D_MAX_HEAVY_ATOMS}`,
    { argument: "smiles", heavy_atom_count: heavy, max_heavy_atoms: GENERATE_3D_MAX_HEAVY_ATOMS },
  );
}

const stereoList = {
  type: "array",
  description:
    "Stereo elements the input left unspecified that the 3D structure fixed: input atom indices (one atom, or the two atoms of a double bond) and the CIP label.",
  items: {
    type: "object",
    properties: {
      atoms: { type: "array", items: { type: "integer", minimum: 0 }, description: "Atom index, or the two atoms of the double bond." },
      label: { type: "string", description: "CIP label: R, S, r, s, E, Z." },
    },
    required: ["atoms", "label"],
    additionalProperties: false,
  },
};
const energy = (description: string) => ({ type: "number", description });

/**
 * The one place OpenChemLib's MMFF94s and RDKit's part: an aromatic ring (RDKit's model) of other than 5 or 6
 * atoms. MMFF defines aromatic typing for rings of 5 and 6 only, and the two implementations leave such rings
 * differently: RDKit's MMFF setup keeps the ring's aromatic bonds (every ring C-C of tropone gets MMFF bond type 0
 * and the C=C reference length, 1.333 Å), OpenChemLib types tropone's Kekulé bonds (single ones bond type 1,
 * 1.43 Å) but calls azulene's rings aromatic, which RDKit types as Kekulé bonds. Measured on the server's own
 * geometries (RDKit 2022.09 MMFF94s against OpenChemLib MMFF94s): tropone 45.3 against 25.0 kcal/mol, tropolone
 * 86.7 / 54.6, colchicine 154.5 / 111.0, heptafulvene 85.9 / 19.1, azulene 89.4 / 35.9, guaiazulene 102.7 / 49.6;
 * oxepine, azepine and cyclooctatetraene agree (not aromatic in RDKit's model either). Neither is MMFF94 as Halgren's validation suite types
 * it for these rings; the answer names the ring and the size of the difference.
 */
function unusualAromaticRingNote(mol: RDKitMol): string | undefined {
  const g = molGraph(mol);
  // Every atom aromatic (azulene's fusion bond is no aromatic bond in RDKit's model, its atoms are).
  const sizes = g.atomRings.filter((ring) => ring.length !== 5 && ring.length !== 6 && ring.every((a) => g.atoms[a]!.aromatic)).map((ring) => ring.length);
  if (sizes.length === 0) return undefined;
  return (
    `An aromatic ${[...new Set(sizes)].sort((a, b) => a - b).join("- and ")}-membered ring (tropone-like or azulene-like): MMFF types aromatic rings of 5 and 6 atoms only, and ` +
    "OpenChemLib and RDKit leave this ring differently, so energy_kcal_mol can differ from RDKit's MMFF94s by tens of kcal/mol " +
    "(tropone 25.0 here against 45.3 in RDKit, colchicine 111 against 154, azulene 36 against 89). Compare energies between this molecule's conformers, not with RDKit's."
  );
}

/**
 * generate_3d's progress, from the conformer build's steps (ConformerStep): what an agent waiting seconds can
 * read ("3 of 10 conformers minimised") with values that only increase. A build spans `wanted + 1` units: one
 * for OpenChemLib's rigid fragments (seconds for a drug, before any conformer), then one per conformer asked
 * for. A conformer dropped as a duplicate is a minimisation too (a second or so): after d duplicates in a row
 * the value stands d/(d+1) of the way to the next kept one, so each minimisation moves it. A build started
 * again with the full fragment search (its counts start over) adds another span to the total, its first
 * report half a unit into it (the build before may have ended exactly at its span's end). Value 0 is reported
 * by the caller before OpenChemLib loads.
 */
export function conformerProgress(progress: ProgressReporter, wanted: number): (step: ConformerStep) => void {
  const span = wanted + 1;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  let builds = 0;
  let lastKept = 0;
  let duplicatesAtLastKept = 0;
  return (s) => {
    const base = Math.max(0, builds - 1) * span;
    const total = Math.max(1, builds) * span;
    switch (s.step) {
      case "fragments":
        builds++;
        lastKept = 0;
        duplicatesAtLastKept = 0;
        if (builds > 1) progress((builds - 1) * span + 0.5, builds * span, "no usable conformer yet: building again with OpenChemLib's full fragment search");
        return;
      case "ready":
        progress(base + 1, total, `rigid fragments built; minimising ${plural(wanted, "conformer", "conformers")} (MMFF94s)`);
        return;
      case "conformer": {
        if (s.kept > lastKept) {
          lastKept = s.kept;
          duplicatesAtLastKept = s.duplicates;
        }
        const run = s.duplicates - duplicatesAtLastKept;
        const dropped = s.duplicates > 0 ? `; ${plural(s.duplicates, "duplicate", "duplicates")} dropped` : "";
        progress(base + 1 + s.kept + run / (run + 1), total, `${s.kept} of ${plural(wanted, "conformer", "conformers")} minimised${dropped}`);
        return;
      }
    }
  };
}

export const generate3dTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "generate_3d",
  title: "3D structure (conformers, OpenChemLib MMFF94s)",
  description:
    "3D conformers (OpenChemLib, MMFF94s minimised, seeded): xyz, molblock and energy, up to 10 conformers by energy. Stereo kept; up to 100 heavy atoms.",
  annotations: READ_ONLY_LOCAL,
  // Hosts that render MCP Apps show the conformers in 3D (apps/viewer3d).
  ui: { resourceUri: VIEWER3D_APP_URI },
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty(),
      num_conformers: {
        type: "integer",
        minimum: 1,
        maximum: GENERATE_3D_MAX_CONFORMERS,
        default: 1,
        description: "Conformers to return.",
      },
      seed: {
        type: "integer",
        minimum: 1,
        maximum: 2_147_483_647,
        default: DEFAULT_SEED,
        description: "Random seed.",
      },
      add_hydrogens: {
        type: "boolean",
        default: true,
        description: "Hydrogens in xyz and molblock.",
      },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      smiles: { type: "string", description: "RDKit canonical SMILES of the input." },
      smiles_3d: { type: "string", description: "Canonical SMILES read back from the 3D structure (differs from smiles only by assigned_stereo)." },
      xyz: { type: "string", description: "XYZ text of the lowest-energy conformer, Å (line 2 is the input SMILES)." },
      atom_count: { type: "integer", minimum: 1, description: "Atoms in xyz and molblock." },
      molblock: { type: "string", description: "V2000 molfile of the same conformer, same coordinates and atom order as xyz." },
      energy_kcal_mol: energy("Energy of that conformer in force_field, kcal/mol (equal to RDKit's MMFF94s save what warnings says)."),
      force_field: { type: "string", const: FORCE_FIELD_LABEL, description: "The force field that minimised the geometry and gives the energies." },
      hydrogens: { type: "boolean", description: "Whether xyz and molblock include hydrogens." },
      seed: { type: "integer", description: "Seed used." },
      conformers_requested: { type: "integer", description: "num_conformers as asked." },
      conformers: {
        type: "array",
        description: "Distinct minimised conformers, lowest energy first (the first is the one in xyz/molblock).",
        items: {
          type: "object",
          properties: {
            energy_kcal_mol: energy("Energy in force_field, kcal/mol."),
            relative_energy_kcal_mol: energy("Energy above the lowest conformer, kcal/mol."),
            converged: { type: "boolean", description: "Whether the minimisation converged." },
            rmsd_to_first: {
              type: "number",
              description: "Heavy-atom RMSD to the first conformer after superposition (symmetry-equivalent atoms considered), Å.",
            },
            xyz: { type: "string", description: "XYZ text of this conformer." },
          },
          required: ["energy_kcal_mol", "relative_energy_kcal_mol", "converged", "rmsd_to_first", "xyz"],
          additionalProperties: false,
        },
      },
      assigned_stereo: stereoList,
      warnings: {
        type: "array",
        items: { type: "string" },
        description: "Anything the caller should know (fewer conformers, unconverged minimisation, assigned stereo).",
      },
      method: { type: "string", description: "How the coordinates were made." },
      citations: { type: "array", items: { type: "string" }, description: "References for the method." },
    },
    required: [
      "smiles",
      "smiles_3d",
      "xyz",
      "atom_count",
      "molblock",
      "energy_kcal_mol",
      "force_field",
      "hydrogens",
      "seed",
      "conformers_requested",
      "conformers",
      "assigned_stereo",
      "warnings",
      "method",
      "citations",
    ],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE", "DISCONNECTED_MOLECULE", "EMBEDDING_FAILED"],
  budgetMs: BUDGET_MS,
  list: { maxItems: 20, budgetMs: 50_000 }, // conformer search is seconds a molecule
  run(args, { rdkit, progress }) {
    const start = performance.now();
    const numConformers = args.num_conformers ?? 1;
    const seed = args.seed ?? DEFAULT_SEED;
    const addHydrogens = args.add_hydrogens ?? true;
    // The atom estimate refuses a huge SMILES before RDKit builds it; the heavy-atom count decides.
    let mol: RDKitMol;
    try {
      mol = parseSmiles(rdkit, args.smiles, { maxAtoms: GENERATE_3D_MAX_HEAVY_ATOMS * 2 });
    } catch (e) {
      if (e instanceof ToolError && e.code === "MOLECULE_TOO_LARGE") throw tooLarge(Number(e.details.atom_count ?? e.details.atom_count_estimate));
      throw e;
    }
    try {
      const heavy = mol.get_num_atoms(true);
      if (heavy > GENERATE_3D_MAX_HEAVY_ATOMS) throw tooLarge(heavy);
      const canonical = mol.get_smiles();
      if (canonical.includes(".")) {
        throw new ToolError(
          "DISCONNECTED_MOLECULE",
          "generate_3d builds one connected molecule; the SMILES has several parts",
          {
            argument: "smiles",
            fragments: canonical.split(".").length,
          },
          "Send one connected molecule: use standardize to get the parent (salts and solvents stripped), or send each part on its own.",
        );
      }
      const largestRing = Math.max(0, ...molGraph(mol).atomRings.map((r) => r.length));
      if (largestRing > MAX_RING_ATOMS)
        throw embeddingFailed(`a ${largestRing}-membered ring is beyond what the conformer generator builds within the time budget`, "macrocycle", {
          largest_ring: largestRing,
          max_ring_atoms: MAX_RING_ATOMS,
        });
      const symmetry = automorphisms(mol);
      progress(0, numConformers + 1, "building the rigid fragments (OpenChemLib conformer generator)");
      const onStep = conformerProgress(progress, numConformers);
      const molblock = mol.get_molblock();
      const build = (fragmentConformers?: number) =>
        generateConformers(molblock, canonical, {
          numConformers,
          seed,
          addHydrogens,
          softDeadline: start + SOFT_MS,
          hardDeadline: start + HARD_MS,
          onStep,
          automorphisms: symmetry,
          ...(fragmentConformers === undefined ? {} : { fragmentConformers }),
        });
      let set = build();
      let checked: { conformer: Conformer; check: Checked }[] = [];
      let lost: "constitution" | "stereo" = "stereo";
      const checkAll = () => {
        checked = [];
        for (const conformer of set.conformers) {
          const check = checkConformer(rdkit, mol, canonical, conformer.molfile);
          if (typeof check === "string") {
            if (check === "constitution") lost = check;
          } else checked.push({ conformer, check });
        }
      };
      checkAll();
      // A conformer built from one self-organised conformer per fragment that loses the input's stereo: the
      // full fragment search (OpenChemLib's 16 per fragment, same seed) gets its chance.
      if (checked.length === 0 && set.fragmentConformers !== 0) {
        set = build(0);
        checkAll();
      }
      // A lost stereo element depends on this seed's torsions; a changed constitution comes back with every seed.
      if (checked.length === 0)
        throw embeddingFailed(
          `the 3D structure did not keep the input's ${lost === "stereo" ? "stereochemistry" : "constitution"}`,
          lost === "stereo" ? "random" : "structure",
          {
            smiles: canonical,
          },
        );
      const best = checked[0]!;
      const warnings: string[] = [];
      if (checked.length < set.conformers.length)
        warnings.push(`${set.conformers.length - checked.length} conformer(s) dropped: the 3D structure did not keep the input's stereochemistry`);
      if (checked.length < numConformers) {
        const why =
          set.stopReason === "time_budget"
            ? "the time budget ran out"
            : set.stopReason === "exhausted"
              ? "the generator found no further torsion sets"
              : `only distinct ones are kept (heavy-atom RMSD >= ${DUPLICATE_RMSD} Å)`;
        warnings.push(`${checked.length} of ${numConformers} conformers returned: ${why}`);
      }
      if (checked.some((c) => c.conformer.converged === false))
        warnings.push("A minimisation stopped before convergence (time budget or iteration limit); its geometry is close to, not at, a minimum");
      if (!reproducibleSeeds())
        warnings.push("OpenChemLib's fragment cache could not be switched off: the same seed may give slightly different coordinates in another call");
      if (best.check.assigned.length > 0) warnings.push("The input leaves stereo unspecified; the 3D structure fixes one configuration (assigned_stereo)");
      const ringNote = unusualAromaticRingNote(mol);
      if (ringNote !== undefined) warnings.push(ringNote);
      const e0 = best.conformer.energy;
      // The input names the structure in the XYZ comment line; a molblock or CXSMILES by its canonical SMILES.
      const comment = inputFormatOf(args.smiles) === "smiles" ? args.smiles.trim() : canonical;
      const xyz = xyzFromMolfile(best.conformer.molfile, comment);
      return {
        smiles: canonical,
        smiles_3d: best.check.smiles,
        xyz,
        atom_count: Number.parseInt(xyz, 10),
        molblock: best.conformer.molfile,
        energy_kcal_mol: round(e0, 4),
        force_field: FORCE_FIELD_LABEL,
        hydrogens: addHydrogens,
        seed,
        conformers_requested: numConformers,
        conformers: checked.map(({ conformer }) => ({
          energy_kcal_mol: round(conformer.energy, 4),
          relative_energy_kcal_mol: round(conformer.energy - e0, 4),
          converged: conformer.converged,
          rmsd_to_first: round(bestRmsd(best.conformer.heavy, conformer.heavy, symmetry), 3),
          xyz: conformer === best.conformer ? xyz : xyzFromMolfile(conformer.molfile, comment),
        })),
        assigned_stereo: best.check.assigned,
        warnings,
        method:
          `OpenChemLib ConformerGenerator (strategy likely-random, seed ${seed}, ${set.fragmentConformers === 1 ? "one self-organised conformer" : "up to 16 self-organised conformers"} per rigid fragment), then ${FORCE_FIELD} minimisation` +
          ` (OpenChemLib ForceFieldMMFF94, '${FORCE_FIELD}' tables)` +
          `; conformers within ${DUPLICATE_RMSD} Å heavy-atom RMSD of a lower one are dropped; coordinates in Å.`,
        citations: [
          "Sander T, Freyss J, von Korff M, Rufener C. DataWarrior: an open-source program for chemistry aware data visualization and analysis. J Chem Inf Model 2015;55:460-473 (OpenChemLib conformer generator).",
          "Halgren TA. Merck molecular force field. I. Basis, form, scope, parameterization, and performance of MMFF94. J Comput Chem 1996;17:490-519.",
          "Halgren TA. MMFF VI. MMFF94s option for energy minimization studies. J Comput Chem 1999;20:720-729.",
        ],
      };
    } finally {
      mol.delete();
    }
  },
};
