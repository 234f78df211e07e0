#!/usr/bin/python3
"""Native RDKit side of bench/triage.ts: the molecule set, and the triage done by native RDKit in one process.

Run with the Debian RDKit Python (/usr/bin/python3):

  /usr/bin/python3 scripts/bench-triage.py library N OUT.smi
      writes N distinct molecules (distinct canonical SMILES) as a .smi file (SMILES, then a name) and prints one
      JSON line {"written", "bases", "sources": {file: molecules read}, "ms"}. The set: every molecule that parses
      from RDKit's data files (SOURCES, in that order; a repeated canonical SMILES kept once), as written there;
      then, round after round until N, one light variation of each of them in turn: one hydrogen on a carbon
      replaced by C, F, Cl, O or N (the k-th variation of a molecule is its k-th (substituent, hydrogen) pair in
      atom order, skipped when its canonical SMILES is already in the set), written in the molecule's own atom
      order (not canonical), so the server has real canonicalisation to do. Deterministic: no random numbers.

  /usr/bin/python3 scripts/bench-triage.py
      answers JSON requests line by line on stdin (bench/triage.ts starts it once, so interpreter start and
      imports are not timed; the FilterCatalogs are built at start, as the server's workers build theirs before
      the timed calls). Each answer has "ms" (wall time of the work, perf_counter) and "peak_kib" (the process's
      VmHWM after the work, reset before it through /proc/self/clear_refs; "peak_reset": false where that is
      not possible, and the peak is then the process's since start):
  {"op": "import", "path": P}
      the same work as canvas_import of a .smi: read the file, parse each SMILES (MolFromSmiles), write its
      canonical SMILES; kept in memory as the table (-> "parsed", "failed")
  {"op": "import_standardized", "path": P, "dedupe": true}
      the same, each molecule standardised as src/domain/chem/standardize.ts does it (rdMolStandardize.Cleanup,
      SaltRemover with RDKit's Salts.txt and dontRemoveEverything, LargestFragmentChooser(preferOrganic=True),
      Uncharger, Cleanup again), then canonical SMILES; with dedupe, one row per parent canonical SMILES (the first)
      (-> "parsed", "failed", "rows")
  {"op": "annotate"}
      over the imported table's canonical SMILES: parse each, then mw (Descriptors.MolWt), logp (Crippen.MolLogP),
      tpsa, hbd, hba (rdMolDescriptors CalcTPSA, CalcNumHBD, CalcNumHBA), rotatable_bonds (CalcNumRotatableBonds,
      strict), qed (QED.qed), PAINS and Brenk (FilterCatalog: count and names of the matching entries),
      murcko_scaffold (MurckoScaffold.GetScaffoldForMol, then MolToSmiles), as canvas_annotate's columns
      (-> "rows", "invalid")
  {"op": "cluster", "n": 10000, "threshold": 0.4}
      the first n rows of the imported table: parse, Morgan radius 2, 2048 bits (GetMorganFingerprintAsBitVect),
      the lower-triangle distance list 1 - BulkTanimotoSimilarity as RDKit's documentation builds it, then
      Butina.ClusterData(isDistData=True) (-> "clusters", "clustered")
  {"op": "load_rows", "path": P}
      (not a timed step) reads a CSV the server exported from the canvas table into memory, as strings: the rows the
      export steps write, the same columns and values the canvas holds (-> "rows", "columns")
  {"op": "export_sdf", "out": P, "smiles_column": "smiles"}
      the loaded rows as canvas_export writes them: per row MolFromSmiles, the title (the first of TITLE_COLUMNS the
      rows have, as canvas_export picks it) as _Name, every non-empty cell as a property (SetProp; SetProps on the
      writer names every column, in order, so _row is written too), then Chem.SDWriter.write, which computes 2D coordinates for a molecule without a conformer (a row whose SMILES
      does not parse is written as an empty molecule with its properties, as ours is) (-> "rows", "failed", "bytes")
  {"op": "export_csv", "out": P}
      the loaded rows written with csv.writer (-> "rows", "bytes")
  {"op": "check_sdf", "path": P, "smiles_column": "smiles", "every": 100}
      (not a timed step) reads an exported SDF back with SDMolSupplier against the loaded rows: the records ("$$$$"
      lines and records read), the molblocks native RDKit cannot read, and for every `every`-th record its title,
      its data items (name and text, against the row's non-empty cells) and its canonical SMILES (against the row's
      SMILES, both canonicalised here); an item with an empty text where the CSV row has an empty cell is counted,
      not compared (the CSV writes NULL and '' alike) (-> "records", "terminators", "unreadable", "sampled",
      "mismatches", "empty_items", "examples")
A failing request answers {"error": "..."}.
"""
import csv
import json
import os
import sys
import time

