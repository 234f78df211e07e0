#!/usr/bin/python3
"""Native RDKit oracle for the alert, SMARTS and MCS tests: one JSON line out per input line.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-alerts.py MODE < input

Modes:
  catalog   no input; one line {"pains": [{"name", "family"}...], "brenk": [{"name", "family"}...]}: the entries
            of RDKit's FilterCatalog PAINS (families from PAINS_A/B/C) and BRENK sets, in catalog order.
  alerts    a SMILES per line (further fields ignored, so .smi files pipe in as they are); answers
            {"smiles", "pains": [{"name", "atoms"}], "brenk": [...]} with FilterCatalog.GetMatches in catalog
            order and the atoms of each entry's first reported match (GetFilterMatches, query-atom order),
            or {"smiles", "error"}.
  smarts    a JSON object per line {"smarts", "smiles", "maxMatches", "uniquify", "useChirality"}; answers
            {"count", "matches"} from Mol.GetSubstructMatches, or {"error": "smarts" | "smiles"}.
  mcs       a JSON object per line {"smiles_list", "ringMatchesRingOnly", "completeRingsOnly", "atomCompare"
            (Any|Elements|Isotopes), "bondCompare" (Any|Order|OrderExact), "timeout"}; answers rdFMCS.FindMCS's
            {"numAtoms", "numBonds", "smarts", "canceled"}, or {"error"}.
"""
import json
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem import FilterCatalog, rdFMCS

PAINS_SETS = {"PAINS_A": "A", "PAINS_B": "B", "PAINS_C": "C"}


def make_catalog(*sets):
    params = FilterCatalog.FilterCatalogParams()
    for s in sets:
        params.AddCatalog(getattr(FilterCatalog.FilterCatalogParams.FilterCatalogs, s))
    return FilterCatalog.FilterCatalog(params)


def family_of(entry):
    filter_set = entry.GetProp("FilterSet")
    return PAINS_SETS.get(filter_set, filter_set)


def catalog_mode():
    out = {}
    for key, sets in (("pains", list(PAINS_SETS)), ("brenk", ["BRENK"])):
        catalog = make_catalog(*sets)
        entries = [catalog.GetEntryWithIdx(i) for i in range(catalog.GetNumEntries())]
        out[key] = [{"name": e.GetDescription(), "family": family_of(e)} for e in entries]
    sys.stdout.write(json.dumps(out) + "\n")


def alerts_mode():
    pains = make_catalog(*PAINS_SETS)
    brenk = make_catalog("BRENK")

    def hits(catalog, mol):
        out = []
        for entry in catalog.GetMatches(mol):
            matches = entry.GetFilterMatches(mol)
            atoms = [t for _, t in matches[0].atomPairs] if matches else []
            out.append({"name": entry.GetDescription(), "family": family_of(entry), "atoms": atoms})
        return out

    for line in sys.stdin:
        smiles = line.split()[0] if line.strip() else ""
        mol = Chem.MolFromSmiles(smiles) if smiles else None
        if mol is None:
            out = {"smiles": smiles, "error": "RDKit could not parse the SMILES"}
        else:
            out = {"smiles": smiles, "pains": hits(pains, mol), "brenk": hits(brenk, mol)}
        sys.stdout.write(json.dumps(out) + "\n")


def smarts_mode():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        query = Chem.MolFromSmarts(req["smarts"])
        if query is None:
            sys.stdout.write(json.dumps({"error": "smarts"}) + "\n")
            continue
        mol = Chem.MolFromSmiles(req["smiles"])
        if mol is None:
            sys.stdout.write(json.dumps({"error": "smiles"}) + "\n")
            continue
        matches = mol.GetSubstructMatches(query, uniquify=req.get("uniquify", True),
                                          useChirality=req.get("useChirality", False),
                                          maxMatches=req.get("maxMatches", 1000))
        sys.stdout.write(json.dumps({"count": len(matches), "matches": [list(m) for m in matches]}) + "\n")


ATOM_COMPARE = {"Any": rdFMCS.AtomCompare.CompareAny, "Elements": rdFMCS.AtomCompare.CompareElements,
                "Isotopes": rdFMCS.AtomCompare.CompareIsotopes}
BOND_COMPARE = {"Any": rdFMCS.BondCompare.CompareAny, "Order": rdFMCS.BondCompare.CompareOrder,
                "OrderExact": rdFMCS.BondCompare.CompareOrderExact}


def mcs_mode():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        mols = [Chem.MolFromSmiles(s) for s in req["smiles_list"]]
        if any(m is None for m in mols):
            sys.stdout.write(json.dumps({"error": "smiles"}) + "\n")
            continue
        res = rdFMCS.FindMCS(mols,
                             ringMatchesRingOnly=req.get("ringMatchesRingOnly", True),
                             completeRingsOnly=req.get("completeRingsOnly", True),
                             atomCompare=ATOM_COMPARE[req.get("atomCompare", "Elements")],
                             bondCompare=BOND_COMPARE[req.get("bondCompare", "Order")],
                             timeout=int(req.get("timeout", 30)))
        sys.stdout.write(json.dumps({"numAtoms": res.numAtoms, "numBonds": res.numBonds,
                                     "smarts": res.smartsString, "canceled": res.canceled}) + "\n")


def main():
    modes = {"catalog": catalog_mode, "alerts": alerts_mode, "smarts": smarts_mode, "mcs": mcs_mode}
    if len(sys.argv) != 2 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    RDLogger.DisableLog("rdApp.*")
    modes[sys.argv[1]]()


if __name__ == "__main__":
    main()
