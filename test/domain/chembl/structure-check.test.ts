/**
 * The local structure check behind chembl_search_molecules. The SMILES grammar check (used when the
 * chemistry pool is not reachable) must never refuse a SMILES RDKit accepts: it runs over SMILES files
 * shipped with RDKit, each first confirmed by native RDKit, and over hand-picked edge cases.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { ToolError } from "../../../src/domain/errors.js";
import { checkStructure, smilesGrammarIssue } from "../../../src/domain/chembl/structure-check.js";
import { oracleOutput, PYTHON, skipOracle } from "../../helpers/oracle.js";

const VALID = [
  "C[C@@H](N)C(=O)O",
  "[2H]C",
  "[NH4+]",
  "[Fe+2]",
  "C/C=C\\C",
  "[O-][n+]1ccccc1",
  "C%10CCCCC%10",
  "[se]1cccc1",
  "*C",
  "C=1CCC1",
  "C1.C1",
  "[C@H](F)(Cl)Br",
  "C#N",
  "[Cl-].[Na+]",
  "C:C",
  "[H][H]",
  "[12CH4]",
  "CC[N+](C)(C)C",
  "[O--]",
  "[Cu+1]",
  "N1CC2CCC1C2",
  "C(C)(C)(C)(C)C", // a valence error: RDKit refuses it, the grammar cannot see it
  "CC(=O)Oc1ccccc1C(=O)O",
  "[NH3+][C@@H](Cc1c[nH]c2ccccc12)C([O-])=O",
];

const INVALID = [
  "C1CC(",
  "c1ccccc1)",
  "C(=O",
  "CC(C)(C",
  "C[Xx]",
  "C==C",
  "C1CCCC",
  "(C)C",
  "C.",
  ".C",
  "C()C",
  "C-",
  "=C",
  "C%1C",
  "",
  "C[C@@H",
  "CC&C",
  "C1CC[Zz]1",
];

test("the grammar accepts valid SMILES and edge cases", () => {
  for (const s of VALID) assert.equal(smilesGrammarIssue(s), null, s);
});

test("the grammar refuses SMILES RDKit refuses for syntax, with a position", () => {
  for (const s of INVALID) {
    const issue = smilesGrammarIssue(s);
    assert.ok(issue, `should refuse ${JSON.stringify(s)}`);
    assert.ok(issue.position >= 0 && issue.position <= s.length, s);
  }
});

const RDKIT_SMILES_FILES = [
  "/usr/share/RDKit/Contrib/fraggle/data/ChEMBL_11265_actives.smi",
  "/usr/share/RDKit/Projects/DbCLI/testData/bzr.smi",
  "/usr/share/RDKit/Contrib/Fastcluster/cdk2.smi",
  "/usr/share/RDKit/Contrib/FreeWilson/data/CHEMBL2321810.smi",
];

test("the grammar accepts every SMILES native RDKit parses in RDKit's own SMILES files", async (t) => {
  const files = RDKIT_SMILES_FILES.filter((f) => existsSync(f));
  if (files.length === 0 || !existsSync(PYTHON)) return skipOracle(t, "RDKit data files or the native RDKit oracle (/usr/bin/python3) are not installed");
  const smiles = files.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0] ?? "")
      .filter((s) => s.length > 0 && !/^smiles$/i.test(s)),
  );
  let verdicts: boolean[];
  try {
    const out = await oracleOutput(
      {
        program:
          "import sys,json\nfrom rdkit import Chem, RDLogger\nRDLogger.DisableLog('rdApp.*')\nprint(json.dumps([Chem.MolFromSmiles(s) is not None for s in json.load(sys.stdin)]))",
      },
      { input: JSON.stringify(smiles) },
    );
    verdicts = JSON.parse(out) as boolean[];
  } catch {
    return skipOracle(t, "the native RDKit oracle could not run");
  }
  let checked = 0;
  smiles.forEach((s, i) => {
    if (!verdicts[i]) return;
    checked++;
    assert.equal(smilesGrammarIssue(s), null, s);
  });
  assert.ok(checked > 100, `checked ${checked}`);
});

test("checkStructure: the pool hook when present, the grammar otherwise", async () => {
  assert.equal(await checkStructure("CCO", undefined), "smiles_grammar");
  assert.equal(await checkStructure("CCO", async () => ({ valid: true })), "rdkit");
  await assert.rejects(
    checkStructure("C1CC(", undefined),
    (e: unknown) => e instanceof ToolError && e.code === "INVALID_STRUCTURE" && e.details.check === "smiles_grammar",
  );
  // A busy pool does not fail the search: the grammar check takes over.
  assert.equal(await checkStructure("CCO", async () => Promise.reject(new ToolError("BUSY", "busy"))), "smiles_grammar");
});
