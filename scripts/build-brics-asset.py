#!/usr/bin/python3
"""Writes assets/brics.json from the installed RDKit's rdkit.Chem.BRICS module.

Run with the Debian RDKit Python (python3-rdkit):  /usr/bin/python3 scripts/build-brics-asset.py

The asset holds the published BRICS rule tables (Degen, Wegscheid-Gerlach, Zaliani, Rarey, ChemMedChem
2008, 3, 1503-1507) exactly as RDKit's implementation uses them:

  environments   the link-atom environment SMARTS, L1 ... L16b (18), in the module's own order. L12, L14b
                 and L16b appear in no rule (RDKit keeps them in its table; so does the asset). RDKit's table
                 also holds a commented-out alternative keyed '#L8' that no rule refers to; it is left out.
  rules          the 46 allowed (label A, label B, bond) pairs, in the module's group order (one group per
                 first label: L1, L3, L4, L5, L6, L7, L8, L9, L10, L11, L13, L14, L15, L16), and for each:
                   bond_smarts      '[$(envA)]<bond>;!@[$(envB)]', the pattern FindBRICSBonds matches
                   reaction_smarts  '[$(envA):1]<bond>;!@[$(envB):2]>>[a*]-[*:1].[b*]-[*:2]', the reaction
                                    BRICSDecompose runs (a and b are the labels without their letter)
                 Both strings are checked here to be the very strings RDKit's module builds.

The output is deterministic (fixed key order, no timestamps): re-running it on the same RDKit gives the
same file.
"""
import inspect
import json
import os
import re
import sys

import rdkit
from rdkit import Chem
from rdkit.Chem import BRICS
from rdkit.Chem import rdChemReactions

CITATION = ("Degen, J.; Wegscheid-Gerlach, C.; Zaliani, A.; Rarey, M. On the Art of Compiling and Using "
            "'Drug-Like' Chemical Fragment Spaces. ChemMedChem 2008, 3, 1503-1507. "
            "https://doi.org/10.1002/cmdc.200800178")


def fail(message: str) -> None:
    sys.exit(f"build-brics-asset: {message}")


def license_notice(source: str) -> str:
    """The Novartis BSD-3-Clause notice at the top of BRICS.py (leading '#' block up to the first blank '#')."""
    lines = []
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].removeprefix(" ")
        if text.startswith(" Created by") or text.startswith("Created by"):
            break
        lines.append(text)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    notice = "\n".join(lines)
    if "Copyright" not in notice or "Redistribution and use" not in notice:
        fail("no BSD copyright notice found at the top of BRICS.py")
    return notice


def strip_letters(label: str) -> str:
    return re.sub("[a-zA-Z]", "", label)


def main() -> None:
    source = inspect.getsource(BRICS)
    used = {f"L{label}" for group in BRICS.reactionDefs for a, b, _ in group for label in (a, b)}
    environments = {}
    for key, smarts in BRICS.environs.items():
        if key.startswith("#"):
            continue
        if Chem.MolFromSmarts(smarts) is None:
            fail(f"RDKit cannot parse environment {key}: {smarts!r}")
        environments[key] = smarts
    missing = used - environments.keys()
    if missing:
        fail(f"rules refer to unknown environments {sorted(missing)}")

    groups = []
    count = 0
    for gp_idx, group in enumerate(BRICS.reactionDefs):
        rules = []
        for rxn_idx, (a, b, bond) in enumerate(group):
            env_a = BRICS.environs[f"L{a}"]
            env_b = BRICS.environs[f"L{b}"]
            bond_smarts = f"[$({env_a})]{bond};!@[$({env_b})]"
            reaction_smarts = f"[$({env_a}):1]{bond};!@[$({env_b}):2]>>[{strip_letters(a)}*]-[*:1].[{strip_letters(b)}*]-[*:2]"
            # Same strings as the module compiles: the bond matcher (compared as SMARTS) and the reaction.
            i1, i2, bt, patt = BRICS.bondMatchers[gp_idx][rxn_idx]
            if (i1, i2, bt) != (a, b, bond) or Chem.MolToSmarts(patt) != Chem.MolToSmarts(Chem.MolFromSmarts(bond_smarts)):
                fail(f"bond matcher {gp_idx}.{rxn_idx} differs from {bond_smarts}")
            if BRICS.smartsGps[gp_idx][rxn_idx] != reaction_smarts:
                fail(f"reaction {gp_idx}.{rxn_idx} differs: {BRICS.smartsGps[gp_idx][rxn_idx]} != {reaction_smarts}")
            if rdChemReactions.ReactionFromSmarts(reaction_smarts) is None:
                fail(f"RDKit cannot parse reaction {reaction_smarts}")
            rules.append({
                "labels": [a, b],
                "bond": bond,
                "dummy_labels": [int(strip_letters(a)), int(strip_letters(b))],
                "bond_smarts": bond_smarts,
                "reaction_smarts": reaction_smarts,
            })
            count += 1
        groups.append({"group": f"L{strip_letters(group[0][0])}", "rules": rules})
    if count != 46:
        fail(f"expected 46 rules, found {count}")

    asset = {
        "source": {
            "description": "BRICS link-atom environments and cleavage rules as used by RDKit's rdkit.Chem.BRICS",
            "rdkit_version": rdkit.__version__,
            "module": "rdkit.Chem.BRICS",
            "citation": CITATION,
            "generator": "scripts/build-brics-asset.py",
            "notes": [
                "Rules marked 'not in original paper' in RDKit (9-13, 9-14, 14-14, 16-16) are RDKit's additions and are kept, as RDKit uses them.",
                "RDKit folds the paper's L2 (N.pl3) into its general amine environment L5.",
                "RDKit's table also has a commented-out environment keyed '#L8' that no rule uses; it is not included.",
                "L12, L14b and L16b are in RDKit's table but in no rule (RDKit's L12 group is empty: 'none left').",
            ],
        },
        "license": {
            "spdx": "BSD-3-Clause",
            "notice": license_notice(source),
        },
        "environments": environments,
        "rule_groups": groups,
    }

    out = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "brics.json"))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(asset, fh, indent=2, ensure_ascii=True)
        fh.write("\n")
    print(f"wrote {out}: {len(environments)} environments, {count} rules in {len(groups)} groups, RDKit {rdkit.__version__}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
