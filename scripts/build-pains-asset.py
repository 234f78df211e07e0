#!/usr/bin/python3
"""Writes assets/pains.json from Debian's RDKit data (rdkit-data) and the installed RDKit's FilterCatalog.

Run with the Debian RDKit Python (python3-rdkit):  /usr/bin/python3 scripts/build-pains-asset.py

Inputs:
  /usr/share/RDKit/Data/Pains/wehi_pains.csv   the 480 PAINS SMARTS with their names ("<regId=NAME>")
  /usr/share/doc/rdkit-data/copyright          RDKit's copyright line and BSD-3-Clause text
  rdkit.Chem.FilterCatalog                     the family (PAINS_A, PAINS_B, PAINS_C) of every name

Each entry keeps the published SMARTS exactly as the CSV has it ("smarts") and adds "query_smarts": the
same pattern as RDKit's FilterCatalog compiles it, i.e. SmartsToMol(smarts, mergeHs=true), written back as
SMARTS by RDKit. Merging turns explicit [#1] neighbours into H-count constraints on their heavy atom
([c&!H0], [#7&!H0&!H1]), so the query matches an ordinary molecule whose hydrogens are implicit, exactly
as FilterCatalog does; MinimalLib's get_qmol cannot merge query Hs itself. The script checks that:
  * the CSV's 480 names are exactly the FilterCatalog PAINS entries (order: catalog order, A then B then C);
  * every SMARTS parses, and every query_smarts re-parses to itself (so nothing is lost in writing it out);
  * on RDKit's own PAINS test set, query_smarts and the merged original pattern give the same hits.
All FilterCatalog PAINS entries use the default counts (any match triggers), so no counts are stored.
The output is deterministic (fixed key order, no timestamps).
"""
import csv
import json
import os
import re
import sys

import rdkit
from rdkit import Chem, RDLogger
from rdkit.Chem import FilterCatalog

PAINS_CSV = "/usr/share/RDKit/Data/Pains/wehi_pains.csv"
PAINS_README = "/usr/share/RDKit/Data/Pains/README.md"
TEST_SET = "/usr/share/RDKit/Data/Pains/test_data/test_set3.txt"
COPYRIGHT = "/usr/share/doc/rdkit-data/copyright"
CITATION = ("Baell, J.B.; Holloway, G.A. (2010) 'New Substructure Filters for Removal of Pan Assay Interference "
            "Compounds (PAINS) from Screening Libraries and for Their Exclusion in Bioassays', Journal of Medicinal "
            "Chemistry, 53(7), 2719-2740, https://doi.org/10.1021/jm901137j")
SMARTS_SOURCE = ("Saubern, S.; Guha, R.; Baell, J.B. (2011) 'KNIME Workflow to Assess PAINS Filters in SMARTS Format. "
                 "Comparison of RDKit and Indigo Cheminformatics Libraries', Molecular Informatics, 30, 847-850, "
                 "https://doi.org/10.1002/minf.201100076; SMARTS edited by the RDKit project to work with RDKit")
FAMILIES = {"PAINS_A": "A", "PAINS_B": "B", "PAINS_C": "C"}


def fail(message: str) -> None:
    sys.exit(f"build-pains-asset: {message}")


def rdkit_notice() -> str:
    """Copyright line of the 'Files: *' stanza plus the BSD-3-clause text of Debian's copyright file."""
    with open(COPYRIGHT, encoding="utf-8") as fh:
        text = fh.read()
    stanzas = text.split("\n\n")
    star = next((s for s in stanzas if s.startswith("Files: *")), None)
    license_text = next((s for s in stanzas if s.startswith("License: BSD-3-clause\n")), None)
    if star is None or license_text is None:
        fail(f"no 'Files: *' stanza or BSD-3-clause text in {COPYRIGHT}")
    m = re.search(r"^Copyright: (.*(?:\n [^\n]*)*)", star, re.M)
    if m is None:
        fail("no Copyright field in the 'Files: *' stanza")
    holders = " ".join(part.strip() for part in m.group(1).split("\n"))
    body = []
    for line in license_text.split("\n")[1:]:
        line = line[1:] if line.startswith(" ") else line
        body.append("" if line == "." else line)
    return f"Copyright (c) {holders}\nAll rights reserved.\n\n" + "\n".join(body).strip("\n")


