#!/usr/bin/python3
"""Native RDKit oracle for canvas_annotate's parent, standardisation and descriptor kinds
(test/tools/canvas_annotate-kinds.oracle.test.ts).

Run with the Debian RDKit Python:  /usr/bin/python3 scripts/oracle-annotate-kinds.py < smiles.txt

Each input line holds a SMILES (the first whitespace-separated field). Output line i answers input line i with one
JSON object:
  smiles        the input
  error         present when native RDKit cannot read it (its message: the test names the upstream change)
  values        the kinds' native values of the molecule (values() below)
  standardized  Chem.MolToSmiles(rdMolStandardize.Cleanup(mol)): what the standardize tool answers with strip_salts,
                keep_largest_fragment and neutralize false
  parent        the standardize tool's pipeline with its defaults, natively: Cleanup, SaltRemover (Data/Salts.txt,
                dontRemoveEverything=True), LargestFragmentChooser(preferOrganic=True), Uncharger, Cleanup
                (scripts/oracle-standardize.py's salt_stripped)
  parent_values values() of the parent read back from its SMILES (null when native RDKit cannot read it back)
  charge_parent rdMolStandardize.ChargeParent(mol), for the diagnostics
A step that raises answers null, with its message under "errors".

With the argument --values, each line answers only smiles, error and values: the standardisation steps (three
quarters of the time a molecule takes) are left out, for a caller that compares descriptors alone (the triage
test, test/e2e/canvas-triage.oracle.test.ts, on 4,600 parents).
"""
import json
import sys

from rdkit import Chem, RDLogger
from rdkit.Chem import Crippen, Descriptors, Lipinski
from rdkit.Chem import rdMolDescriptors as D
from rdkit.Chem.MolStandardize import rdMolStandardize
from rdkit.Chem.SaltRemover import SaltRemover

# druglikeness_filters' rule sets, thresholds as published, written again here: (property, min, max, exclusive).
# hbd_l / hba_l are Lipinski's NH+OH and N+O counts; Lipinski's rule of five allows one violation.
RULES = {
    "lipinski": [("mw", None, 500, False), ("logp", None, 5, False), ("hbd_l", None, 5, False), ("hba_l", None, 10, False)],
    "veber": [("rotb", None, 10, False), ("tpsa", None, 140, False)],
    "egan": [("logp", None, 5.88, False), ("tpsa", None, 131.6, False)],
    "ghose": [("mw", 160, 480, False), ("logp", -0.4, 5.6, False), ("mr", 40, 130, False), ("atoms", 20, 70, False)],
    "muegge": [
        ("mw", 200, 600, False),
        ("logp", -2, 5, False),
        ("tpsa", None, 150, False),
        ("rings", None, 7, False),
        ("carbons", 4, None, True),
        ("heteroatoms", 1, None, True),
        ("rotb", None, 15, False),
        ("hba", None, 10, False),
        ("hbd", None, 5, False),
    ],
    "ro3": [("mw", None, 300, True), ("logp", None, 3, False), ("hbd", None, 3, False), ("hba", None, 3, False), ("rotb", None, 3, False), ("tpsa", None, 60, False)],
}
ALLOWED = {"lipinski": 1}
HBA_8997 = Chem.MolFromSmarts("[n;H0;+0;!X2]")


def meets(v, lo, hi, ex):
    if lo is not None and not (v > lo if ex else v >= lo):
        return False
    if hi is not None and not (v < hi if ex else v <= hi):
        return False
    return True


def passes(v):
    return {k: sum(not meets(v[p], lo, hi, ex) for (p, lo, hi, ex) in crit) <= ALLOWED.get(k, 0) for k, crit in RULES.items()}


def centres(mol, legacy):
    found = Chem.FindMolChiralCenters(Chem.Mol(mol), includeUnassigned=True, useLegacyImplementation=legacy)
    return [len(found), sum(1 for _, label in found if label == "?")]


def centres_7434(mol):
    """[centres, of which unassigned] of the legacy perception that rdkit/rdkit#7434 (PR #7446, RDKit 2024.09) no longer
    flags: a three-coordinate N that is not sp3 or has a conjugated bond."""
    found = Chem.FindMolChiralCenters(Chem.Mol(mol), includeUnassigned=True, useLegacyImplementation=True)
    gone = []
    for idx, label in found:
        atom = mol.GetAtomWithIdx(idx)
        flat = atom.GetHybridization() != Chem.HybridizationType.SP3 or any(b.GetIsConjugated() for b in atom.GetBonds())
        if atom.GetAtomicNum() == 7 and atom.GetTotalDegree() == 3 and flat:
            gone.append(label)
    return [len(gone), sum(1 for label in gone if label == "?")]


