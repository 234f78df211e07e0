/**
 * The synthetic ChEMBL dump the offline benchmarks read: the fixture world's dump (test/fixtures/chembl/dump.ts)
 * plus one target with `rows` activities over MOLECULES molecules and ASSAYS assays, every activity with a
 * pchembl_value (the ranked view holds them all).
 */
import { DDL, buildDump, loadDriver } from "../../test/fixtures/chembl/dump.js";

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

/** A small seeded generator (mulberry32): the same names on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES =
  "ab ac ad al am an ar as at az ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge gi go ha he hi ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pra pre pro qui ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo xa xe xi za ze zi zo".split(
    " ",
  );
/** USAN/INN stems (the World Health Organization's stem book), as drug names end. */
const STEMS =
  "tinib ciclib rafenib mab zumab ximab umab vir previr asvir olol pril sartan vastatin statin oxacin floxacin cillin cef azole conazole dipine setron tidine prazole parin gliptin gliflozin lukast triptan afil dronate mycin cycline barbital caine fentanil profen coxib semide thiazide lutamide relin tecan taxel platin rubicin sertib parib lisib degib stat imod".split(
    " ",
  );
const SALTS = ["hydrochloride", "mesylate", "sodium", "sulfate", "maleate", "citrate", "tartrate", "acetate", "besylate", "phosphate"];
const COMPANIES = "AZD GSK BMS SB CGP PF MK LY ABT JNJ RO SCH BAY ONO TAK AMG CP L NVP BI E GDC INCB ARRY AG SU ZD ICI BIBR BIBF KW TAS DS".split(" ");
const GROUPS = [
  "methyl",
  "ethyl",
  "propyl",
  "isopropyl",
  "tert-butyl",
  "cyclopropyl",
  "phenyl",
  "benzyl",
  "pyridin-2-yl",
  "pyrimidin-4-yl",
  "piperidin-1-yl",
  "morpholin-4-yl",
  "piperazin-1-yl",
  "thiophen-2-yl",
  "furan-2-yl",
  "indol-3-yl",
  "quinolin-4-yl",
  "imidazol-1-yl",
];
const SUBSTITUENTS = ["chloro", "fluoro", "bromo", "methoxy", "hydroxy", "amino", "nitro", "cyano", "trifluoromethyl", "methylsulfonyl"];
const CORES = [
  "benzamide",
  "acetamide",
  "benzenesulfonamide",
  "urea",
  "carboxamide",
  "propanoic acid",
  "benzoic acid",
  "pyrimidin-2-amine",
  "quinazolin-4-amine",
  "1H-pyrazole",
  "1,3-thiazole",
  "piperidine-4-carboxylic acid",
];

/**
 * One synthetic molecule name, lower-case, with the mix of a full release's names and synonyms: INN-like
 * names (syllables and a WHO stem, sometimes a salt), company research codes (AZD-9291, GSK2118436), trade
 * names, and systematic names built from substituents, groups and a core.
 */
function syntheticName(r: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!;
  const u = r();
  if (u < 0.35) {
    let name = "";
    for (let i = 1 + Math.floor(r() * 3); i > 0; i--) name += pick(SYLLABLES);
    name += pick(STEMS);
    return r() < 0.2 ? `${name} ${pick(SALTS)}` : name;
  }
  if (u < 0.65) {
    const digits = String(Math.floor(r() * 10 ** (3 + Math.floor(r() * 5))));
    return `${pick(COMPANIES).toLowerCase()}${r() < 0.5 ? "-" : ""}${digits}${r() < 0.1 ? pick(["a", "b", "x"]) : ""}`;
  }
  if (u < 0.75) return `${pick(SYLLABLES)}${pick(SYLLABLES)}${pick(["ex", "a", "ol", "in", "ix", "on", "ra"])}`;
  const position = () => String(2 + Math.floor(r() * 5));
  let name = `${position()}-${pick(SUBSTITUENTS)}-`;
  if (r() < 0.5) name += `${position()}-${pick(SUBSTITUENTS)}-`;
  return `${name}n-[${position()}-(${pick(GROUPS)})${pick(GROUPS)}]${pick(CORES)}`;
}

/**
 * A dump for the offline text search at full-release scale: `molecules` rows in molecule_dictionary (every
 * other one with a preferred name, upper-case as ChEMBL writes them) and synonyms up to `names` names in all,
 * spread over the molecules at random (molecule_synonyms), generated by syntheticName from a fixed seed.
 * Returns a few names that are in it (for exact, prefix and substring queries).
 */
export function buildNamesDump(path: string, molecules: number, names: number): { known: string[] } | null {
  const Driver = loadDriver();
  if (!Driver) return null;
  const db = new Driver(path);
  const r = random(18);
  const known: string[] = [];
  try {
    db.exec(DDL);
    db.exec("BEGIN");
    db.prepare("INSERT INTO version (name, creation_date, comments) VALUES ('ChEMBL_35', '2024-12-01', 'synthetic names')").run();
    const mol = db.prepare(
      "INSERT INTO molecule_dictionary (molregno, chembl_id, pref_name, therapeutic_flag, dosed_ingredient, structure_type, oral, parenteral, topical, black_box_warning, first_in_class, chirality, prodrug, inorganic_flag, withdrawn_flag, chemical_probe) VALUES (?, ?, ?, 0, 0, 'MOL', 0, 0, 0, 0, 0, 2, 0, 0, 0, 0)",
    );
    let written = 0;
    for (let m = 1; m <= molecules; m++) {
      const name = m % 2 === 0 && written < names ? syntheticName(r).toUpperCase() : null;
      if (name !== null) written++;
      if (name !== null && m % 200_000 === 0) known.push(name.toLowerCase());
      mol.run(m, `CHEMBL${m}`, name);
    }
    const syn = db.prepare("INSERT OR IGNORE INTO molecule_synonyms (molregno, syn_type, molsyn_id, synonyms) VALUES (?, ?, ?, ?)");
    for (let id = 1; written < names; id++, written++) {
      const name = syntheticName(r);
      if (id % 300_000 === 0) known.push(name);
      syn.run(1 + Math.floor(r() * molecules), r() < 0.5 ? "RESEARCH_CODE" : "OTHER", id, r() < 0.5 ? name.toUpperCase() : name);
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  return { known };
}