def catalog_entries():
    """(name, family) of every FilterCatalog PAINS entry, in catalog order."""
    out = []
    for set_name, family in FAMILIES.items():
        params = FilterCatalog.FilterCatalogParams()
        params.AddCatalog(getattr(FilterCatalog.FilterCatalogParams.FilterCatalogs, set_name))
        catalog = FilterCatalog.FilterCatalog(params)
        for i in range(catalog.GetNumEntries()):
            entry = catalog.GetEntryWithIdx(i)
            if entry.GetProp("FilterSet") != set_name:
                fail(f"entry {entry.GetDescription()} of {set_name} says FilterSet {entry.GetProp('FilterSet')}")
            out.append((entry.GetDescription(), family))
    return out


def main() -> None:
    RDLogger.DisableLog("rdApp.*")
    with open(PAINS_CSV, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    by_name = {}
    for index, row in enumerate(rows):
        if len(row) != 2:
            fail(f"line {index + 1} of {PAINS_CSV} does not have two fields")
        m = re.fullmatch(r"<regId=(.+)>", row[1])
        if m is None:
            fail(f"line {index + 1}: unexpected name field {row[1]!r}")
        if m.group(1) in by_name:
            fail(f"duplicate name {m.group(1)}")
        by_name[m.group(1)] = (index, row[0])

    catalog = catalog_entries()
    if sorted(n for n, _ in catalog) != sorted(by_name):
        fail("the CSV names differ from RDKit's FilterCatalog PAINS entries")

    entries = []
    for name, family in catalog:
        index, smarts = by_name[name]
        plain = Chem.MolFromSmarts(smarts)
        merged = Chem.MolFromSmarts(smarts, mergeHs=True)
        if plain is None or merged is None:
            fail(f"RDKit cannot parse the SMARTS of {name}")
        query_smarts = Chem.MolToSmarts(merged)
        again = Chem.MolFromSmarts(query_smarts)
        if again is None or Chem.MolToSmarts(again) != query_smarts:
            fail(f"the merged SMARTS of {name} does not re-parse to itself: {query_smarts}")
        entries.append({
            "name": name,
            "family": family,
            "smarts": smarts,
            "query_smarts": query_smarts,
            "explicit_h_atoms": sum(1 for a in plain.GetAtoms() if a.GetAtomicNum() == 1),
            "wehi_index": index,
        })

    # The written query must behave like the compiled FilterCatalog pattern on RDKit's own positives.
    with open(TEST_SET, encoding="utf-8") as fh:
        test_smiles = [line.split("\t")[2] for line in fh if line.strip() and not line.startswith("#")]
    test_mols = [m for m in (Chem.MolFromSmiles(s) for s in test_smiles) if m is not None]
    for e in entries:
        a = Chem.MolFromSmarts(e["query_smarts"])
        b = Chem.MolFromSmarts(e["smarts"], mergeHs=True)
        for mol in test_mols:
            if mol.HasSubstructMatch(a) != mol.HasSubstructMatch(b):
                fail(f"query_smarts of {e['name']} disagrees with the merged pattern on {Chem.MolToSmiles(mol)}")

    with open(PAINS_README, encoding="utf-8") as fh:
        readme = fh.read().strip()

    asset = {
        "source": {
            "description": "PAINS substructure alerts (families A, B, C) as used by RDKit's FilterCatalog",
            "rdkit_version": rdkit.__version__,
            "data_file": PAINS_CSV + " (Debian package rdkit-data)",
            "families_from": "rdkit.Chem.FilterCatalog, FilterCatalogParams.FilterCatalogs.PAINS_A/PAINS_B/PAINS_C",
            "citation": CITATION,
            "smarts_source": SMARTS_SOURCE,
            "rdkit_readme": readme,
            "matching": ("query_smarts is SmartsToMol(smarts, mergeHs=true) written back as SMARTS, the pattern "
                         "FilterCatalog matches; an entry fires when its pattern matches at least once"),
            "generator": "scripts/build-pains-asset.py",
        },
        "license": {"spdx": "BSD-3-Clause", "notice": rdkit_notice()},
        "entries": entries,
    }
    counts = {f: sum(1 for e in entries if e["family"] == f) for f in FAMILIES.values()}
    if len(entries) != 480 or counts != {"A": 16, "B": 55, "C": 409}:
        fail(f"unexpected entry counts {len(entries)} {counts}")

    out = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "pains.json"))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(asset, fh, indent=1, ensure_ascii=True)
        fh.write("\n")
    print(f"wrote {out}: {len(entries)} PAINS entries {counts}, RDKit {rdkit.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
