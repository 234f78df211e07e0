#!/usr/bin/python3
"""Native RDKit side of bench/3d.ts: times ETKDGv3 + MMFF94 and scores our conformers' geometry.

Run with the Debian RDKit Python: /usr/bin/python3 scripts/bench-3d.py (bench/3d.ts starts it once and
talks to it line by line, so interpreter start and imports are not timed). Each input line is a JSON object:
  {"op": "native", "smiles": ...}
      -> {"ms": wall time of AddHs + EmbedMolecule(ETKDGv3, randomSeed 42) + MMFFOptimizeMolecule(MMFF94,
          maxIters 2000), "ok": whether the embedding succeeded, "converged": MMFF's return code was 0}
  {"op": "gap", "smiles": ..., "molblock": our V2000 molfile with hydrogens}
      -> {"ours": native MMFF94 energy after native MMFF94 minimisation (maxIts 20000) started from our
          geometry (scripts/oracle-3d.py's method), "best10": lowest native MMFF94 energy of 10 ETKDGv3
          conformers (randomSeed 42), each minimised with MMFF94 (maxIters 2000), "gap": ours - best10}
  {"op": "nci", "n": N, "every": K}
      -> {"molecules": [[id, smiles], ...]}: every K-th line of RDKit's NCI first_5K.smi, kept when it is one
          fragment of 15-35 heavy atoms of MMFF94-typed elements (C, H, N, O, S, F, Cl, Br, I), first N kept
Energies in kcal/mol. A failing step answers {"error": "..."}.
"""
import json
import sys
import time

from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem

BEST10 = {}


def native(smiles):
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return {"error": "RDKit could not parse the SMILES"}
    start = time.perf_counter()
    molh = Chem.AddHs(mol)
    params = AllChem.ETKDGv3()
    params.randomSeed = 42
    cid = AllChem.EmbedMolecule(molh, params)
    code = AllChem.MMFFOptimizeMolecule(molh, mmffVariant="MMFF94", maxIters=2000) if cid == 0 else None
    ms = (time.perf_counter() - start) * 1000
    return {"ms": ms, "ok": cid == 0, "converged": code == 0}


def best10(smiles):
    if smiles in BEST10:
        return BEST10[smiles]
    molh = Chem.AddHs(Chem.MolFromSmiles(smiles))
    params = AllChem.ETKDGv3()
    params.randomSeed = 42
    cids = list(AllChem.EmbedMultipleConfs(molh, 10, params))
    if not cids:
        raise ValueError("ETKDG embedded no conformer")
    results = AllChem.MMFFOptimizeMoleculeConfs(molh, mmffVariant="MMFF94", maxIters=2000)
    best = min(e for code, e in results)
    BEST10[smiles] = best
    return best


def gap(smiles, molblock):
    mol3d = Chem.MolFromMolBlock(molblock, removeHs=False)
    if mol3d is None:
        return {"error": "RDKit could not read the molblock"}
    props = AllChem.MMFFGetMoleculeProperties(mol3d, mmffVariant="MMFF94")
    if props is None:
        return {"error": "no MMFF94 parameters"}
    ff = AllChem.MMFFGetMoleculeForceField(mol3d, props)
    ff.Minimize(maxIts=20000)
    ours = ff.CalcEnergy()
    ref = best10(smiles)
    return {"ours": ours, "best10": ref, "gap": ours - ref}


NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi"
ELEMENTS = {1, 6, 7, 8, 9, 16, 17, 35, 53}


def nci(n, every):
    out = []
    with open(NCI) as f:
        for i, line in enumerate(f):
            if len(out) >= n:
                break
            if i % every != 0 or not line.strip():
                continue
            smiles, ident = line.split()[0], line.split()[-1]
            mol = Chem.MolFromSmiles(smiles)
            if mol is None or len(Chem.GetMolFrags(mol)) != 1 or not 15 <= mol.GetNumAtoms() <= 35:
                continue
            if any(a.GetAtomicNum() not in ELEMENTS for a in mol.GetAtoms()):
                continue
            if AllChem.MMFFGetMoleculeProperties(Chem.AddHs(mol)) is None:
                continue
            out.append(["NCI " + ident, Chem.MolToSmiles(mol)])
    return {"molecules": out}


def main():
    RDLogger.DisableLog("rdApp.*")
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            op = req["op"]
            out = native(req["smiles"]) if op == "native" else nci(req["n"], req["every"]) if op == "nci" else gap(req["smiles"], req["molblock"])
        except Exception as exc:  # one failing molecule must not stop the bench
            out = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
