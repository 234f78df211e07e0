#!/usr/bin/python3
"""Native RDKit oracle for generate_3d: reads our 3D molblocks and checks them with RDKit's own tools.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-3d.py < cases.jsonl

Each input line is a JSON object {"smiles": ..., "molblock": ...} (molblock: our V2000 3D molfile, with
hydrogens). Output line i answers input line i:
  {"smiles": ...,
   "canonical_in": canonical SMILES of the input SMILES,
   "canonical_out": canonical SMILES of the molblock (stereo perceived from the 3D coordinates),
   "cip_in": {"atoms": [[idx, label]...], "bonds": [[i, j, label]...]}   (new CIP labeller, heavy atoms),
   "cip_out": the same for the molblock (its heavy atoms keep the input's atom order),
   "mmff94s_energy": native MMFF94s energy (kcal/mol) of our geometry as it is,
   "mmff_energy_before", "mmff_energy_after": native MMFF94 energies (kcal/mol) of our geometry and after
       RDKit's MMFF94 minimisation started from it,
   "mmff_converged": whether that minimisation converged,
   "heavy_rmsd": RMSD (Angstrom) of the heavy atoms between our geometry and the minimised one, after
       superposition,
   "max_heavy_displacement": the largest heavy-atom displacement after that superposition}
or {"smiles": ..., "error": "..."} when a step fails.

With --specify-stereo the script instead reads SMILES (one a line) and writes, for each, one stereoisomer with
every stereocentre and stereo double bond specified (RDKit's EnumerateStereoisomers, onlyUnassigned, a fixed
random seed so R/S and E/Z are mixed): {"smiles": ..., "isomer": ..., "stereo_elements": n}.
"""
import json
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem, rdCIPLabeler, rdMolAlign
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions


def cip_labels(mol):
    rdCIPLabeler.AssignCIPLabels(mol)
    atoms = [[a.GetIdx(), a.GetProp("_CIPCode")] for a in mol.GetAtoms() if a.HasProp("_CIPCode") and a.GetAtomicNum() != 1]
    bonds = []
    for b in mol.GetBonds():
        if b.HasProp("_CIPCode"):
            i, j = sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx()))
            bonds.append([i, j, b.GetProp("_CIPCode")])
    return {"atoms": atoms, "bonds": sorted(bonds)}


def answer(case):
    out = {"smiles": case.get("smiles")}
    mol_in = Chem.MolFromSmiles(case["smiles"])
    if mol_in is None:
        out["error"] = "RDKit could not parse the SMILES"
        return out
    out["canonical_in"] = Chem.MolToSmiles(mol_in)
    out["cip_in"] = cip_labels(mol_in)

    mol3d = Chem.MolFromMolBlock(case["molblock"], removeHs=False)
    if mol3d is None:
        out["error"] = "RDKit could not read the molblock"
        return out
    Chem.AssignStereochemistryFrom3D(mol3d)
    heavy = Chem.RemoveHs(mol3d)
    out["canonical_out"] = Chem.MolToSmiles(heavy)
    out["cip_out"] = cip_labels(Chem.Mol(heavy))

    props_s = AllChem.MMFFGetMoleculeProperties(mol3d, mmffVariant="MMFF94s")
    if props_s is not None:
        # The force field holds a pointer to its molecule: keep the copy alive while it computes.
        copy_s = Chem.Mol(mol3d)
        out["mmff94s_energy"] = AllChem.MMFFGetMoleculeForceField(copy_s, props_s).CalcEnergy()
    props = AllChem.MMFFGetMoleculeProperties(mol3d, mmffVariant="MMFF94")
    if props is None:
        out["error"] = "no MMFF94 parameters"
        return out
    minimised = Chem.Mol(mol3d)
    ff = AllChem.MMFFGetMoleculeForceField(minimised, props)
    out["mmff_energy_before"] = ff.CalcEnergy()
    out["mmff_converged"] = ff.Minimize(maxIts=20000) == 0
    out["mmff_energy_after"] = ff.CalcEnergy()
    heavy_idx = [a.GetIdx() for a in mol3d.GetAtoms() if a.GetAtomicNum() != 1]
    atom_map = [(i, i) for i in heavy_idx]
    out["heavy_rmsd"] = rdMolAlign.AlignMol(minimised, mol3d, atomMap=atom_map)
    ref = mol3d.GetConformer()
    prb = minimised.GetConformer()
    out["max_heavy_displacement"] = max((prb.GetAtomPosition(i) - ref.GetAtomPosition(i)).Length() for i in heavy_idx)
    return out


def specify_stereo(smiles):
    out = {"smiles": smiles}
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        out["error"] = "RDKit could not parse the SMILES"
        return out
    options = StereoEnumerationOptions(onlyUnassigned=True, maxIsomers=1, unique=True, rand=20260728)
    isomers = list(EnumerateStereoisomers(mol, options=options))
    isomer = isomers[0] if isomers else mol
    out["isomer"] = Chem.MolToSmiles(isomer)
    out["stereo_elements"] = sum(1 for info in Chem.FindPotentialStereo(mol))
    return out


def main():
    RDLogger.DisableLog("rdApp.*")
    if sys.argv[1:] == ["--specify-stereo"]:
        for line in sys.stdin:
            if line.strip():
                sys.stdout.write(json.dumps(specify_stereo(line.split()[0])) + "\n")
        return
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        try:
            out = answer(case)
        except Exception as exc:  # one failing molecule must not hide the others
            out = {"smiles": case.get("smiles"), "error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
