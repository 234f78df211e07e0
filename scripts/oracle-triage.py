#!/usr/bin/python3
"""Native RDKit side of the canvas-triage acceptance test (test/e2e/canvas-triage.oracle.test.ts).

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-triage.py < request.json

The request is one JSON object, either
  {"make": "/path/out.sdf", "n": 5000}
    writes an SDF of n records built from RDKit's NCI first_5K.smi with native RDKit's SDWriter: each record titled
    mol-<i>, with data items ID (CMP-<i>), NSC, activity (a number) and SMILES (the record's own SMILES, a tag that
    clashes with the import's smiles column); every 100th record from the 50th is the record before it as an HCl
    salt, the next one that record again under another ID (both duplicates of a parent), every 100th from the 52nd a
    hydrate; three records are molblocks RDKit cannot sanitise (a pentavalent carbon). Answers one JSON line:
    {"records": n, "invalid": [record indices], "salts": [...], "repeats": [...]}.
  {"native": "/path/in.sdf", "kept": [record indices, in table order], "threshold": 0.4, "picks": 50}
    reads the SDF natively and answers one JSON line: "parents", each record's standardised parent as the
    standardize tool defines it (Cleanup, SaltRemover with dontRemoveEverything, LargestFragmentChooser(preferOrganic),
    Uncharger, Cleanup: scripts/oracle-standardize.py's salt_stripped), canonical SMILES, null where RDKit cannot read
    the record; then, on the kept records' parents (positions in "kept"): "scaffolds" (MurckoScaffold.GetScaffoldForMol),
    "clusters" (Butina.ClusterData on 1 - Tanimoto of Morgan radius 2, 2048-bit vectors, isDistData=True) and "picks"
    (MaxMinPicker.LazyBitVectorPick, firstPicks [0]); with "smiles" (one per kept record) those three are computed on
    these SMILES instead (the table's parents, which the test compares with "parents" on its own).
"""
import json
import sys

from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem
from rdkit.Chem.MolStandardize import rdMolStandardize
from rdkit.Chem.SaltRemover import SaltRemover
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.ML.Cluster import Butina
from rdkit.SimDivFilters.rdSimDivPickers import MaxMinPicker

NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi"
INVALID = {100, 2000, 4000}
# Molecules NCI's first 5,000 lack, placed at records 10-19 of every 500: macrocycles, metals, zwitterions,
# permanent charges, assigned and unassigned stereo, E/Z bonds, salts of a drug.
CURATED = [
    ("C[C@H]1C/C=C/C=C/C(=O)O[C@@H](C)C/C=C/C=C/C(=O)O1", "macrodiolide"),
    ("CC[C@@H]1C[C@@H]2C[C@H]3c4[nH]c5ccccc5c4CCN(C2)[C@@H]13", "stereo alkaloid"),
    ("N.N.Cl[Pt]Cl", "cisplatin"),
    ("[Fe+2].c1cc[cH-]c1.c1cc[cH-]c1", "ferrocene"),
    ("C[N+](C)(C)CCOC(C)=O.[Cl-]", "acetylcholine chloride"),
    ("NCC(=O)O", "glycine"),
    ("[NH3+]CC(=O)[O-]", "glycine zwitterion"),
    ("COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1.Cl", "gefitinib HCl"),
    ("C/C=C/C(=O)O", "crotonic acid"),
    ("OC(=O)C(O)C(O)C(=O)O", "tartaric acid, unassigned"),
]


def make(path, n):
    base = []
    with open(NCI) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            mol = Chem.MolFromSmiles(parts[0])
            if mol is not None and mol.GetNumAtoms() > 0:
                base.append((parts[0], parts[1] if len(parts) > 1 else ""))
    writer = Chem.SDWriter(path)
    invalid, salts, repeats = [], [], []
    smiles_of = []
    for i in range(n):
        smiles, nsc = base[i % len(base)]
        if i % 100 == 50 and i > 0:
            smiles, nsc = smiles_of[i - 1][0] + ".Cl", smiles_of[i - 1][1]
            salts.append(i)
        elif i % 100 == 51:
            smiles, nsc = smiles_of[i - 2]
            repeats.append(i)
        elif i % 100 == 52:
            smiles = smiles + ".O"
        elif 10 <= i % 500 < 10 + len(CURATED):
            smiles, nsc = CURATED[i % 500 - 10][0], CURATED[i % 500 - 10][1]
        elif i % 10 == 3:
            # An assigned stereoisomer where the molecule has unassigned centres or bonds (NCI's SMILES carry none).
            from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions

            isomers = list(EnumerateStereoisomers(Chem.MolFromSmiles(smiles), options=StereoEnumerationOptions(onlyUnassigned=True, maxIsomers=8)))
            if len(isomers) > 1:
                smiles = Chem.MolToSmiles(isomers[(i // 10) % len(isomers)])
        smiles_of.append((smiles, nsc))
        if i in INVALID:
            mol = Chem.MolFromSmiles("CC(C)(C)(C)(C)C", sanitize=False)
            mol.UpdatePropertyCache(strict=False)
            invalid.append(i)
        else:
            mol = Chem.MolFromSmiles(smiles)
        mol.SetProp("_Name", f"mol-{i}")
        mol.SetProp("ID", f"CMP-{i:05d}")
        mol.SetProp("NSC", nsc)
        mol.SetProp("activity", f"{5 + (i * 37 % 500) / 100:.2f}")
        mol.SetProp("SMILES", smiles)
        if i in INVALID:
            writer.SetKekulize(False)
            writer.write(mol)
            writer.SetKekulize(True)
        else:
            writer.write(mol)
    writer.close()
    return {"records": n, "invalid": invalid, "salts": salts, "repeats": repeats}


def native(path, kept, threshold, picks, smiles=None):
    remover = SaltRemover()
    chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
    uncharger = rdMolStandardize.Uncharger()

    def parent_of(mol):
        m = rdMolStandardize.Cleanup(mol)
        m = remover.StripMol(m, dontRemoveEverything=True)
        m = chooser.choose(m)
        m = uncharger.uncharge(m)
        return rdMolStandardize.Cleanup(m)

    parents = []
    for mol in Chem.SDMolSupplier(path):
        if mol is None:
            parents.append(None)
            continue
        try:
            parents.append(Chem.MolToSmiles(parent_of(mol)))
        except Exception:  # noqa: BLE001 - a record the pipeline cannot take is answered as unreadable
            parents.append(None)
    mols = [Chem.MolFromSmiles(s) for s in smiles] if smiles is not None else [Chem.MolFromSmiles(parents[i]) for i in kept]
    scaffolds = [Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(m)) for m in mols]
    fps = [AllChem.GetMorganFingerprintAsBitVect(m, 2, nBits=2048) for m in mols]
    dists = []
    for i in range(1, len(fps)):
        sims = DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])
        dists.extend(1 - s for s in sims)
    clusters = [list(c) for c in Butina.ClusterData(dists, len(fps), threshold, isDistData=True)]
    picked = list(MaxMinPicker().LazyBitVectorPick(fps, len(fps), picks, firstPicks=[0]))
    return {"parents": parents, "scaffolds": scaffolds, "clusters": clusters, "picks": picked}


def main():
    RDLogger.DisableLog("rdApp.*")
    request = json.loads(sys.stdin.read())
    if "make" in request:
        out = make(request["make"], int(request.get("n", 5000)))
    else:
        out = native(request["native"], request["kept"], float(request["threshold"]), int(request["picks"]), request.get("smiles"))
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