def values(mol):
    v = {
        "mw": Descriptors.MolWt(mol),
        "logp": Crippen.MolLogP(mol),
        "mr": Crippen.MolMR(mol),
        "tpsa": D.CalcTPSA(mol),
        "rotb": D.CalcNumRotatableBonds(mol),
        "hbd": D.CalcNumHBD(mol),
        "hba": D.CalcNumHBA(mol),
        "hbd_l": Lipinski.NHOHCount(mol),
        "hba_l": Lipinski.NOCount(mol),
        "atoms": D.CalcNumAtoms(mol),
        "rings": D.CalcNumRings(mol),
        "carbons": sum(1 for a in mol.GetAtoms() if a.GetAtomicNum() == 6),
        "heteroatoms": D.CalcNumHeteroatoms(mol),
    }
    n8997 = len(mol.GetSubstructMatches(HBA_8997))
    fewer = dict(v, hba=v["hba"] - n8997)
    return {
        "fsp3": D.CalcFractionCSP3(mol),
        "ring_count": D.CalcNumRings(mol),
        "aromatic_ring_count": D.CalcNumAromaticRings(mol),
        "stereocentre_count": D.CalcNumAtomStereoCenters(mol),
        "unassigned_stereocentre_count": D.CalcNumUnspecifiedAtomStereoCenters(mol),
        # FindMolChiralCenters(includeUnassigned=True): [centres, of which unassigned], legacy and new implementation.
        "chiral_legacy": centres(mol, True),
        "chiral_new": centres(mol, False),
        "centres_7434": centres_7434(mol),
        "formal_charge": Chem.GetFormalCharge(mol),
        "pass": passes(v),
        # rdkit/rdkit#8997's rule: the verdicts with NumHBA lowered by the three-connected aromatic N.
        "hba_8997_matches": n8997,
        "pass_8997": passes(fewer),
        # calc_properties' values, rounded as it rounds them.
        "mw": round(v["mw"], 3),
        "logp": round(v["logp"], 3),
        "tpsa": round(v["tpsa"], 2),
        "canonical_smiles": Chem.MolToSmiles(mol),
    }


def refusal(smiles):
    """Why native RDKit refuses a SMILES: sanitisation's message (e.g. an explicit valence), or that it does not parse."""
    mol = Chem.MolFromSmiles(smiles, sanitize=False)
    if mol is None:
        return "RDKit could not parse the SMILES"
    try:
        Chem.SanitizeMol(mol)
    except Exception as exc:  # noqa: BLE001 - the message names the refusal
        return str(exc)
    return "RDKit could not read the SMILES"


def main():
    RDLogger.DisableLog("rdApp.*")
    remover = SaltRemover()
    chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
    uncharger = rdMolStandardize.Uncharger()

    def parent(mol):
        m = rdMolStandardize.Cleanup(mol)
        m = remover.StripMol(m, dontRemoveEverything=True)
        m = chooser.choose(m)
        m = uncharger.uncharge(m)
        return rdMolStandardize.Cleanup(m)

    values_only = "--values" in sys.argv[1:]
    steps = {"standardized": rdMolStandardize.Cleanup, "parent": parent, "charge_parent": rdMolStandardize.ChargeParent}
    for line in sys.stdin:
        smiles = line.split()[0] if line.strip() else ""
        out = {"smiles": smiles}
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            out["error"] = refusal(smiles)
            sys.stdout.write(json.dumps(out) + "\n")
            continue
        out["values"] = values(mol)
        if values_only:
            sys.stdout.write(json.dumps(out) + "\n")
            continue
        errors = {}
        for name, fn in steps.items():
            try:
                out[name] = Chem.MolToSmiles(fn(Chem.Mol(mol)))
            except Exception as exc:  # noqa: BLE001 - one failing step must not hide the others
                out[name] = None
                errors[name] = f"{type(exc).__name__}: {exc}"
        back = Chem.MolFromSmiles(out["parent"]) if out["parent"] is not None else None
        out["parent_values"] = values(back) if back is not None else None
        if errors:
            out["errors"] = errors
        sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
