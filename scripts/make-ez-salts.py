#!/usr/bin/python3
"""Drug-like salts with E/Z double bonds, generated from RDKit's data files, for the standardize oracle test.

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/make-ez-salts.py [count]

RDKit's NCI first_5K.smi has no stereo labels, so for each of its molecules (one fragment, neutral, 12-60 heavy
atoms) with a stereogenic double bond, the first isomers RDKit's EnumerateStereoisomers gives (only the unassigned
stereo elements, at most two isomers) having an E/Z bond are taken; the molecules of RDKit's test SD files whose coordinates give an
E/Z bond (Projects/DbCLI/testData/pubchem.200.sdf, Contrib/Fastcluster/testdata/cdk2.sdf, Data/NCI/first_200.props.sdf)
come first. Each parent is paired with one counter-ion or solvent, in turn: acids as the neutral mixture (HCl,
citrate, maleate, fumarate, mesylate, tosylate, ...), and every other parent, where it can be,
as a protonated base with a chloride, hydrogen maleate, hydrogen fumarate or mesylate anion, or as a carboxylate
with Na+ or K+. A pairing whose counter-ion has at least as
many atoms (hydrogens counted) as the parent is skipped: ChargeParent would keep the counter-ion there, while the
standardize tool strips RDKit's salt list first (a documented difference tested elsewhere). Deterministic: the
same files give the same list. Prints one SMILES per line.
"""
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions

DATA = "/usr/share/RDKit"
SD_FILES = [
    f"{DATA}/Projects/DbCLI/testData/pubchem.200.sdf",
    f"{DATA}/Contrib/Fastcluster/testdata/cdk2.sdf",
    f"{DATA}/Data/NCI/first_200.props.sdf",
]
NCI = f"{DATA}/Data/NCI/first_5K.smi"

NEUTRAL_PARTNERS = [
    "Cl",  # hydrochloride
    "OC(=O)CC(O)(CC(=O)O)C(=O)O",  # citrate
    "OC(=O)/C=C\\C(=O)O",  # maleate (Z)
    "OC(=O)/C=C/C(=O)O",  # fumarate (E)
    "CS(=O)(=O)O",  # mesylate
    "Cc1ccc(cc1)S(=O)(=O)O",  # tosylate
    "OS(=O)(=O)c1ccccc1",  # besylate
    "OC(=O)[C@H](O)[C@@H](O)C(=O)O",  # L-tartrate
    "OC(=O)CCC(=O)O",  # succinate
    "OS(=O)(=O)O",  # sulfate
    "Br",  # hydrobromide
    "O",  # hydrate
    "OP(=O)(O)O",  # phosphate
    "CC(=O)O",  # acetate
]
ANION_PARTNERS = ["[Cl-]", "OC(=O)/C=C\\C(=O)[O-]", "OC(=O)/C=C/C(=O)[O-]", "CS(=O)(=O)[O-]"]
CATION_PARTNERS = ["[Na+]", "[K+]"]

BASIC_N = Chem.MolFromSmarts("[NX3;H0,H1,H2;+0;!$(N-[C,S,P]=[O,S,N]);!$(N-a);!$(N-[N,O]);!$(N-C=C);!$(N#*);!$(N=*)]")
ACID_O = Chem.MolFromSmarts("[OX2H1;$(O-C(=O)[#6])]")


def has_ez(mol):
    return any(b.GetStereo() in (Chem.BondStereo.STEREOE, Chem.BondStereo.STEREOZ) for b in mol.GetBonds())


def atom_count(mol):
    return Chem.AddHs(mol).GetNumAtoms()


def charged(mol, query, delta):
    """mol with the first atom matching query protonated (delta +1) or deprotonated (-1); None if none matches."""
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


def parents():
    seen = set()
    for path in SD_FILES:
        for mol in Chem.SDMolSupplier(path):
            if mol is None or len(Chem.GetMolFrags(mol)) != 1 or not has_ez(mol):
                continue
            smiles = Chem.MolToSmiles(mol)
            if smiles not in seen:
                seen.add(smiles)
                yield mol
    options = StereoEnumerationOptions(onlyUnassigned=True, unique=True, maxIsomers=2)
    for line in open(NCI):
        mol = Chem.MolFromSmiles(line.split()[0]) if line.strip() else None
        if mol is None or len(Chem.GetMolFrags(mol)) != 1 or not 12 <= mol.GetNumHeavyAtoms() <= 60:
            continue
        if any(a.GetFormalCharge() != 0 for a in mol.GetAtoms()) or mol.GetNumHeavyAtoms() != mol.GetNumAtoms():
            continue
        if not any(b.GetBondType() == Chem.BondType.DOUBLE and not b.IsInRing() for b in mol.GetBonds()):
            continue
        for isomer in EnumerateStereoisomers(mol, options=options):
            isomer = Chem.MolFromSmiles(Chem.MolToSmiles(isomer))
            if isomer is None or not has_ez(isomer):
                continue
            smiles = Chem.MolToSmiles(isomer)
            if smiles not in seen:
                seen.add(smiles)
                yield isomer


def main():
    RDLogger.DisableLog("rdApp.*")
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    out = []
    turn = 0
    for mol in parents():
        if len(out) >= count:
            break
        size = atom_count(mol)
        ion = None
        if turn % 2 == 1:
            ion, partners = charged(mol, BASIC_N, +1), ANION_PARTNERS
            if ion is None:
                ion, partners = charged(mol, ACID_O, -1), CATION_PARTNERS
        if ion is None:
            ion, partners = mol, NEUTRAL_PARTNERS
        turn += 1
        partner = partners[turn % len(partners)]
        if atom_count(Chem.MolFromSmiles(partner)) >= size:
            continue
        out.append(f"{Chem.MolToSmiles(ion)}.{partner}")
    sys.stdout.write("".join(s + "\n" for s in out))


if __name__ == "__main__":
    main()
