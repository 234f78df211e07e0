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
(Debian's copyright file).

It also writes assets/standardize-rules.json: the rule tables of RDKit's MolStandardize (Release 2022.09:
Normalize defaults, AcidBaseCatalog defaults, Charge.cpp, Metal.cpp, Atom.cpp; MolVS documents the same
normalisations and acid/base pairs), which RDKit keeps in C++ source rather than in a data file, so they are
written out below; each SMARTS and reaction SMARTS is checked to compile in the installed RDKit. The outputs
are deterministic (fixed key order, no timestamps).
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
RULES_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "standardize-rules.json")
CITATION = ("RDKit: Open-source cheminformatics, https://www.rdkit.org (Data/Salts.txt, used by "
            "rdkit.Chem.SaltRemover; valence lists of RDKit's periodic table)")


# ---- MolStandardize rule tables (RDKit Release 2022.09) ----

# Normalisation transforms, applied in this order (name, reaction SMARTS).
NORMALIZATIONS = [
    ("Nitro to N+(O-)=O", "[N,P,As,Sb;X3:1](=[O,S,Se,Te:2])=[O,S,Se,Te:3]>>[*+1:1]([*-1:2])=[*:3]"),
    ("Sulfone to S(=O)(=O)", "[S+2:1]([O-:2])([O-:3])>>[S+0:1](=[O-0:2])(=[O-0:3])"),
    ("Pyridine oxide to n+O-", "[nH0+0:1]=[OH0+0:2]>>[n+:1][O-:2]"),
    ("Azide to N=N+=N-", "[*:1][N:2]=[N:3]#[N:4]>>[*:1][N:2]=[N+:3]=[N-:4]"),
    ("Diazo/azo to =N+=N-", "[*:1]=[N:2]#[N:3]>>[*:1]=[N+:2]=[N-:3]"),
    ("Sulfoxide to -S+(O-)-", "[!O:1][S+0;X3:2](=[O:3])[!O:4]>>[*:1][S+1:2]([O-:3])[*:4]"),
    ("Phosphate to P(O-)=O", "[O,S,Se,Te;-1:1][P+;D4:2][O,S,Se,Te;-1:3]>>[*+0:1]=[P+0;D5:2][*-1:3]"),
    ("C/S+N to C/S=N+", "[C,S&!$([S+]-[O-]);X3+1:1]([NX3:2])[NX3!H0:3]>>[*+0:1]([N:2])=[N+:3]"),
    ("P+N to P=N+", "[P;X4+1:1]([NX3:2])[NX3!H0:3]>>[*+0:1]([N:2])=[N+:3]"),
    ("Normalize hydrazine-diazonium", "[CX4:1][NX3H:2]-[NX3H:3][CX4:4][NX2+:5]#[NX1:6]>>[CX4:1][NH0:2]=[NH+:3][C:4][N+0:5]=[NH:6]"),
    ("Recombine 1,3-separated charges", "[N,P,As,Sb,O,S,Se,Te;-1:1]-[A+0:2]=[N,P,As,Sb,O,S,Se,Te;+1:3]>>[*-0:1]=[*:2]-[*+0:3]"),
    ("Recombine 1,3-separated charges", "[n,o,p,s;-1:1]:[a:2]=[N,O,P,S;+1:3]>>[*-0:1]:[*:2]-[*+0:3]"),
    ("Recombine 1,3-separated charges", "[N,O,P,S;-1:1]-[a:2]:[n,o,p,s;+1:3]>>[*-0:1]=[*:2]:[*+0:3]"),
    ("Recombine 1,5-separated charges", "[N,P,As,Sb,O,S,Se,Te;-1:1]-[A+0:2]=[A:3]-[A:4]=[N,P,As,Sb,O,S,Se,Te;+1:5]>>[*-0:1]=[*:2]-[*:3]=[*:4]-[*+0:5]"),
    ("Recombine 1,5-separated charges", "[n,o,p,s;-1:1]:[a:2]:[a:3]:[c:4]=[N,O,P,S;+1:5]>>[*-0:1]:[*:2]:[*:3]:[c:4]-[*+0:5]"),
    ("Recombine 1,5-separated charges", "[N,O,P,S;-1:1]-[c:2]:[a:3]:[a:4]:[n,o,p,s;+1:5]>>[*-0:1]=[c:2]:[*:3]:[*:4]:[*+0:5]"),
    ("Normalize 1,3 conjugated cation", "[N,O;+0!H0:1]-[A:2]=[N!$(*[O-]),O;+1H0:3]>>[*+1:1]=[*:2]-[*+0:3]"),
    ("Normalize 1,3 conjugated cation", "[n;+0!H0:1]:[c:2]=[N!$(*[O-]),O;+1H0:3]>>[*+1:1]:[*:2]-[*+0:3]"),
    ("Normalize 1,5 conjugated cation", "[N,O;+0!H0:1]-[A:2]=[A:3]-[A:4]=[N!$(*[O-]),O;+1H0:5]>>[*+1:1]=[*:2]-[*:3]=[*:4]-[*+0:5]"),
    ("Normalize 1,5 conjugated cation", "[n;+0!H0:1]:[a:2]:[a:3]:[c:4]=[N!$(*[O-]),O;+1H0:5]>>[n+1:1]:[*:2]:[*:3]:[*:4]-[*+0:5]"),
    ("Charge normalization", "[F,Cl,Br,I,At;-1:1]=[O:2]>>[*-0:1][O-:2]"),
    ("Charge recombination", "[N,P,As,Sb;-1:1]=[C+;v3:2]>>[*+0:1]#[C+0:2]"),
]

