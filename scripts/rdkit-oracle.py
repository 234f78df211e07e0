#!/usr/bin/python3
"""Native RDKit oracle for tests: SMILES in, one JSON line of reference values out per input line.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/rdkit-oracle.py [--props a,b,...] < smiles.txt

Each input line holds a SMILES, optionally followed by whitespace and anything else (so .smi files can be
piped in as they are); only the first field is used. Output line i answers input line i:
  {"smiles": ..., "mw": ..., ...}             the requested properties (default: all of PROPERTIES)
  {"smiles": ..., "error": "..."}             when RDKit cannot parse the SMILES (or the line is empty)
A property that raises is reported as null with its message under "errors": {"name": "..."}.

To add a property for a later test, add one entry to PROPERTIES (name -> function of the parsed mol).
"""
import argparse
import json
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem import Crippen, Descriptors, QED
from rdkit.Chem import rdMolDescriptors as rdmd


def qed_properties(mol):
    return QED.properties(mol)._asdict()


PROPERTIES = {
    "mw": Descriptors.MolWt,
    "exact_mass": rdmd.CalcExactMolWt,
    "logp": Crippen.MolLogP,
    "tpsa": rdmd.CalcTPSA,
    "hbd": rdmd.CalcNumHBD,
    "hba": rdmd.CalcNumHBA,
    "rotatable_bonds": rdmd.CalcNumRotatableBonds,  # default options (strict on this build)
    "heavy_atom_count": rdmd.CalcNumHeavyAtoms,
    "formula": rdmd.CalcMolFormula,
    "qed": QED.qed,
    "qed_properties": qed_properties,
}


def answer(line, names):
    smiles = line.split()[0] if line.strip() else ""
    out = {"smiles": smiles}
    if not smiles:
        out["error"] = "empty line"
        return out
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        out["error"] = "RDKit could not parse the SMILES"
        return out
    errors = {}
    for name in names:
        try:
            out[name] = PROPERTIES[name](mol)
        except Exception as exc:  # one failing property must not hide the others
            out[name] = None
            errors[name] = f"{type(exc).__name__}: {exc}"
    if errors:
        out["errors"] = errors
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--props", help="comma-separated subset of: " + ", ".join(PROPERTIES))
    args = parser.parse_args()
    names = list(PROPERTIES) if not args.props else [p.strip() for p in args.props.split(",") if p.strip()]
    unknown = [n for n in names if n not in PROPERTIES]
    if unknown:
        parser.error("unknown properties: " + ", ".join(unknown))
    RDLogger.DisableLog("rdApp.*")
    write = sys.stdout.write
    for line in sys.stdin:
        out = answer(line, names)
        try:
            text = json.dumps(out, allow_nan=False)
        except ValueError as exc:  # NaN or infinity is not JSON
            text = json.dumps({"smiles": out["smiles"], "error": f"non-finite value: {exc}"})
        write(text + "\n")


if __name__ == "__main__":
    main()
