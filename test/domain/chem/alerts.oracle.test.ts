/**
 * pains_check / brenk_check against native RDKit's FilterCatalog (Debian python3-rdkit via /usr/bin/python3,
 * scripts/oracle-alerts.py) on RDKit's NCI first_5K.smi and on the WEHI screening set of RDKit's PAINS test
 * data (ORACLE_LIMIT molecules of each, default 1000; 10000 runs both files whole), and against RDKit's own
 * PAINS positives (Data/Pains/test_data/test_set3.txt).
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { assetPath } from "../../../src/domain/assets.js";
import { ToolError } from "../../../src/domain/errors.js";
import { ALERT_SETS, screenAlerts, type AlertHit } from "../../../src/domain/chem/alerts.js";
import { loadRDKit, parseSmiles } from "../../../src/domain/chem/rdkit.js";
import { painsCheckTool } from "../../../src/tools/pains_check.js";
import { brenkCheckTool } from "../../../src/tools/brenk_check.js";
import { nativeRDKitMissing, oracleFixture, oracleOutput, skipOracle } from "../../helpers/oracle.js";

const SMI_FILE = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const PAINS_TEST_SET = "/usr/share/RDKit/Data/Pains/test_data/test_set3.txt";
const WEHI_FILE = "/usr/share/RDKit/Data/Pains/test_data/wehi_mols.csv";
const LIMIT = Number(process.env.ORACLE_LIMIT ?? 1000);
/** The acceptance bar: identical hit sets on at least this share of the compared molecules. */
const MIN_AGREEMENT = 0.995;

interface NativeHit {
  name: string;
  family: string;
  atoms: number[];
}
interface NativeRow {
  smiles: string;
  error?: string;
  pains: NativeHit[];
  brenk: NativeHit[];
}

async function oracleUnavailable(): Promise<string | undefined> {
  if (!existsSync(SMI_FILE)) return `${SMI_FILE} is absent (Debian package rdkit-data provides it)`;
  return nativeRDKitMissing("from rdkit.Chem import FilterCatalog");
}

/** scripts/oracle-alerts.py in the shared native RDKit process. */
async function oracle(mode: string, input = ""): Promise<string[]> {
  return (await oracleOutput({ script: "oracle-alerts.py" }, { args: [mode], input, timeoutMs: 600_000 })).split("\n").filter((l) => l.length > 0);
}

const names = (hits: ReadonlyArray<{ name: string }>): string[] => hits.map((h) => h.name);

test("the PAINS and Brenk assets hold exactly RDKit's FilterCatalog entries, in catalog order", () => {
  // oracle-alerts.py catalog takes no input: its answer is a fixture (scripts/make-oracle-fixtures.py).
  const catalog = JSON.parse(oracleFixture("alerts-catalog", { args: ["catalog"] })) as Record<"pains" | "brenk", Array<{ name: string; family: string }>>;
  for (const set of ["pains", "brenk"] as const) {
    const ours = ALERT_SETS[set].entries.map((e) => ({ name: e.name, family: e.family }));
    assert.deepEqual(ours, catalog[set], `${set}: names, families and order`);
  }
  assert.equal(catalog.pains.length, 480);
  assert.equal(catalog.brenk.length, 105);
});

/** Screens `smiles` with ours and with native FilterCatalog; lists every difference; returns the agreement. */
async function compareWithFilterCatalog(t: TestContext, smiles: string[]): Promise<void> {
  const native = (await oracle("alerts", smiles.join("\n") + "\n")).map((l) => JSON.parse(l) as NativeRow);
  assert.equal(native.length, smiles.length, "one oracle line per SMILES");
  const rdkit = await loadRDKit();

  let compared = 0;
  let parseDisagreements = 0;
  let agreeing = 0;
  let sameAtoms = 0;
  let hitCount = 0;
  const counts = { pains: 0, brenk: 0 };
  let ms = 0;
  const differences: string[] = [];
  for (let i = 0; i < smiles.length; i++) {
    const smi = smiles[i]!;
    const ref = native[i]!;
    assert.equal(ref.smiles, smi, `oracle line ${i} answers another SMILES`);
    let ours: Record<"pains" | "brenk", AlertHit[]> | undefined;
    try {
      const mol = parseSmiles(rdkit, smi);
      try {
        const t0 = performance.now();
        ours = { pains: screenAlerts(rdkit, mol, "pains"), brenk: screenAlerts(rdkit, mol, "brenk") };
        ms += performance.now() - t0;
      } finally {
        mol.delete();
      }
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
    }
    if (ours === undefined || ref.error !== undefined) {
      // Not an alert difference: the two RDKit versions disagree on whether the SMILES is valid (valence rules).
      if ((ours === undefined) !== (ref.error !== undefined)) {
        parseDisagreements++;
        t.diagnostic(`not compared, only ${ours ? "WASM" : "native"} RDKit parses ${smi}`);
      }
      continue;
    }
    compared++;
    let same = true;
    for (const set of ["pains", "brenk"] as const) {
      const a = names(ours[set]);
      const b = names(ref[set]);
      counts[set] += b.length;
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        same = false;
        const onlyOurs = a.filter((n) => !b.includes(n));
        const onlyNative = b.filter((n) => !a.includes(n));
        differences.push(`${smi} ${set}: only ours [${onlyOurs.join(", ")}], only native [${onlyNative.join(", ")}]`);
        continue;
      }
      for (let k = 0; k < a.length; k++) {
        hitCount++;
        if (JSON.stringify(ours[set][k]!.matched_atoms) === JSON.stringify(ref[set][k]!.atoms)) sameAtoms++;
      }
    }
    if (same) agreeing++;
  }
  for (const d of differences) t.diagnostic(`difference: ${d}`);
  const agreement = agreeing / Math.max(compared, 1);
  t.diagnostic(
    `compared ${compared} of ${smiles.length} molecules (parse disagreements ${parseDisagreements}); identical PAINS+Brenk hit ` +
      `sets ${agreeing}/${compared} = ${(100 * agreement).toFixed(2)}%; native hits PAINS ${counts.pains}, Brenk ${counts.brenk}; ` +
      `first-match atoms identical for ${sameAtoms}/${hitCount} agreeing hits; screening ${(ms / Math.max(compared, 1)).toFixed(2)} ms/molecule (PAINS+Brenk)`,
  );
  assert.ok(compared >= Math.min(500, smiles.length), "at least 500 molecules compared");
  assert.ok(counts.pains > 0 && counts.brenk > 0, "the sample holds PAINS and Brenk positives");
  assert.ok(agreement >= MIN_AGREEMENT, `${differences.length} molecules differ: ${differences.slice(0, 10).join(" | ")}`);
}

