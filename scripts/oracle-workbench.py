#!/usr/bin/python3
"""Native RDKit oracle for the workbench acceptance test (test/e2e/workbench.oracle.test.ts).

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-workbench.py < request.json

The request is one JSON object:
  {"query_smiles": "...", "smarts": "...", "molecules": [{"smiles": "..."} | {"molblock": "..."}, ...]}
  answered with one JSON line per molecule: null when native RDKit cannot read it, else the native value of every
  canvas_annotate column kind native RDKit defines (see values()), plus what the test's upstream-change rules need:
    hba_8997_matches:   matches of [n;H0;+0;!X2] (the three-connected aromatic N rdkit/rdkit#8997 stopped counting)
    generic_7122:       the generic scaffold with rdkit/rdkit#7122's rule applied first (a bonded atom whose default
                        valence is -1, a "metal", gets no radical electrons)
  With "fields": [column, ...] only those columns are computed and answered (the triage test needs a dozen of
  them for 4,600 molecules; query_smiles and smarts may then be left out when sim and co are not among them);
  or {"roundtrip": ["smiles", ...]}, answered with one JSON line holding, for each, null when it does not parse, else
  {"canonical": Chem.MolToSmiles(Chem.MolFromSmiles(s)), "metal_bonded": an atom is bonded to a metal}: native RDKit's
  canonical form of another writer's SMILES, and whether rdkit/rdkit#8318 (atoms bonded to a metal written with
  explicit H counts) applies to it, "metal" as that change defines it (QueryOps' metal query, rdqueries.MAtomQueryAtom).
"""
import json
import sys

from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem, Crippen, Descriptors, Lipinski, QED
from rdkit.Chem import rdMolDescriptors as R
from rdkit.Chem import rdqueries
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams
from rdkit.Chem.Scaffolds import MurckoScaffold

PERIODIC = Chem.GetPeriodicTable()
HBA_8997 = Chem.MolFromSmarts("[n;H0;+0;!X2]")
METAL = rdqueries.MAtomQueryAtom()


def metal_bonded(mol):
    return any(METAL.Match(a) and any(not METAL.Match(n) for n in a.GetNeighbors()) for a in mol.GetAtoms())


def catalog(which):
    params = FilterCatalogParams()
    params.AddCatalog(which)
    return FilterCatalog(params)


PAINS = catalog(FilterCatalogParams.FilterCatalogs.PAINS)
BRENK = catalog(FilterCatalogParams.FilterCatalogs.BRENK)


def canonical(smiles):
    """Native RDKit's canonical SMILES of a SMILES it wrote from an edited molecule. MolToSmiles of what
    MakeScaffoldGeneric returns is not always canonical: that molecule keeps perceptions of the one it came from
    (a scaffold read from an SDF record with E/Z bonds wrote CC(CC1CCCCC1)CCC1CCCCC1, which native RDKit itself
    canonicalises to CC(CCC1CCCCC1)CC1CCCCC1); read back, it is."""
    mol = Chem.MolFromSmiles(smiles)
    return Chem.MolToSmiles(mol) if mol is not None else smiles


def generic(scaffold):
    try:
        return canonical(Chem.MolToSmiles(MurckoScaffold.MakeScaffoldGeneric(scaffold)))
    except Exception:  # a metal radical made a carbon past its valence (see generic_7122)
        return None


def rule_7122(mol):
    copy = Chem.Mol(mol)
    for atom in copy.GetAtoms():
        if PERIODIC.GetDefaultValence(atom.GetAtomicNum()) == -1 and atom.GetDegree() > 0:
            atom.SetNumRadicalElectrons(0)
    return copy


def values(mol, query_fp, pattern, fields=None):
    """Every column's native value, or only those named in fields (the rest are not computed)."""
    memo = {}

    def once(key, compute):
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    mw = lambda: once("mw", lambda: Descriptors.MolWt(mol))  # noqa: E731
    logp = lambda: once("logp", lambda: Crippen.MolLogP(mol))  # noqa: E731
    scaffold = lambda: once("scaffold", lambda: MurckoScaffold.GetScaffoldForMol(mol))  # noqa: E731
    columns = {
        "mw": lambda: round(mw(), 3),
        "exact_mass": lambda: round(Descriptors.ExactMolWt(mol), 4),
        "logp": lambda: round(logp(), 3),
        "tpsa": lambda: round(R.CalcTPSA(mol), 2),
        "hbd": lambda: R.CalcNumHBD(mol),
        "hba": lambda: R.CalcNumHBA(mol),
        "rotatable_bonds": lambda: R.CalcNumRotatableBonds(mol, True),
        "heavy_atom_count": lambda: mol.GetNumHeavyAtoms(),
        "formula": lambda: R.CalcMolFormula(mol),
        "qed": lambda: round(QED.qed(mol), 3),
        # Lipinski's rule of five (Lipinski et al., Adv. Drug Deliv. Rev. 1997): MW > 500, logP > 5, NH+OH > 5, N+O > 10.
        "lipinski_violations": lambda: int(mw() > 500) + int(logp() > 5) + int(Lipinski.NHOHCount(mol) > 5) + int(Lipinski.NOCount(mol) > 10),
        "pains_names": lambda: sorted(set(e.GetDescription() for e in PAINS.GetMatches(mol))),
        "brenk_names": lambda: sorted(set(e.GetDescription() for e in BRENK.GetMatches(mol))),
        "murcko_scaffold": lambda: canonical(Chem.MolToSmiles(scaffold())),
        "generic_scaffold": lambda: generic(scaffold()),
        "canonical_smiles": lambda: Chem.MolToSmiles(mol),
        "sim": lambda: round(DataStructs.TanimotoSimilarity(query_fp, AllChem.GetMorganFingerprintAsBitVect(mol, 2, 2048)), 3),
        "co": lambda: len(mol.GetSubstructMatches(pattern, maxMatches=1000)),
        "hba_8997_matches": lambda: len(mol.GetSubstructMatches(HBA_8997)),
        "generic_7122": lambda: generic(MurckoScaffold.GetScaffoldForMol(rule_7122(mol))),
    }
    return {name: compute() for name, compute in columns.items() if fields is None or name in fields}


def main():
    RDLogger.DisableLog("rdApp.*")
    request = json.load(sys.stdin)
    if "roundtrip" in request:
        out = []
        for smiles in request["roundtrip"]:
            mol = Chem.MolFromSmiles(smiles) if smiles is not None else None
            out.append({"canonical": Chem.MolToSmiles(mol), "metal_bonded": metal_bonded(mol)} if mol is not None else None)
        sys.stdout.write(json.dumps(out) + "\n")
        return
    query_fp = AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(request.get("query_smiles", "C")), 2, 2048)
    pattern = Chem.MolFromSmarts(request.get("smarts", "C"))
    fields = set(request["fields"]) if "fields" in request else None
    for entry in request["molecules"]:
        mol = Chem.MolFromMolBlock(entry["molblock"]) if "molblock" in entry else Chem.MolFromSmiles(entry["smiles"])
        sys.stdout.write(json.dumps(values(mol, query_fp, pattern, fields) if mol is not None else None) + "\n")


if __name__ == "__main__":
    main()
