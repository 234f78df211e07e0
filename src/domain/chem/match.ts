/**
 * Substructure-match helpers over MinimalLib's JSON answers (get_substruct_match answers "{}" when nothing
 * matches; get_substruct_matches answers "{}" or a list of {atoms, bonds}).
 */
import type { RDKitMol } from "./rdkit.js";

export { substructMatches } from "./rdkit.js";

/** The first match of `query` in `mol` (target atoms in query order), or undefined. */
export function firstMatch(mol: RDKitMol, query: RDKitMol): number[] | undefined {
  const parsed = JSON.parse(mol.get_substruct_match(query)) as { atoms?: unknown };
  return Array.isArray(parsed.atoms) && parsed.atoms.length > 0 ? (parsed.atoms as number[]) : undefined;
}

/** Whether `query` matches `mol` at least once. */
export function hasMatch(mol: RDKitMol, query: RDKitMol): boolean {
  return firstMatch(mol, query) !== undefined;
}
