#!/usr/bin/python3
"""Native RDKit oracle for the admet_profile and boiled_egg golden-value tests.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-admet.py < smiles.txt

Each input line holds a SMILES, optionally followed by whitespace and anything else; only the first field is
used. Output line i answers input line i with one JSON object:
  {"smiles", "logp", "tpsa", "tpsa_sp", "mw", "rotatable_bonds", "aromatic_atoms", "heavy_atoms", "hbd",
   "hits": {"<rule name>": true|false, ...}}
or {"smiles", "error"} when RDKit cannot parse the SMILES. Only native descriptors and native substructure
matches are printed here: the tests apply the published formulas themselves.

  logp             Crippen.MolLogP (Wildman & Crippen 1999)
  tpsa             rdMolDescriptors.CalcTPSA, N and O only (RDKit's default)
  tpsa_sp          rdMolDescriptors.CalcTPSA(includeSandP=True): Ertl's polar S and P terms added
  mw               Descriptors.MolWt
  rotatable_bonds  rdMolDescriptors.CalcNumRotatableBonds (default, strict on this build)
  aromatic_atoms   atoms with GetIsAromatic()
  heavy_atoms      rdMolDescriptors.CalcNumHeavyAtoms
  hbd              rdMolDescriptors.CalcNumHBD
  hits             for every SMARTS in assets/admet-rules.json (toxicophores, acidic_groups, basic_groups, permanent_cations):
                   whether it matches at least once
"""
import json
import os
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem import Crippen, Descriptors
from rdkit.Chem import rdMolDescriptors as rdmd

RULES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "admet-rules.json")


def load_queries():
    with open(RULES_FILE, encoding="utf-8") as fh:
        rules = json.load(fh)
    queries = []
    for group in ("toxicophores", "acidic_groups", "basic_groups", "permanent_cations"):
        for rule in rules[group]:
            query = Chem.MolFromSmarts(rule["smarts"])
            if query is None:
                raise SystemExit(f"native RDKit cannot parse the SMARTS of {rule['name']}: {rule['smarts']}")
            queries.append((rule["name"], query))
    return queries


def answer(line, queries):
    smiles = line.split()[0] if line.strip() else ""
    if not smiles:
        return {"smiles": smiles, "error": "empty line"}
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return {"smiles": smiles, "error": "RDKit could not parse the SMILES"}
    return {
        "smiles": smiles,
        "logp": Crippen.MolLogP(mol),
        # force=True: RDKit caches TPSA on the molecule regardless of includeSandP.
        "tpsa": rdmd.CalcTPSA(mol, force=True, includeSandP=False),
        "tpsa_sp": rdmd.CalcTPSA(mol, force=True, includeSandP=True),
        "mw": Descriptors.MolWt(mol),
        "rotatable_bonds": rdmd.CalcNumRotatableBonds(mol),
        "aromatic_atoms": sum(1 for atom in mol.GetAtoms() if atom.GetIsAromatic()),
        "heavy_atoms": rdmd.CalcNumHeavyAtoms(mol),
        "hbd": rdmd.CalcNumHBD(mol),
        "hits": {name: mol.HasSubstructMatch(query) for name, query in queries},
    }


def main():
    RDLogger.DisableLog("rdApp.*")
    queries = load_queries()
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(line, queries), allow_nan=False) + "\n")


if __name__ == "__main__":
    main()
