#!/usr/bin/python3
"""Native RDKit oracle for the canonical_smiles tool.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-canonical.py < smiles.txt

Each input line holds a SMILES (first whitespace-separated field). Output line i answers input line i with one
JSON object: {"smiles", "isomeric", "plain", "kekule"} (canonical SMILES with stereo, without stereo, and Kekule
with stereo: MolToSmiles(kekuleSmiles=True) on the aromatic molecule, as MinimalLib's doKekule), each written by native MolToSmiles and then put through rdkit/rdkit#8318's rule (below); or
{"smiles", "error"} when native RDKit refuses the molecule.

rdkit/rdkit#8318 ("Atoms bonded to metal atoms should always have their H counts explicit in SMILES", merged
2025-03-04, first released in 2025.03; absent from the 2022.09 that Debian ships): an organic-subset atom bonded to
a "metal" (an atom matching RDKit's M query, the SMARTS below) is written in square brackets with its H count.
Canonical SMILES of molecules with several fragments list the fragments sorted by their text, so the rule can
also reorder fragments. Nothing else changes: the atom order is the same canonical ranking.
"""
import json
import re
import sys

from rdkit import Chem, RDLogger

# RDKit's "is it a metal?" query (QueryOps), as the pull request quotes it.
METAL = Chem.MolFromSmarts("[!#0!#1!#2!#5!#6!#7!#8!#9!#10!#14!#15!#16!#17!#18!#33!#34!#35!#36!#52!#53!#54!#85!#86]")
# An atom token of a SMILES: a bracket atom or an organic-subset atom (aliphatic or aromatic).
ATOM = re.compile(r"(\[[^\]]+\]|Br|Cl|[BCNOPSFI]|[bcnops])")


def with_metal_rule(mol, **options):
    text = Chem.MolToSmiles(mol, **options)
    metals = {m[0] for m in mol.GetSubstructMatches(METAL)}
    if not metals:
        return text
    order = list(mol.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"])
    out = []
    i = 0
    for part in ATOM.split(text):
        if part and ATOM.fullmatch(part):
            atom = mol.GetAtomWithIdx(order[i])
            i += 1
            if not part.startswith("[") and any(n.GetIdx() in metals for n in atom.GetNeighbors()):
                h = atom.GetTotalNumHs()
                part = "[" + part + ("H" + (str(h) if h > 1 else "") if h else "") + "]"
        out.append(part)
    return ".".join(sorted("".join(out).split(".")))


def main():
    RDLogger.DisableLog("rdApp.*")
    for line in sys.stdin:
        smiles = line.split()[0] if line.strip() else ""
        mol = Chem.MolFromSmiles(smiles, sanitize=False) if smiles else None
        if mol is None:
            print(json.dumps({"smiles": smiles, "error": "RDKit could not parse the SMILES"}))
            continue
        try:
            Chem.SanitizeMol(mol)
        except Exception as e:  # the sanitisation error names the cause (e.g. "Explicit valence ...")
            print(json.dumps({"smiles": smiles, "error": str(e)}))
            continue
        print(
            json.dumps(
                {
                    "smiles": smiles,
                    "isomeric": with_metal_rule(mol),
                    "plain": with_metal_rule(mol, isomericSmiles=False),
                    "kekule": with_metal_rule(mol, kekuleSmiles=True),
                }
            )
        )


if __name__ == "__main__":
    main()
