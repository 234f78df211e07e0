#!/usr/bin/python3
"""Native RDKit oracle for the standardize tool.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-standardize.py < smiles.txt

Each input line holds a SMILES (only the first whitespace-separated field is used). Output line i answers
input line i with one JSON object:
  smiles            the input
  charge_parent     canonical SMILES of rdMolStandardize.ChargeParent(mol) (default parameters)
  salt_stripped     the same pipeline with salt stripping inserted where the standardize tool does it:
                    Cleanup, SaltRemover (Data/Salts.txt, dontRemoveEverything=True),
                    LargestFragmentChooser(preferOrganic=True), Uncharger, Cleanup
  cleanup           canonical SMILES of rdMolStandardize.Cleanup(mol) (to locate a difference)
  fragment_parent   canonical SMILES of rdMolStandardize.FragmentParent(mol)
  selected          true when the molecule has more than one fragment or a formal charge
or {"smiles": ..., "error": "..."}; a step that raises is reported as null with "errors": {"step": "..."}.
"""
import json
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem.MolStandardize import rdMolStandardize
from rdkit.Chem.SaltRemover import SaltRemover


def main():
    RDLogger.DisableLog("rdApp.*")
    remover = SaltRemover()
    chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
    uncharger = rdMolStandardize.Uncharger()

    def salt_stripped(mol):
        m = rdMolStandardize.Cleanup(mol)
        m = remover.StripMol(m, dontRemoveEverything=True)
        m = chooser.choose(m)
        m = uncharger.uncharge(m)
        return rdMolStandardize.Cleanup(m)

    steps = {
        "charge_parent": rdMolStandardize.ChargeParent,
        "salt_stripped": salt_stripped,
        "cleanup": rdMolStandardize.Cleanup,
        "fragment_parent": rdMolStandardize.FragmentParent,
    }
    for line in sys.stdin:
        smiles = line.split()[0] if line.strip() else ""
        out = {"smiles": smiles}
        mol = Chem.MolFromSmiles(smiles) if smiles else None
        if mol is None:
            out["error"] = "RDKit could not parse the SMILES"
            sys.stdout.write(json.dumps(out) + "\n")
            continue
        out["selected"] = len(Chem.GetMolFrags(mol)) > 1 or any(a.GetFormalCharge() != 0 for a in mol.GetAtoms())
        errors = {}
        for name, fn in steps.items():
            try:
                out[name] = Chem.MolToSmiles(fn(Chem.Mol(mol)))
            except Exception as exc:  # one failing step must not hide the others
                out[name] = None
                errors[name] = f"{type(exc).__name__}: {exc}"
        if errors:
            out["errors"] = errors
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
