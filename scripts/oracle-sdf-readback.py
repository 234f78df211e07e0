"""Native RDKit reads an SDF that canvas_export wrote, for the export tests.

stdin: {"path": the SDF, "smiles": the SMILES each record was drawn from (null: none), "columns": the canvas columns}.
stdout: one JSON list, a record each: its title, atom count, the canonical SMILES of the molecule read back and of
the SMILES it was drawn from (both by this RDKit), and every data item whose name is a column (private-looking
names such as _row included) plus any other public item (there should be none).
"""
import json
import sys

from rdkit import Chem


def main():
    given = json.loads(sys.stdin.read())
    expected, columns = given["smiles"], set(given["columns"])
    out = []
    for i, mol in enumerate(Chem.SDMolSupplier(given["path"], sanitize=True, removeHs=False)):
        want = expected[i] if i < len(expected) else None
        ref = Chem.MolFromSmiles(want) if want is not None else None
        if mol is None:
            out.append({"title": None, "atoms": None, "smiles": None, "expected": None, "props": None})
            continue
        names = [n for n in mol.GetPropNames(includePrivate=True) if n in columns or not n.startswith("_")]
        out.append({
            "title": mol.GetProp("_Name"),
            "atoms": mol.GetNumAtoms(),
            "smiles": Chem.MolToSmiles(mol),
            "expected": Chem.MolToSmiles(ref) if ref is not None else None,
            "props": {k: mol.GetProp(k) for k in names},
        })
    print(json.dumps(out))


main()
