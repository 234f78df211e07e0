#!/usr/bin/python3
"""Native RDKit oracle for BRICS (rdkit.Chem.BRICS) and the retrosynthesis tool: SMILES in, JSON lines out.

Run with the Debian RDKit Python:
  /usr/bin/python3 scripts/oracle-brics.py [--no-decompose] [--no-sa] < smiles.txt

Each input line holds a SMILES, optionally followed by whitespace and anything else (so .smi files can be
piped in as they are); only the first field is used. Output line i answers input line i with one object:
  smiles       the input SMILES
  error        present (and nothing else) when RDKit cannot parse it
  canonical    Chem.MolToSmiles(mol, True)
  sa_score     sascorer.calculateScore(mol) (RDKit Contrib/SA_Score, Ertl & Schuffenhauer 2009)
  bonds        list(BRICS.FindBRICSBonds(mol)) in its order: [[a, b], [label_a, label_b]] (labels as strings,
               letters stripped, as RDKit yields them)
  cuts         one entry per bond, same order:
                 editable          Chem.MolToSmiles(BRICS.BreakBRICSBonds(mol, [bond]), True): the module's
                                   own single-bond path (EditableMol: RemoveBond, then AddBond to a new dummy)
                 fragment_on_bonds Chem.MolToSmiles of Chem.FragmentOnBonds(mol, [bond index],
                                   dummyLabels=[labels]) (the C++ path BreakBRICSBonds takes for all bonds
                                   at once, restricted to this bond; it keeps tetrahedral stereo)
                 editable_flat / fragment_on_bonds_flat
                                   the same two with isomericSmiles=False (no stereo)
                 sa_scores         {fragment SMILES: sascorer.calculateScore(Chem.MolFromSmiles(fragment))}
                                   for every fragment of both outputs
  decomposition  sorted(BRICS.BRICSDecompose(mol)) with its defaults (minFragmentSize=1,
                 keepNonLeafNodes=False, singlePass=False); absent with --no-decompose, and absent for a
                 molecule with more than --max-decompose-bonds BRICS bonds (the algorithm visits every
                 partial decomposition: some sugars with ~40 BRICS bonds take minutes natively)
  decomposition_sa  {fragment: sascorer score of Chem.MolFromSmiles(fragment)}; absent with --no-sa
  sa_rdkit7446 {SMILES: score} for the target and fragments whose sascorer score changes under one later RDKit
               rule: rdkit/rdkit#7434 (fixed by PR #7446, May 2024) no longer lets a three-coordinate N that is
               not sp3 or has a conjugated bond be a potential stereocentre (see scripts/oracle-fingerprints.py)
  ms           wall time of the decomposition in ms

With --canon, each input line is answered with {"smiles", "canonical"} only: Chem.MolToSmiles of the parsed
SMILES (isomeric), or "error" when RDKit cannot parse it. The oracle test uses it to read our output back.
"""
import argparse
import json
import sys
import time

from rdkit import Chem, RDLogger
from rdkit.Chem import BRICS

SA_DIR = "/usr/share/RDKit/Contrib/SA_Score"


def load_sascorer():
    sys.path.insert(0, SA_DIR)
    import sascorer  # noqa: E402  (RDKit Contrib, not a package)
    return sascorer


def is_rdkit7446_excluded(atom):
    """A centre that rdkit/rdkit#7434 (PR #7446) removed: three-coordinate N (not with exactly one H) that
    is not sp3 or has a conjugated bond."""
    return (atom.GetAtomicNum() == 7 and atom.GetTotalDegree() == 3 and atom.GetTotalNumHs() != 1
            and (atom.GetHybridization() != Chem.HybridizationType.SP3
                 or any(b.GetIsConjugated() for b in atom.GetBonds())))


class ChemWithRdkit7446:
    """Stands in for the rdkit.Chem module inside sascorer, with the later stereocentre rule applied."""

    @staticmethod
    def FindMolChiralCenters(mol, **kwargs):
        return [c for c in Chem.FindMolChiralCenters(mol, **kwargs) if not is_rdkit7446_excluded(mol.GetAtomWithIdx(c[0]))]

    def __getattr__(self, name):
        return getattr(Chem, name)


