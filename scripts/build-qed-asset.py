#!/usr/bin/python3
"""Writes assets/qed-parameters.json from the installed RDKit's rdkit.Chem.QED module.

Run with the Debian RDKit Python (python3-rdkit):  /usr/bin/python3 scripts/build-qed-asset.py

The asset holds the published QED data (Bickerton et al., Nature Chemistry 2012, 4, 90-98) exactly as
RDKit's implementation uses it: the eight ADS parameter sets, the three weight vectors, the acceptor
SMARTS, the structural-alert SMARTS and the AliphaticRings SMARTS, in QED.py's own list order. The output
is deterministic (fixed key order, no timestamps), so re-running it on the same RDKit gives the same file.
"""
import ast
import inspect
import json
import os
import sys

import rdkit
from rdkit import Chem
from rdkit.Chem import QED

PROPERTY_NAMES = list(QED.QEDproperties._fields)  # MW, ALOGP, HBA, HBD, PSA, ROTB, AROM, ALERTS
ADS_FIELDS = list(QED.ADSparameter._fields)  # A, B, C, D, E, F, DMAX
CITATION = ("Bickerton, G.R.; Paolini, G.V.; Besnard, J.; Muresan, S.; Hopkins, A.L. (2012) "
            "'Quantifying the chemical beauty of drugs', Nature Chemistry, 4, 90-98, "
            "https://doi.org/10.1038/nchem.1243")


def license_header(source: str) -> str:
    """The leading '#' comment block of QED.py (the Novartis BSD-3-Clause notice), without the '#' marks."""
    lines = []
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].removeprefix(" "))
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not any("Copyright" in line for line in lines):
        sys.exit("build-qed-asset: no copyright header found at the top of QED.py")
    return "\n".join(lines)


def aliphatic_rings_smarts(source: str) -> str:
    """The original SMARTS literal of `AliphaticRings = Chem.MolFromSmarts('...')` (the module keeps only the mol)."""
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "AliphaticRings" and isinstance(node.value, ast.Call)
                and node.value.args and isinstance(node.value.args[0], ast.Constant)):
            smarts = node.value.args[0].value
            # The literal must compile to the very query the module uses.
            if Chem.MolToSmarts(Chem.MolFromSmarts(smarts)) != Chem.MolToSmarts(QED.AliphaticRings):
                sys.exit("build-qed-asset: AliphaticRings literal does not match QED.AliphaticRings")
            return smarts
    return Chem.MolToSmarts(QED.AliphaticRings)


def weights(w) -> dict:
    return {name: float(getattr(w, name)) for name in PROPERTY_NAMES}


def main() -> None:
    source = inspect.getsource(QED)
    acceptors = list(QED.AcceptorSmarts)
    alerts = list(QED.StructuralAlertSmarts)
    if len(acceptors) != len(QED.Acceptors) or len(alerts) != len(QED.StructuralAlerts):
        sys.exit("build-qed-asset: SMARTS lists and compiled queries differ in length")
    for smarts in acceptors + alerts:
        if Chem.MolFromSmarts(smarts) is None:
            sys.exit(f"build-qed-asset: RDKit cannot parse {smarts!r}")

    asset = {
        "source": {
            "description": "QED (quantitative estimate of drug-likeness) parameters as used by RDKit's rdkit.Chem.QED",
            "rdkit_version": rdkit.__version__,
            "module": "rdkit.Chem.QED",
            "qed_descriptor_version": getattr(QED.qed, "version", None),
            "citation": CITATION,
            "generator": "scripts/build-qed-asset.py",
        },
        "license": {
            "spdx": "BSD-3-Clause",
            "notice": license_header(source),
        },
        "property_order": PROPERTY_NAMES,
        "ads_parameters": {
            name: {field: float(getattr(QED.adsParameters[name], field)) for field in ADS_FIELDS}
            for name in PROPERTY_NAMES
        },
        "weights": {
            "WEIGHT_MEAN": weights(QED.WEIGHT_MEAN),
            "WEIGHT_MAX": weights(QED.WEIGHT_MAX),
            "WEIGHT_NONE": weights(QED.WEIGHT_NONE),
        },
        "aliphatic_rings_smarts": aliphatic_rings_smarts(source),
        "acceptor_smarts": acceptors,
        "structural_alert_smarts": alerts,
    }

    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "qed-parameters.json")
    out = os.path.normpath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(asset, fh, indent=2, ensure_ascii=True)
        fh.write("\n")
    print(f"wrote {out}: {len(acceptors)} acceptor SMARTS, {len(alerts)} alert SMARTS, RDKit {rdkit.__version__}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