test("PAINS and Brenk hits equal RDKit's FilterCatalog on NCI first_5K.smi", async (t) => {
  const reason = await oracleUnavailable();
  if (reason !== undefined) {
    skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    return;
  }
  const smiles = readFileSync(SMI_FILE, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .slice(0, LIMIT)
    .map((l) => l.trim().split(/\s+/)[0]!);
  await compareWithFilterCatalog(t, smiles);
});

test("PAINS and Brenk hits equal RDKit's FilterCatalog on the WEHI screening molecules (PAINS-rich)", async (t) => {
  const reason = (await oracleUnavailable()) ?? (existsSync(WEHI_FILE) ? undefined : `${WEHI_FILE} is absent (Debian package rdkit-data provides it)`);
  if (reason !== undefined) {
    skipOracle(t, `native RDKit oracle unavailable: ${reason}`);
    return;
  }
  // Format: "SMILES","WEHI-id" per line.
  const smiles = readFileSync(WEHI_FILE, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .slice(0, LIMIT)
    .map((l) => JSON.parse(`[${l}]`) as string[])
    .map((fields) => fields[0]!);
  await compareWithFilterCatalog(t, smiles);
});

test("every known PAINS positive of RDKit's test set (test_set3.txt) is flagged with its alert", async (t) => {
  if (!existsSync(PAINS_TEST_SET)) {
    skipOracle(t, `${PAINS_TEST_SET} is absent (Debian package rdkit-data provides it)`);
    return;
  }
  // Format: '#' comment lines, then "index<TAB>SMARTS<TAB>SMILES<TAB>id<TAB>source"; index is the pattern's
  // 0-based line in wehi_pains.csv, which the asset keeps as wehi_index.
  const asset = JSON.parse(readFileSync(assetPath("pains.json"), "utf8")) as { entries: Array<{ name: string; wehi_index: number }> };
  const nameOf = new Map(asset.entries.map((e) => [e.wehi_index, e.name]));
  const rows = readFileSync(PAINS_TEST_SET, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0 && !l.startsWith("#"))
    .map((l) => l.trim().split(/\s+/));
  const rdkit = await loadRDKit();
  const missed: string[] = [];
  const patterns = new Set<string>();
  for (const fields of rows) {
    assert.equal(fields.length, 5, `five fields: ${fields.join(" ")}`);
    const name = nameOf.get(Number(fields[0]));
    assert.ok(name !== undefined, `pattern index ${fields[0]} is in the asset`);
    patterns.add(name);
    const result = painsCheckTool.run({ smiles: fields[2]! }, { rdkit, progress: () => {} }) as { alerts: string[] };
    if (!result.alerts.includes(name)) missed.push(`${fields[2]} (${fields[3]}) should hit ${name}`);
  }
  t.diagnostic(`${rows.length - missed.length}/${rows.length} known positives flagged, covering ${patterns.size} PAINS patterns`);
  assert.ok(rows.length >= 400, "the test set was read");
  assert.deepEqual(missed, []);
});

test("pains_check and brenk_check answer the reference's keys", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  const quinone = painsCheckTool.run({ smiles: "CC1=CC(=O)C=CC1=O" }, ctx);
  assert.equal(quinone.passes, false);
  assert.equal(quinone.alert_count, 1);
  assert.deepEqual(quinone.alerts, ["quinone_A(370)"]);
  assert.deepEqual(quinone.alert_details, [{ name: "quinone_A(370)", family: "A", matched_atoms: [4, 3, 2, 1, 7, 8, 6, 5] }]);
  assert.equal(quinone.alerts_screened, 480);
  const clean = painsCheckTool.run({ smiles: "CCO" }, ctx);
  assert.deepEqual([clean.passes, clean.alert_count, clean.alerts], [true, 0, []]);
  const nitro = brenkCheckTool.run({ smiles: "OC1=C(Cl)C=C(C=C1[N+]([O-])=O)[N+]([O-])=O" }, ctx) as { alerts: string[]; alert_details: AlertHit[] };
  assert.deepEqual(nitro.alerts, ["nitro_group", "Oxygen-nitrogen_single_bond"]);
  assert.deepEqual(nitro.alert_details[0], { name: "nitro_group", family: "Brenk", matched_atoms: [8, 10, 9] });
  // Brenk's D2 query (Aliphatic_long_chain) counts heavy neighbours only: hydrogens stay implicit.
  assert.deepEqual((brenkCheckTool.run({ smiles: "CCCCCC" }, ctx) as { alerts: string[] }).alerts, ["Aliphatic_long_chain"]);
  assert.throws(
    () => painsCheckTool.run({ smiles: "C1CC" }, ctx),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_SMILES",
  );
});
