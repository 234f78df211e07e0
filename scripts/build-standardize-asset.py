#!/usr/bin/python3
"""Writes assets/standardize-data.json: the data the standardize tool takes from Debian's RDKit package.

Run with the Debian RDKit Python (python3-rdkit, rdkit-data):  /usr/bin/python3 scripts/build-standardize-asset.py

The asset holds
  * salts: RDKit's salt and solvent list, Data/Salts.txt (Greg Landrum 2006, definitions from Thomas Zoller),
    in file order: the SMARTS and the name where the file gives one. The order matters: SaltRemover tries
    the patterns in this order. Each SMARTS is checked to compile in the installed RDKit.
  * valence_lists: RDKit's allowed valences per element (Chem.GetPeriodicTable().GetValenceList), which the
    standardizer's metal disconnection and hydrogen bookkeeping read, for elements 1-118.
together with the Novartis BSD-3-Clause notice that Salts.txt carries and RDKit's own BSD-3-Clause notice
(Debian's copyright file). The output is deterministic (fixed key order, no timestamps).
"""
import json
import os
import re
import sys

import rdkit
from rdkit import Chem, RDConfig

SALTS = os.path.join(RDConfig.RDDataDir, "Salts.txt")
COPYRIGHT = "/usr/share/doc/rdkit-data/copyright"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "standardize-data.json")
CITATION = ("RDKit: Open-source cheminformatics, https://www.rdkit.org (Data/Salts.txt, used by "
            "rdkit.Chem.SaltRemover; valence lists of RDKit's periodic table)")


def salts_and_notice(text: str):
    salts = []
    notice_lines = []
    in_notice = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("//"):
            comment = line[2:].removeprefix(" ")
            if "Copyright" in comment:
                in_notice = True
            if in_notice:
                notice_lines.append(comment.rstrip())
            continue
        # As SaltRemover reads the file: drop '//' comments, split on tabs/spaces, the first field is SMARTS.
        line = line.split("//")[0].strip()
        if not line:
            continue
        fields = re.split(r"[\t ]+", line, maxsplit=1)
        smarts = fields[0]
        if Chem.MolFromSmarts(smarts) is None:
            sys.exit(f"build-standardize-asset: SMARTS does not compile: {smarts}")
        entry = {"smarts": smarts}
        if len(fields) > 1 and fields[1].strip():
            entry["name"] = fields[1].strip()
        salts.append(entry)
    if not notice_lines:
        sys.exit("build-standardize-asset: no copyright notice found in Salts.txt")
    while notice_lines and not notice_lines[-1]:
        notice_lines.pop()
    return salts, "\n".join(notice_lines)


def rdkit_notice() -> str:
    """The BSD-3-clause licence paragraph of Debian's copyright file for RDKit ('Files: *')."""
    with open(COPYRIGHT, encoding="utf-8") as f:
        text = f.read()
    head = re.search(r"Files: \*\nCopyright: (.*?)\nLicense: BSD-3-clause", text, re.S)
    body = re.search(r"\nLicense: BSD-3-clause\n((?: .*\n?)+)", text)
    if head is None or body is None:
        sys.exit("build-standardize-asset: RDKit's BSD-3-clause notice not found in " + COPYRIGHT)
    holders = " ".join(head.group(1).split())
    lines = [("" if l.strip() == "." else l[1:]) for l in body.group(1).rstrip("\n").split("\n")]
    return f"Copyright (c) {holders}\nAll rights reserved.\n\n" + "\n".join(lines)


def main():
    with open(SALTS, encoding="utf-8") as f:
        salts, notice = salts_and_notice(f.read())
    table = Chem.GetPeriodicTable()
    valences = {str(z): [int(v) for v in table.GetValenceList(z)] for z in range(1, 119)}
    data = {
        "source": {
            "description": "Salt/solvent patterns and element valences used by the standardize tool",
            "rdkit_version": rdkit.__version__,
            "salts_file": "Data/Salts.txt (Debian package rdkit-data)",
            "citation": CITATION,
            "generator": "scripts/build-standardize-asset.py",
        },
        "license": {
            "spdx": "BSD-3-Clause",
            "salts_notice": notice,
            "rdkit_notice": rdkit_notice(),
        },
        "salts": salts,
        "valence_lists": valences,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.relpath(OUT)}: {len(salts)} salt patterns, {len(valences)} elements")


if __name__ == "__main__":
    main()