from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem, Crippen, Descriptors, QED
from rdkit.Chem import rdMolDescriptors as R
from rdkit.Chem.FilterCatalog import FilterCatalog, FilterCatalogParams
from rdkit.Chem.MolStandardize import rdMolStandardize
from rdkit.Chem.SaltRemover import SaltRemover
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.ML.Cluster import Butina

SHARE = "/usr/share/RDKit"
# (label, path, kind): smi = SMILES then a name; csv = "SMILES","name" rows; sdf = records.
SOURCES = [
    ("NCI first_5K.smi", f"{SHARE}/Data/NCI/first_5K.smi", "smi"),
    ("PAINS test set wehi_mols.csv", f"{SHARE}/Data/Pains/test_data/wehi_mols.csv", "csv"),
    ("FreeWilson CHEMBL2321810.smi", f"{SHARE}/Contrib/FreeWilson/data/CHEMBL2321810.smi", "smi"),
    ("fraggle ChEMBL_11265_actives.smi", f"{SHARE}/Contrib/fraggle/data/ChEMBL_11265_actives.smi", "smi"),
    ("PBF egfr.sdf", f"{SHARE}/Contrib/PBF/testData/egfr.sdf", "sdf"),
    ("DbCLI pubchem.200.sdf", f"{SHARE}/Projects/DbCLI/testData/pubchem.200.sdf", "sdf"),
    ("DbCLI bzr.sdf", f"{SHARE}/Projects/DbCLI/testData/bzr.sdf", "sdf"),
    ("Fastcluster cdk2.sdf", f"{SHARE}/Contrib/Fastcluster/testdata/cdk2.sdf", "sdf"),
]
SUBSTITUENTS = [6, 9, 17, 8, 7]  # C, F, Cl, O, N in place of one hydrogen on a carbon
# The column a record's title comes from in canvas_export (src/tools/canvas_export.ts): the first the rows have.
TITLE_COLUMNS = ["title", "ID", "id", "name", "molecule_chembl_id", "chembl_id"]


def read_source(path, kind):
    """(name, SMILES as written, mol) of each record that parses."""
    if kind == "sdf":
        for i, mol in enumerate(Chem.SDMolSupplier(path)):
            if mol is not None:
                name = mol.GetProp("_Name").strip() if mol.HasProp("_Name") else ""
                yield (name or f"record{i + 1}", Chem.MolToSmiles(mol), mol)
        return
    with open(path, newline="") as f:
        rows = csv.reader(f) if kind == "csv" else (line.split() for line in f)
        for i, row in enumerate(rows):
            if not row or not row[0].strip():
                continue
            smiles = row[0].strip()
            mol = Chem.MolFromSmiles(smiles)
            if mol is not None:
                yield (row[1].strip() if len(row) > 1 else f"line{i + 1}", smiles, mol)


def variations(mol):
    """The molecule's light variations, in order: for each substituent, each hydrogen on a carbon replaced by it."""
    with_h = Chem.AddHs(mol)
    sites = [a.GetIdx() for a in with_h.GetAtoms() if a.GetAtomicNum() == 1 and a.GetNeighbors()[0].GetAtomicNum() == 6]
    for element in SUBSTITUENTS:
        for h in sites:
            edited = Chem.RWMol(with_h)
            edited.GetAtomWithIdx(h).SetAtomicNum(element)
            try:
                out = Chem.RemoveHs(edited.GetMol())
            except Exception:  # a valence the edit broke: not a variation
                continue
            yield out