# Acid/base pairs, strongest acid first (name, acid SMARTS, conjugate base SMARTS).
ACID_BASE_PAIRS = [
    ("-OSO3H", "OS(=O)(=O)[OH]", "OS(=O)(=O)[O-]"),
    ("-SO3H", "[!O]S(=O)(=O)[OH]", "[!O]S(=O)(=O)[O-]"),
    ("-OSO2H", "O[SD3](=O)[OH]", "O[SD3](=O)[O-]"),
    ("-SO2H", "[!O][SD3](=O)[OH]", "[!O][SD3](=O)[O-]"),
    ("-OPO3H2", "OP(=O)([OH])[OH]", "OP(=O)([OH])[O-]"),
    ("-PO3H2", "[!O]P(=O)([OH])[OH]", "[!O]P(=O)([OH])[O-]"),
    ("-CO2H", "C(=O)[OH]", "C(=O)[O-]"),
    ("thiophenol", "c[SH]", "c[S-]"),
    ("(-OPO3H)-", "OP(=O)([O-])[OH]", "OP(=O)([O-])[O-]"),
    ("(-PO3H)-", "[!O]P(=O)([O-])[OH]", "[!O]P(=O)([O-])[O-]"),
    ("phthalimide", "O=C2c1ccccc1C(=O)[NH]2", "O=C2c1ccccc1C(=O)[N-]2"),
    ("CO3H (peracetyl)", "C(=O)O[OH]", "C(=O)O[O-]"),
    ("alpha-carbon-hydrogen-nitro group", "O=N(O)[CH]", "O=N(O)[C-]"),
    ("-SO2NH2", "S(=O)(=O)[NH2]", "S(=O)(=O)[NH-]"),
    ("-OBO2H2", "OB([OH])[OH]", "OB([OH])[O-]"),
    ("-BO2H2", "[!O]B([OH])[OH]", "[!O]B([OH])[O-]"),
    ("phenol", "c[OH]", "c[O-]"),
    ("SH (aliphatic)", "C[SH]", "C[S-]"),
    ("(-OBO2H)-", "OB([O-])[OH]", "OB([O-])[O-]"),
    ("(-BO2H)-", "[!O]B([O-])[OH]", "[!O]B([O-])[O-]"),
    ("cyclopentadiene", "C1=CC=C[CH2]1", "c1ccc[cH-]1"),
    ("-CONH2", "C(=O)[NH2]", "C(=O)[NH-]"),
    ("imidazole", "c1cnc[nH]1", "c1cnc[n-]1"),
    ("-OH (aliphatic alcohol)", "[CX4][OH]", "[CX4][O-]"),
    ("alpha-carbon-hydrogen-keto group", "O=C([!O])[C!H0+0]", "O=C([!O])[C-]"),
    ("alpha-carbon-hydrogen-acetyl ester group", "OC(=O)[C!H0+0]", "OC(=O)[C-]"),
    ("sp carbon hydrogen", "C#[CH]", "C#[C-]"),
    ("alpha-carbon-hydrogen-sulfone group", "CS(=O)(=O)[C!H0+0]", "CS(=O)(=O)[C-]"),
    ("alpha-carbon-hydrogen-sulfoxide group", "C[SD3](=O)[C!H0+0]", "C[SD3](=O)[C-]"),
    ("-NH2", "[CX4][NH2]", "[CX4][NH-]"),
    ("benzyl hydrogen", "c[CX4H2]", "c[CX3H-]"),
    ("sp2-carbon hydrogen", "[CX3]=[CX3!H0+0]", "[CX3]=[CX2-]"),
    ("sp3-carbon hydrogen", "[CX4!H0+0]", "[CX3-]"),
]

# Reionizer charge corrections: free (unbonded) neutral metal or chlorine atoms get their ionic charge.
CHARGE_CORRECTIONS = [([3, 11, 19], 1), ([12, 20], 2), ([17], -1)]

# Uncharger queries.
UNCHARGER = {
    "pos_h": "[+,+2,+3,+4;!h0;!$(*~[-]),$(*(~[-])~[-])]",
    "pos_noh": "[+,+2,+3,+4;h0;!$(*~[-]),$(*(~[-])~[-])]",
    "neg": "[-!$(*~[+,+2,+3,+4])]",
    "neg_acid": "[$([O,S;-][C,S;+0]=[O,S]),$([O,S;-][N,P;+](=[O,S])[O,S;-]),$([O-][Cl,Br,I;+,+2,+3][O-]),$([n-]1nnnc1),$([n-]1ncnn1)]",
}

