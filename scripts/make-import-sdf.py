#!/usr/bin/python3
"""An SDF of salts, stereoisomers and duplicates, written by native RDKit, for canvas_import's standardize and dedupe
test (test/tools/canvas_import-clean.test.ts).

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/make-import-sdf.py [count]

Parents come from RDKit's NCI first_5K.smi (one fragment, neutral, 12 to 40 heavy atoms, only C, N, O, S, F, Cl, Br),
each with its unassigned stereocentres and double bonds set to the first isomer EnumerateStereoisomers gives. Each
parent is written as itself and as a salt form (every fourth the salt first), in turn a protonated base with chloride
or mesylate, a carboxylate with Na+ or K+, or a neutral mixture with HCl, maleic acid or methanesulfonic acid; every fifth parent comes back
later as a second salt form, and every seventh as a repeat of its own record. One record in the middle is broken (a
pentavalent carbon, which RDKit refuses). Each record carries the data items ID (CMPD-0001, ...), smiles (the SMILES
it was written from: a data item named like a column the import writes) and pIC50 (a number); its title names the
parent and the form. Deterministic: the same RDKit data files give the same file.

Prints one JSON object: {"sdf": the text, "records": [{"title", "id", "smiles"}]} in file order, where smiles is
native RDKit's canonical SMILES of the record read back with Chem.MolFromMolBlock (null for the broken one).
"""
import io
import json
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions

NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi"
ELEMENTS = {6, 7, 8, 9, 16, 17, 35}
BASIC_N = Chem.MolFromSmarts("[NX3;H0,H1,H2;+0;!$(N-[C,S,P]=[O,S,N]);!$(N-a);!$(N-[N,O]);!$(N-C=C);!$(N#*);!$(N=*)]")
ACID_O = Chem.MolFromSmarts("[OX2H1;$(O-C(=O)[#6])]")
ANIONS = ["[Cl-]", "CS(=O)(=O)[O-]"]
CATIONS = ["[Na+]", "[K+]"]
NEUTRAL = ["Cl", "OC(=O)/C=C\\C(=O)O", "CS(=O)(=O)O"]
BROKEN = (
    "broken-pentavalent\n     RDKit          2D\n\n  6  5  0  0  0  0  0  0  0  0999 V2000\n"
    + "".join("    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n" for _ in range(6))
    + "".join(f"  1  {k}  1  0\n" for k in range(2, 7))
    + "M  END\n"
)


def charged(mol, query, delta):
    """mol with the first atom matching query protonated (+1) or deprotonated (-1); None when none matches."""
    hits = mol.GetSubstructMatches(query)
    if not hits:
        return None
    rw = Chem.RWMol(mol)
    atom = rw.GetAtomWithIdx(hits[0][0])
    atom.SetFormalCharge(delta)
    atom.SetNumExplicitHs(atom.GetTotalNumHs() + delta)
    atom.SetNoImplicit(True)
    try:
        Chem.SanitizeMol(rw)
    except Exception:
        return None
    return rw


def parents(count):
    options = StereoEnumerationOptions(onlyUnassigned=True, unique=True, maxIsomers=1)
    seen = set()
    for line in open(NCI):
        mol = Chem.MolFromSmiles(line.split()[0]) if line.strip() else None
        if mol is None or len(Chem.GetMolFrags(mol)) != 1 or not 12 <= mol.GetNumHeavyAtoms() <= 40:
            continue
        if any(a.GetFormalCharge() != 0 or a.GetAtomicNum() not in ELEMENTS or a.GetIsotope() for a in mol.GetAtoms()):
            continue
        isomer = next(iter(EnumerateStereoisomers(mol, options=options)), mol)
        isomer = Chem.MolFromSmiles(Chem.MolToSmiles(isomer))
        smiles = Chem.MolToSmiles(isomer)
        if smiles in seen:
            continue
        seen.add(smiles)
        yield isomer
        count -= 1
        if count == 0:
            return


def salt(mol, turn):
    """A salt form of mol (the turn picks which), as SMILES."""
    if turn % 3 == 0:
        ion = charged(mol, BASIC_N, +1)
        if ion is not None:
            return f"{Chem.MolToSmiles(ion)}.{ANIONS[turn % len(ANIONS)]}"
    if turn % 3 == 1:
        ion = charged(mol, ACID_O, -1)
        if ion is not None:
            return f"{Chem.MolToSmiles(ion)}.{CATIONS[turn % len(CATIONS)]}"
    return f"{Chem.MolToSmiles(mol)}.{NEUTRAL[turn % len(NEUTRAL)]}"


def main():
    RDLogger.DisableLog("rdApp.*")
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    plan = []  # (title, smiles)
    later = []
    for i, mol in enumerate(parents(count)):
        parent = Chem.MolToSmiles(mol)
        forms = [(f"p{i}", parent), (f"p{i}-salt", salt(mol, i))]
        # Every fourth parent comes first as its salt (the row kept is then the salt's, its smiles the parent).
        plan.extend(reversed(forms) if i % 4 == 3 else forms)
        if i % 5 == 0:
            later.append((f"p{i}-salt2", salt(mol, i + 1)))
        if i % 7 == 0:
            later.append((f"p{i}", parent))
        if len(plan) + len(later) >= count - 1:
            break
    records = (plan + later)[: count - 1]
    out = io.StringIO()
    listed = []
    for k, (title, smiles) in enumerate(records):
        if k == len(records) // 2:
            out.write(BROKEN + ">  <ID>\nCMPD-BROKEN\n\n$$$$\n")
            listed.append({"title": "broken-pentavalent", "id": "CMPD-BROKEN", "smiles": None})
        mol = Chem.MolFromSmiles(smiles)
        mol.SetProp("_Name", title)
        ident = f"CMPD-{k + 1:04d}"
        mol.SetProp("ID", ident)
        mol.SetProp("smiles", smiles)
        mol.SetDoubleProp("pIC50", round(5 + (k % 37) / 10, 2))
        block = io.StringIO()
        writer = Chem.SDWriter(block)
        writer.write(mol)
        writer.close()
        text = block.getvalue()
        back = Chem.MolFromMolBlock(text)
        out.write(text)
        listed.append({"title": title, "id": ident, "smiles": Chem.MolToSmiles(back) if back is not None else None})
    sys.stdout.write(json.dumps({"sdf": out.getvalue(), "records": listed}) + "\n")


if __name__ == "__main__":
    main()