def library(n, out_path):
    start = time.perf_counter()
    seen = set()
    bases = []  # (label, mol, variation iterator)
    counts = {}
    lines = []
    for label, path, kind in SOURCES:
        counts[label] = 0
        for name, smiles, mol in read_source(path, kind):
            counts[label] += 1
            canonical = Chem.MolToSmiles(mol)
            if canonical in seen or len(lines) >= n:
                continue
            seen.add(canonical)
            tag = f"{label.split()[0]}:{name}".replace(" ", "_")
            lines.append(f"{smiles} {tag}")
            bases.append([tag, mol, None, 0])
    base_count = len(lines)
    round_ = 0
    while len(lines) < n and bases:
        round_ += 1
        alive = []
        for base in bases:
            if len(lines) >= n:
                break
            if base[2] is None:
                base[2] = variations(base[1])
            for variant in base[2]:
                canonical = Chem.MolToSmiles(variant)
                if canonical in seen:
                    continue
                seen.add(canonical)
                base[3] += 1
                lines.append(f"{Chem.MolToSmiles(variant, canonical=False)} {base[0]}:v{base[3]}")
                alive.append(base)
                break
        bases = alive
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return {"written": len(lines), "bases": base_count, "sources": counts, "rounds": round_, "ms": (time.perf_counter() - start) * 1000}


def catalog(which):
    params = FilterCatalogParams()
    params.AddCatalog(which)
    return FilterCatalog(params)


