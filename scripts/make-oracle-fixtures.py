#!/usr/bin/python3
"""Writes test/fixtures/oracle/: native RDKit's answers to the oracle requests of the tests whose inputs are fixed.

Run with the Debian RDKit Python (python3-rdkit 2022.09):  /usr/bin/python3 scripts/make-oracle-fixtures.py [--out DIR]

A comparison whose inputs never change (molecules written in the test, no input at all) gets the same native
answer on every run, so the answer is kept as a fixture and the test runs without Python (test/helpers/oracle.ts,
oracleFixture). Comparisons whose inputs are made at run time (samples of RDKit's data files, our own output) keep
asking the live oracle (scripts/oracle-server.py). Each fixture is one request, run exactly as the live oracle runs
it, `python3 scripts/<script> args... < input` or `python3 -c <program> args... < input`, and written as one
compact JSON object with sorted keys: {"made_by", "rdkit" (the version that answered), "request" {"script" or
"program", "args", "input"}, "stdout"}. A test reading a fixture checks that the request's args and input are the
ones it would send, so a changed input fails until this script is run again.
test/lint/oracle-fixtures.test.ts runs this script into a temporary folder when native RDKit is installed and
checks that the checked-in files equal its output, byte for byte. The output is deterministic (no timestamps).
"""
import argparse
import json
import os
import subprocess
import sys

import rdkit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
DEFAULT_OUT = os.path.join(ROOT, "test", "fixtures", "oracle")

# ---- The programs (each was inline in its test) ----

# test/tools/molecule-input.test.ts: the standardised parent (rdMolStandardize.ChargeParent) and its MolWt.
CHARGE_PARENT_MW = (
    "import sys\nfrom rdkit import Chem\nfrom rdkit.Chem import Descriptors\nfrom rdkit.Chem.MolStandardize import rdMolStandardize\n"
    "p = rdMolStandardize.ChargeParent(Chem.MolFromSmiles(sys.argv[1]))\nprint(Chem.MolToSmiles(p), Descriptors.MolWt(p))"
)

# test/domain/chem/atom-maps.test.ts: native BreakBRICSBonds on each BRICS bond alone, the fragments sorted.
BRICS_SINGLE_CUTS = r"""
import sys, json
from rdkit import Chem
from rdkit.Chem import BRICS
m = Chem.MolFromSmiles(sys.argv[1])
print(json.dumps(sorted(sorted(Chem.MolToSmiles(BRICS.BreakBRICSBonds(m, [b])).split('.')) for b in BRICS.FindBRICSBonds(m))))"""

# test/domain/chem/atom-maps.test.ts: native GetScaffoldForMol and MakeScaffoldGeneric of it.
MURCKO_PLAIN_GENERIC = r"""
import sys
from rdkit import Chem
from rdkit.Chem.Scaffolds import MurckoScaffold as M
s = M.GetScaffoldForMol(Chem.MolFromSmiles(sys.argv[1]))
print(Chem.MolToSmiles(s)); print(Chem.MolToSmiles(M.MakeScaffoldGeneric(s)))"""

# ---- The fixtures: name -> request ----

TAMOXIFEN_CITRATE = "CCC(=C(c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1.OC(=O)CC(O)(CC(=O)O)C(=O)O"

FIXTURES = {
    # test/domain/chem/alerts.oracle.test.ts: RDKit's FilterCatalog PAINS and Brenk entries, in catalog order.
    "alerts-catalog": {"script": "oracle-alerts.py", "args": ["catalog"], "input": ""},
    "atom-maps-brics": {"program": BRICS_SINGLE_CUTS, "args": ["[*:1]c1ccc(NC(=O)C[C@@H](C)O)cc1C(=O)OC[*:2]"], "input": ""},
    "atom-maps-murcko": {"program": MURCKO_PLAIN_GENERIC, "args": ["[CH2:5]1CCC([*:1])CC1c1cc[cH:3]cc1C[*:2]"], "input": ""},
    "molecule-input-charge-parent": {"program": CHARGE_PARENT_MW, "args": [TAMOXIFEN_CITRATE], "input": ""},
}


def run(request):
    """The request's stdout, run as the live oracle runs it (a fresh interpreter, this one)."""
    if "script" in request:
        command = [sys.executable, os.path.join(SCRIPTS, request["script"]), *request["args"]]
    else:
        command = [sys.executable, "-c", request["program"], *request["args"]]
    done = subprocess.run(command, input=request["input"], capture_output=True, encoding="utf-8", check=False)
    if done.returncode != 0:
        sys.exit(f"make-oracle-fixtures: {command[1][:60]!r} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder to write (default test/fixtures/oracle)")
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    for name, request in sorted(FIXTURES.items()):
        fixture = {"made_by": "scripts/make-oracle-fixtures.py", "rdkit": rdkit.__version__, "request": request, "stdout": run(request)}
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(fixture, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    total = sum(os.path.getsize(os.path.join(out, name + ".json")) for name in FIXTURES)
    print(f"make-oracle-fixtures: {len(FIXTURES)} fixtures, {total} bytes in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
