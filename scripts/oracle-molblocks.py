#!/usr/bin/python3
"""Native RDKit molblock writer for the molblock round-trip test (test/tools/molblock-roundtrip.oracle.test.ts).

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-molblocks.py < smiles.txt

Each input line holds a SMILES (the first whitespace-separated field). Output line i answers input line i
with one JSON object: {"smiles", "canonical", "v2000", "v3000", "read_v2000", "read_v3000"}
(Chem.MolToMolBlock and Chem.MolToV3KMolBlock of Chem.MolFromSmiles, defaults: 2D coordinates computed,
stereo written as wedges and double-bond geometry; canonical is Chem.MolToSmiles; read_* is the canonical
SMILES of Chem.MolFromMolBlock of that block, native RDKit reading its own molblock back, null when it
cannot), or {"smiles", "error"} when native RDKit cannot read or write it.
"""
import json
import sys

from rdkit import Chem, RDLogger


def main():
    RDLogger.DisableLog("rdApp.*")
    for line in sys.stdin:
        fields = line.split()
        smiles = fields[0] if fields else ""
        try:
            mol = Chem.MolFromSmiles(smiles)
            if mol is None:
                raise ValueError("MolFromSmiles failed")
            row = {"smiles": smiles, "canonical": Chem.MolToSmiles(mol), "v2000": Chem.MolToMolBlock(mol), "v3000": Chem.MolToV3KMolBlock(mol)}
            for kind in ("v2000", "v3000"):
                back = Chem.MolFromMolBlock(row[kind])
                row["read_" + kind] = Chem.MolToSmiles(back) if back is not None else None
        except Exception as e:  # noqa: BLE001 - every failure is reported on its own line
            row = {"smiles": smiles, "error": str(e)}
        sys.stdout.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