class Native:
    def __init__(self):
        self.pains = catalog(FilterCatalogParams.FilterCatalogs.PAINS)
        self.brenk = catalog(FilterCatalogParams.FilterCatalogs.BRENK)
        self.remover = SaltRemover()
        self.chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
        self.uncharger = rdMolStandardize.Uncharger()
        self.table = []  # canonical SMILES (None where the input does not parse), as canvas_import's smiles column
        self.export_header = []  # the exported table's columns and rows, as text (load_rows)
        self.export_rows = []

    @staticmethod
    def records(path):
        with open(path) as f:
            for line in f:
                parts = line.split(None, 1)
                if parts:
                    yield parts[0], parts[1].strip() if len(parts) > 1 else None

    def import_(self, req):
        table = []
        for smiles, name in self.records(req["path"]):
            mol = Chem.MolFromSmiles(smiles)
            table.append((Chem.MolToSmiles(mol) if mol is not None else None, smiles, name))
        self.table = [row[0] for row in table]
        parsed = sum(1 for s in self.table if s is not None)
        return {"parsed": parsed, "failed": len(self.table) - parsed}

    def parent(self, mol):
        m = rdMolStandardize.Cleanup(mol)
        m = self.remover.StripMol(m, dontRemoveEverything=True)
        m = self.chooser.choose(m)
        m = self.uncharger.uncharge(m)
        return rdMolStandardize.Cleanup(m)

    def import_standardized(self, req):
        rows = []
        seen = set()
        parsed = failed = 0
        for smiles, name in self.records(req["path"]):
            mol = Chem.MolFromSmiles(smiles)
            parent = None
            if mol is not None:
                try:
                    parent = Chem.MolToSmiles(self.parent(mol))
                except Exception:
                    parent = None
            if parent is None:
                failed += 1
            else:
                parsed += 1
                if req.get("dedupe"):
                    if parent in seen:
                        continue
                    seen.add(parent)
            rows.append((parent, smiles, name))
        return {"parsed": parsed, "failed": failed, "rows": len(rows)}

    def annotate(self, req):
        out = []
        invalid = 0
        for smiles in self.table:
            mol = Chem.MolFromSmiles(smiles) if smiles is not None else None
            if mol is None:
                invalid += 1
                out.append(None)
                continue
            pains = sorted(set(e.GetDescription() for e in self.pains.GetMatches(mol)))
            brenk = sorted(set(e.GetDescription() for e in self.brenk.GetMatches(mol)))
            out.append(
                (
                    Descriptors.MolWt(mol),
                    Crippen.MolLogP(mol),
                    R.CalcTPSA(mol),
                    R.CalcNumHBD(mol),
                    R.CalcNumHBA(mol),
                    R.CalcNumRotatableBonds(mol, True),
                    QED.qed(mol),
                    len(pains),
                    pains,
                    len(brenk),
                    brenk,
                    Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(mol)),
                )
            )
        return {"rows": len(out), "invalid": invalid}

    def cluster(self, req):
        smiles = [s for s in self.table[: req["n"]] if s is not None]
        fps = [AllChem.GetMorganFingerprintAsBitVect(Chem.MolFromSmiles(s), 2, nBits=2048) for s in smiles]
        dists = []
        for i in range(1, len(fps)):
            sims = DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])
            dists.extend([1 - x for x in sims])
        clusters = Butina.ClusterData(dists, len(fps), req["threshold"], isDistData=True)
        return {"clusters": len(clusters), "clustered": len(fps)}

    def load_rows(self, req):
        with open(req["path"], newline="") as f:
            reader = csv.reader(f)
            self.export_header = next(reader)
            self.export_rows = list(reader)
        return {"rows": len(self.export_rows), "columns": len(self.export_header)}

    def title_at(self):
        return next((self.export_header.index(c) for c in TITLE_COLUMNS if c in self.export_header), None)

    def export_sdf(self, req):
        header = self.export_header
        smiles_at = header.index(req["smiles_column"])
        title_at = self.title_at()
        failed = 0
        writer = Chem.SDWriter(req["out"])
        writer.SetProps(header)  # every column in order, _row too (a name SDWriter otherwise skips as private)
        for row in self.export_rows:
            mol = Chem.MolFromSmiles(row[smiles_at]) if row[smiles_at] else None
            if mol is None:
                failed += 1
                mol = Chem.Mol()
            if title_at is not None:
                mol.SetProp("_Name", row[title_at])
            for name, value in zip(header, row):
                if value != "":  # an empty cell: NULL or '' (the CSV writes both alike), not written
                    mol.SetProp(name, value)
            writer.write(mol)
        writer.close()
        return {"rows": len(self.export_rows), "failed": failed, "bytes": os.path.getsize(req["out"])}

    def export_csv(self, req):
        with open(req["out"], "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(self.export_header)
            writer.writerows(self.export_rows)
        return {"rows": len(self.export_rows), "bytes": os.path.getsize(req["out"])}

    def check_sdf(self, req):
        header, rows = self.export_header, self.export_rows
        smiles_at = header.index(req["smiles_column"])
        title_at = self.title_at()
        every = req.get("every", 100)
        with open(req["path"]) as f:
            terminators = sum(1 for line in f if line.startswith("$$$$"))
        records = unreadable = sampled = mismatches = empty_items = 0
        examples = []
        for i, mol in enumerate(Chem.SDMolSupplier(req["path"])):
            records += 1
            if mol is None:
                unreadable += 1
                if len(examples) < 5:
                    examples.append({"record": i + 1, "unreadable": True})
                continue
            if i % every != 0 or i >= len(rows):
                continue
            sampled += 1
            row = rows[i]
            wrong = []
            expected = {name: value for name, value in zip(header, row) if value != ""}
            got = {name: mol.GetProp(name) for name in mol.GetPropNames(includePrivate=True) if name != "_Name" and not name.startswith("_MolFile")}
            # An empty text (murcko_scaffold of an acyclic molecule) is an empty cell in the CSV, as NULL is: not compared.
            empty_items += sum(1 for name, value in got.items() if value == "" and name not in expected)
            got = {name: value for name, value in got.items() if value != "" or name in expected}
            if got != expected:
                wrong.append({"items": sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))})
            title = row[title_at] if title_at is not None else ""
            if mol.GetProp("_Name") != title:
                wrong.append({"title": [mol.GetProp("_Name"), title]})
            if row[smiles_at]:
                want = Chem.MolFromSmiles(row[smiles_at])
                if want is not None and Chem.MolToSmiles(want) != Chem.MolToSmiles(mol):
                    wrong.append({"smiles": [Chem.MolToSmiles(mol), Chem.MolToSmiles(want)]})
            if wrong:
                mismatches += 1
                if len(examples) < 5:
                    examples.append({"record": i + 1, "wrong": wrong})
        return {
            "records": records,
            "terminators": terminators,
            "rows": len(rows),
            "unreadable": unreadable,
            "sampled": sampled,
            "mismatches": mismatches,
            "empty_items": empty_items,
            "examples": examples,
        }


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def serve():
    native = Native()
    ops = {
        "import": native.import_,
        "import_standardized": native.import_standardized,
        "annotate": native.annotate,
        "cluster": native.cluster,
        "load_rows": native.load_rows,
        "export_sdf": native.export_sdf,
        "export_csv": native.export_csv,
        "check_sdf": native.check_sdf,
    }
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            reset = reset_peak()
            start = time.perf_counter()
            out = ops[req["op"]](req)
            out["ms"] = (time.perf_counter() - start) * 1000
            out["peak_kib"] = peak_kib()
            out["peak_reset"] = reset
        except Exception as exc:  # answered, so the bench can say what failed
            out = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    RDLogger.DisableLog("rdApp.*")
    if len(sys.argv) == 4 and sys.argv[1] == "library":
        sys.stdout.write(json.dumps(library(int(sys.argv[2]), sys.argv[3])) + "\n")
    else:
        serve()
