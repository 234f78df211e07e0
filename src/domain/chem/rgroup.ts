/**
 * R-group decomposition with RDKit's RGroupDecomposition (rdRGroupDecomposition; MinimalLib get_rgd) at its
 * default parameters: each molecule is added to the decomposition (add answers -1 when the core does not
 * match), then process() assigns the R labels over the whole set, and each matched molecule's row holds its
 * labelled core and R groups as molecules, written here as canonical SMILES as native asSmiles=True does.
 */
import { canonicalOutput, type RDKit, type RDKitMol } from "./rdkit.js";

interface RGroupRow {
  /** Index of the molecule in the list given to decompose. */
  index: number;
  /** Column name (Core, R1, R2, ...) -> SMILES, in RDKit's column order. */
  groups: Array<[string, string]>;
}

export interface RGroupResult {
  rows: RGroupRow[];
  /** Indices (into the list given) of the molecules the core does not match. */
  unmatched: number[];
  /** process() finished within its timeout. */
  complete: boolean;
}

/** Labels in RDKit's order: Core first, then R1, R2, ... by number. */
export function labelOrder(a: string, b: string): number {
  const rank = (l: string) => (l === "Core" ? -1 : Number(/^R(\d+)$/.exec(l)?.[1] ?? Number.MAX_SAFE_INTEGER));
  return rank(a) - rank(b) || a.localeCompare(b);
}

/**
 * Decomposes `mols` (already parsed; the caller keeps them and deletes them) on `core`. `timeoutS` bounds
 * process() (RDKit's RGroupDecompositionParameters.timeout); every other parameter is RDKit's default.
 */
export function decompose(rdkit: RDKit, core: RDKitMol, mols: ReadonlyArray<RDKitMol | undefined>, timeoutS: number): RGroupResult {
  const rgd = rdkit.get_rgd(core, JSON.stringify({ timeout: timeoutS }));
  if (!rgd) throw new Error("RDKit could not set up the R-group decomposition");
  try {
    const unmatched: number[] = [];
    const matched: number[] = [];
    mols.forEach((mol, index) => {
      if (mol === undefined) return;
      if (rgd.add(mol) < 0) unmatched.push(index);
      else matched.push(index);
    });
    let complete = true;
    try {
      complete = matched.length === 0 ? true : rgd.process();
    } catch {
      complete = false;
    }
    if (!complete) return { rows: [], unmatched, complete };
    const raw = rgd.get_rgroups_as_rows() as Array<Record<string, RDKitMol | null>>;
    const rows: RGroupRow[] = [];
    try {
      raw.forEach((row, k) => {
        const groups: Array<[string, string]> = [];
        for (const label of Object.keys(row).sort(labelOrder)) {
          const mol = row[label];
          if (mol) groups.push([label, canonicalOutput(rdkit, mol.get_smiles())]);
        }
        rows.push({ index: matched[k] ?? -1, groups });
      });
    } finally {
      for (const row of raw) for (const mol of Object.values(row)) mol?.delete();
    }
    return { rows, unmatched, complete };
  } finally {
    rgd.delete();
  }
}
