/**
 * The synthetic ChEMBL dump the offline benchmarks read: the fixture world's dump (test/fixtures/chembl/dump.ts)
 * plus one target with `rows` activities over MOLECULES molecules and ASSAYS assays, every activity with a
 * pchembl_value (the ranked view holds them all).
 */
import { buildDump, loadDriver } from "../../test/fixtures/chembl/dump.js";

export const BENCH_TARGET = "CHEMBL4999999";
export const BENCH_MOLECULES = 5_000;
export const BENCH_ASSAYS = 1_000;
/** The ChEMBL ID of the bench's i-th molecule (0 <= i < BENCH_MOLECULES). */
export const benchMoleculeId = (i: number) => `CHEMBL${7_000_000 + i}`;

/** Writes the dump to `path` (a new file); false when the optional SQLite driver is not installed. */
export function buildBenchDump(path: string, rows: number): boolean {
  const Driver = loadDriver();
  if (!Driver) return false;
  buildDump(path, Driver);
  const db = new Driver(path);
  db.exec("BEGIN");
  db.prepare("INSERT INTO target_dictionary (tid, target_type, pref_name, tax_id, organism, chembl_id, species_group_flag) VALUES (?, ?, ?, ?, ?, ?, 0)").run(
    9_000,
    "SINGLE PROTEIN",
    "Bench kinase",
    9606,
    "Homo sapiens",
    BENCH_TARGET,
  );
  const mol = db.prepare(
    "INSERT INTO molecule_dictionary (molregno, chembl_id, pref_name, max_phase, therapeutic_flag, dosed_ingredient, structure_type, molecule_type, oral, parenteral, topical, black_box_warning, first_in_class, chirality, prodrug, inorganic_flag, withdrawn_flag, chemical_probe) VALUES (?, ?, NULL, NULL, 0, 0, 'MOL', 'Small molecule', 0, 0, 0, 0, 0, 2, 0, 0, 0, 0)",
  );
  const hier = db.prepare("INSERT INTO molecule_hierarchy (molregno, parent_molregno, active_molregno) VALUES (?, ?, ?)");
  const struct = db.prepare("INSERT INTO compound_structures (molregno, standard_inchi_key, canonical_smiles) VALUES (?, ?, ?)");
  const props = db.prepare("INSERT INTO compound_properties (molregno, mw_freebase, alogp, hba, hbd, psa, full_molformula) VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (let i = 0; i < BENCH_MOLECULES; i++) {
    const m = 100_000 + i;
    mol.run(m, benchMoleculeId(i));
    hier.run(m, m, m);
    struct.run(m, `BENCH${String(i).padStart(9, "0")}-UHFFFAOYSA-N`, `CC(=O)Nc1ccc(cc1)C(=O)N${"C".repeat(1 + (i % 9))}O`);
    props.run(m, 200 + (i % 300), 1.5, 3, 1, 60.2, "C10H12N2O3");
  }
  const assay = db.prepare(
    "INSERT INTO assays (assay_id, doc_id, description, assay_type, tid, src_id, chembl_id, bao_format, aidx) VALUES (?, 1, ?, 'B', 9000, 1, ?, 'BAO_0000357', 'CLD0')",
  );
  for (let i = 0; i < BENCH_ASSAYS; i++) assay.run(50_000 + i, `Bench assay ${i}`, `CHEMBL${6_000_000 + i}`);
  const act = db.prepare(
    "INSERT INTO activities (activity_id, assay_id, doc_id, record_id, molregno, standard_relation, standard_value, standard_units, standard_flag, standard_type, potential_duplicate, pchembl_value, src_id, type, relation, value, units) VALUES (?, ?, 1, ?, ?, '=', ?, 'nM', 1, ?, 0, ?, 1, ?, '=', ?, 'nM')",
  );
  for (let i = 0; i < rows; i++) {
    const pchembl = Number((9.99 - (i % 500) * 0.01).toFixed(2));
    const nM = 10 ** (9 - pchembl);
    const type = i % 5 === 0 ? "Ki" : "IC50";
    act.run(10_000_000 + i, 50_000 + (i % BENCH_ASSAYS), 20_000_000 + i, 100_000 + (i % BENCH_MOLECULES), nM, type, pchembl, type, nM);
  }
  db.exec("COMMIT");
  db.close();
  return true;
}