# MetalDisconnector: metals disconnected from N, O, F (metal_nof), from other non-metals (metal_non), and the
# aliphatic non-metals of that second query ([B,C,Si,P,As,Sb,S,Se,Te,Cl,Br,I,At]).
METAL_DISCONNECTION = {
    "metals_nof": "Li,Na,K,Rb,Cs,Fr,Be,Mg,Ca,Sr,Ba,Ra,Sc,Ti,V,Cr,Mn,Fe,Co,Ni,Cu,Zn,Al,Ga,Y,Zr,Nb,Mo,Tc,Ru,Rh,Pd,Ag,Cd,In,Sn,Hf,Ta,W,Re,Os,Ir,Pt,Au,Hg,Tl,Pb,Bi",
    "metals_non": "Al,Sc,Ti,V,Cr,Mn,Fe,Co,Ni,Cu,Zn,Y,Zr,Nb,Mo,Tc,Ru,Rh,Pd,Ag,Cd,Hf,Ta,W,Re,Os,Ir,Pt,Au",
    "nof": "N,O,F",
    "non_metals_non": "B,C,Si,P,As,Sb,S,Se,Te,Cl,Br,I,At",
}

# RDKit's isEarlyAtom (Atom.cpp, 2022.09): elements left of carbon, whose charge counts the other way for hydrogens.
EARLY_ATOMS = [
    3, 4, 5, 11, 12, 13, 19, 20, 21, 22, 30, 31, 32, 37, 38, 39, 40, 41, 48, 49, 50, 51, 55, 56, 57, 58, 59, 60, 61, 72, 73, 80, 81, 82, 83, 87, 88, 89,
    90, 91, 92, 93, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118,
]

# Names for the unnamed entries of Salts.txt (our labels; the patterns are RDKit's).
SALT_LABELS = {
    "[Cl,Br,I]": "halide",
    "[Li,Na,K,Ca,Mg]": "alkali or alkaline-earth metal ion",
    "[O,N]": "water, hydroxide or ammonia",
    "[N](=O)(O)O": "nitrate / nitric acid",
    "[P](=O)(O)(O)O": "phosphate / phosphoric acid",
    "[P](F)(F)(F)(F)(F)F": "hexafluorophosphate",
    "[S](=O)(=O)(O)O": "sulfate / sulfuric acid",
    "[CH3][S](=O)(=O)(O)": "mesylate / methanesulfonic acid",
}


def rules():
    """The rule tables as written to standardize-rules.json, each pattern checked to compile."""
    from rdkit.Chem import AllChem

    def smarts(text):
        if Chem.MolFromSmarts(text) is None:
            sys.exit(f"build-standardize-asset: SMARTS does not compile: {text}")
        return text

    for _, rxn in NORMALIZATIONS:
        if AllChem.ReactionFromSmarts(rxn) is None:
            sys.exit(f"build-standardize-asset: reaction does not compile: {rxn}")
    table = Chem.GetPeriodicTable()
    numbers = lambda symbols: [table.GetAtomicNumber(s) for s in symbols.split(",")]
    return {
        "source": {
            "description": "RDKit MolStandardize rule tables (Release 2022.09) re-implemented by the standardize tool",
            "rdkit_sources": "Code/GraphMol/MolStandardize: Normalize.cpp, AcidBaseCatalog, Charge.cpp, Metal.cpp; Code/GraphMol/Atom.cpp",
            "citation": "RDKit rdMolStandardize (S. Leung, G. Landrum), a C++ port of MolVS (M. Swain, https://molvs.readthedocs.io)",
            "generator": "scripts/build-standardize-asset.py",
        },
        "license": {"spdx": "BSD-3-Clause", "rdkit_notice": rdkit_notice()},
        "normalizations": [{"name": n, "reaction_smarts": r} for n, r in NORMALIZATIONS],
        "acid_base_pairs": [{"name": n, "acid": smarts(a), "base": smarts(b)} for n, a, b in ACID_BASE_PAIRS],
        "charge_corrections": [{"elements": e, "charge": c} for e, c in CHARGE_CORRECTIONS],
        "uncharger": {k: smarts(v) for k, v in UNCHARGER.items()},
        "metal_disconnection": {k: numbers(v) for k, v in METAL_DISCONNECTION.items()},
        "early_atoms": EARLY_ATOMS,
        "salt_labels": SALT_LABELS,
    }


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
    tables = rules()
    with open(RULES_OUT, "w", encoding="utf-8") as f:
        json.dump(tables, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.relpath(RULES_OUT)}: {len(tables['normalizations'])} normalisations, {len(tables['acid_base_pairs'])} acid/base pairs")


if __name__ == "__main__":
    main()
