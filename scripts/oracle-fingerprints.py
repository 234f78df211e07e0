#!/usr/bin/python3
"""Native RDKit oracle for the fingerprint tools (ecfp4, tanimoto, sa_score): SMILES in, JSON lines out.

Run with the Debian RDKit Python:
  /usr/bin/python3 scripts/oracle-fingerprints.py [--radius 2] [--nbits 2048] [--chirality] [--query SMILES] < smiles.txt

Each input line holds a SMILES, optionally followed by whitespace and anything else (so .smi files and
RDKit's zim.100.txt can be piped in as they are; its header line answers an error row); only the first
field is used. Output line i answers input line i with one JSON object:
  smiles         the input SMILES
  error          present (and nothing else) when RDKit cannot parse it
  on_bits        sorted on bits of AllChem.GetMorganFingerprintAsBitVect(m, radius, nBits, useChirality)
  morgan_counts  [[id, count], ...] of rdMolDescriptors.GetMorganFingerprint(m, 2), sorted by id: the
                 unfolded radius-2 environment ids and counts that the SA score reads
  sa_score       sascorer.calculateScore(m) from RDKit's Contrib/SA_Score (Ertl & Schuffenhauer 2009)
  sa_terms       the inputs of that score, computed the way sascorer.py computes them (for diagnosis):
                 num_atoms, chiral_centers, spiro, bridgeheads, macrocycles, distinct_fragments
  sa_score_rdkit7446
                 the same sascorer score with one later RDKit rule applied to its stereocentre list:
                 rdkit/rdkit#7434 (fixed by PR #7446, merged May 2024) no longer lets a three-coordinate N
                 that is not sp3 or has a conjugated bond be a potential stereocentre (RDKit 2022.09 counted,
                 e.g., aromatic N bonded to a chelated metal as a bridgehead centre). Present only when the
                 rule changes the list; sa_terms.chiral_centers_rdkit7446 gives the filtered count
  tanimoto       with --query: DataStructs.BulkTanimotoSimilarity(query, [these fingerprints]) entry,
                 i.e. the Tanimoto similarity of the query's and this molecule's bit fingerprints
"""
import argparse
import json
import sys

from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem, rdMolDescriptors

SA_DIR = "/usr/share/RDKit/Contrib/SA_Score"


def is_rdkit7446_excluded(atom):
    """A centre that rdkit/rdkit#7434 (PR #7446) removed: three-coordinate N (not with exactly one H) that
    is not sp3 or has a conjugated bond."""
    return (atom.GetAtomicNum() == 7 and atom.GetTotalDegree() == 3 and atom.GetTotalNumHs() != 1
            and (atom.GetHybridization() != Chem.HybridizationType.SP3
                 or any(b.GetIsConjugated() for b in atom.GetBonds())))


def centers_rdkit7446(mol, **kwargs):
    return [c for c in Chem.FindMolChiralCenters(mol, **kwargs) if not is_rdkit7446_excluded(mol.GetAtomWithIdx(c[0]))]


class ChemWithRdkit7446:
    """Stands in for the rdkit.Chem module inside sascorer, with the later stereocentre rule applied."""

    FindMolChiralCenters = staticmethod(centers_rdkit7446)

    def __getattr__(self, name):
        return getattr(Chem, name)


def sa_terms(mol):
    """The quantities sascorer.calculateScore reads, computed with the same RDKit calls."""
    ri = mol.GetRingInfo()
    return {
        "num_atoms": mol.GetNumAtoms(),
        "chiral_centers": len(Chem.FindMolChiralCenters(mol, includeUnassigned=True)),
        "chiral_centers_rdkit7446": len(centers_rdkit7446(mol, includeUnassigned=True)),
        "spiro": rdMolDescriptors.CalcNumSpiroAtoms(mol),
        "bridgeheads": rdMolDescriptors.CalcNumBridgeheadAtoms(mol),
        "macrocycles": sum(1 for ring in ri.AtomRings() if len(ring) > 8),
        "distinct_fragments": len(rdMolDescriptors.GetMorganFingerprint(mol, 2).GetNonzeroElements()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--radius", type=int, default=2)
    parser.add_argument("--nbits", type=int, default=2048)
    parser.add_argument("--chirality", action="store_true", help="useChirality=True for on_bits")
    parser.add_argument("--query", help="query SMILES for the tanimoto field")
    parser.add_argument("--no-sa", action="store_true", help="skip sa_score and sa_terms")
    args = parser.parse_args()
    RDLogger.DisableLog("rdApp.*")

    sascorer = None
    if not args.no_sa:
        sys.path.append(SA_DIR)
        import sascorer as sascorer_module  # noqa: E402 (RDKit Contrib, not a package)

        sascorer = sascorer_module

    def bitvect(mol):
        return AllChem.GetMorganFingerprintAsBitVect(mol, args.radius, nBits=args.nbits, useChirality=args.chirality)

    query_fp = None
    if args.query is not None:
        qmol = Chem.MolFromSmiles(args.query)
        if qmol is None:
            sys.exit(f"oracle-fingerprints: RDKit cannot parse the query {args.query!r}")
        query_fp = bitvect(qmol)

    rows = []
    fps = []
    for line in sys.stdin:
        smiles = line.split()[0] if line.strip() else ""
        row = {"smiles": smiles}
        mol = Chem.MolFromSmiles(smiles) if smiles else None
        if mol is None:
            row["error"] = "RDKit could not parse the SMILES" if smiles else "empty line"
            rows.append(row)
            continue
        fp = bitvect(mol)
        row["on_bits"] = list(fp.GetOnBits())
        counts = rdMolDescriptors.GetMorganFingerprint(mol, 2).GetNonzeroElements()
        row["morgan_counts"] = sorted([int(k), int(v)] for k, v in counts.items())
        if sascorer is not None:
            row["sa_score"] = sascorer.calculateScore(mol)
            row["sa_terms"] = sa_terms(mol)
            if row["sa_terms"]["chiral_centers_rdkit7446"] != row["sa_terms"]["chiral_centers"]:
                sascorer.Chem = ChemWithRdkit7446()
                try:
                    row["sa_score_rdkit7446"] = sascorer.calculateScore(mol)
                finally:
                    sascorer.Chem = Chem
        rows.append(row)
        fps.append((len(rows) - 1, fp))

    if query_fp is not None and fps:
        sims = DataStructs.BulkTanimotoSimilarity(query_fp, [fp for _, fp in fps])
        for (i, _), sim in zip(fps, sims):
            rows[i]["tanimoto"] = sim

    write = sys.stdout.write
    for row in rows:
        write(json.dumps(row, allow_nan=False) + "\n")


if __name__ == "__main__":
    main()
