#!/usr/bin/python3
"""Native RDKit oracle for the canvas_import test (test/tools/canvas_import.test.ts).

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-import.py < smiles.txt

Each input line holds a SMILES then its name (whitespace-separated, as RDKit's NCI .smi files). Output line i
answers input line i with one JSON object: {"smiles", "canonical", "sdf", "sdf_canonical"}: canonical is
Chem.MolToSmiles(Chem.MolFromSmiles(smiles)); sdf is the record Chem.SDWriter writes for the molecule with
its title set to "mol-<name>" and three data tags (NSC: the name as an integer, HEAVY: the heavy-atom count
divided by 4 as a float, KIND: "ring" or "chain"); sdf_canonical is Chem.MolToSmiles of native RDKit reading
that record back (Chem.MolFromMolBlock). {"smiles", "canonical": null} when native RDKit cannot read it.
"""
import io
import json
import sys

from rdkit import Chem, RDLogger


def main():
    RDLogger.DisableLog("rdApp.*")
    for line in sys.stdin:
        fields = line.split()
        smiles = fields[0] if fields else ""
        name = fields[1] if len(fields) > 1 else "0"
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            sys.stdout.write(json.dumps({"smiles": smiles, "canonical": None}) + "\n")
            continue
        mol.SetProp("_Name", "mol-" + name)
        mol.SetIntProp("NSC", int(name))
        mol.SetDoubleProp("HEAVY", mol.GetNumHeavyAtoms() / 4)
        mol.SetProp("KIND", "ring" if mol.GetRingInfo().NumRings() > 0 else "chain")
        out = io.StringIO()
        writer = Chem.SDWriter(out)
        writer.write(mol)
        writer.close()
        sdf = out.getvalue()
        back = Chem.MolFromMolBlock(sdf)
        row = {"smiles": smiles, "canonical": Chem.MolToSmiles(mol), "sdf": sdf, "sdf_canonical": Chem.MolToSmiles(back) if back is not None else None}
        sys.stdout.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