def sa_of(sascorer, smiles, cache, alt):
    """sascorer score of the SMILES (6 dp), cached; fills alt[smiles] when the rdkit#7434 rule changes it."""
    if smiles not in cache:
        mol = Chem.MolFromSmiles(smiles)
        cache[smiles] = None if mol is None else round(sascorer.calculateScore(mol), 6)
        if mol is not None and any(is_rdkit7446_excluded(mol.GetAtomWithIdx(i))
                                   for i, _ in Chem.FindMolChiralCenters(mol, includeUnassigned=True)):
            sascorer.Chem = ChemWithRdkit7446()
            try:
                alt[smiles] = round(sascorer.calculateScore(mol), 6)
            finally:
                sascorer.Chem = Chem
    return cache[smiles]


def answer(line, args, sascorer):
    smiles = line.split()[0] if line.split() else ""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return {"smiles": smiles, "error": "parse"}
    out = {"smiles": smiles, "canonical": Chem.MolToSmiles(mol, True)}
    cache = {}
    alt = {}
    if sascorer is not None:
        out["sa_score"] = sa_of(sascorer, out["canonical"], cache, alt)
    bonds = list(BRICS.FindBRICSBonds(mol))
    out["bonds"] = [[[a, b], [la, lb]] for (a, b), (la, lb) in bonds]
    cuts = []
    for (a, b), (la, lb) in bonds:
        broken = BRICS.BreakBRICSBonds(mol, [((a, b), (la, lb))])
        bond = mol.GetBondBetweenAtoms(a, b)
        # FragmentOnBonds' dummyLabels pair: (label of the dummy bonded to the end atom, ... to the begin atom).
        label_a, label_b = int(la), int(lb)
        labels = (label_b, label_a) if bond.GetBeginAtomIdx() == a else (label_a, label_b)
        fob = Chem.FragmentOnBonds(mol, [bond.GetIdx()], addDummies=True, dummyLabels=[labels])
        cut = {
            "editable": Chem.MolToSmiles(broken, True),
            "fragment_on_bonds": Chem.MolToSmiles(fob, True),
            "editable_flat": Chem.MolToSmiles(broken, False),
            "fragment_on_bonds_flat": Chem.MolToSmiles(fob, False),
        }
        if sascorer is not None:
            frags = set(cut["editable"].split(".")) | set(cut["fragment_on_bonds"].split("."))
            cut["sa_scores"] = {f: sa_of(sascorer, f, cache, alt) for f in sorted(frags)}
        cuts.append(cut)
    out["cuts"] = cuts
    if args.decompose and (args.max_decompose_bonds is None or len(bonds) <= args.max_decompose_bonds):
        start = time.perf_counter()
        decomposition = sorted(BRICS.BRICSDecompose(mol))
        out["ms"] = round((time.perf_counter() - start) * 1000, 2)
        out["decomposition"] = decomposition
        if sascorer is not None:
            out["decomposition_sa"] = {f: sa_of(sascorer, f, cache, alt) for f in decomposition}
    if alt:
        out["sa_rdkit7446"] = alt
    return out


def canon(line):
    smiles = line.split()[0] if line.split() else ""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return {"smiles": smiles, "error": "parse"}
    return {"smiles": smiles, "canonical": Chem.MolToSmiles(mol, True)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-decompose", dest="decompose", action="store_false")
    parser.add_argument("--no-sa", dest="sa", action="store_false")
    parser.add_argument("--canon", action="store_true")
    parser.add_argument("--max-decompose-bonds", type=int, default=None)
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")
    if args.canon:
        for line in sys.stdin:
            print(json.dumps(canon(line.rstrip("\n")), separators=(",", ":")), flush=True)
        return
    sascorer = load_sascorer() if args.sa else None
    for line in sys.stdin:
        print(json.dumps(answer(line.rstrip("\n"), args, sascorer), separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
