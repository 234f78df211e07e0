/**
 * Exact rules for differences between native RDKit 2022.09 (the oracle) and the WASM 2026.09 build that a named upstream
 * change explains, shared by the oracle tests that meet them.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../../src/domain/assets.js";

const valences2022 = (JSON.parse(readFileSync(assetPath("standardize-data.json"), "utf8")) as { valence_lists: Record<string, number[]> }).valence_lists;
const Z: Record<string, number> = { Al: 13, Si: 14, P: 15 };

/** rdkit/rdkit#7491's rule, as the tests state it: WASM's parse error names Al, Si or P at a valence 2022.09's valence list allows. */
export const VALENCE_7491 =
  "rdkit/rdkit#7491 (2024.09, the isoelectronic valence model): WASM refuses a neutral Al, Si or P with more bonds than it now " +
  "allows; excused only when WASM's parse error names Al, Si or P at a valence 2022.09's valence list allows, and every cell is NULL";

/** Whether WASM's refusal of a molecule is rdkit/rdkit#7491's (VALENCE_7491). */
export function valenceModelChange(message: string): boolean {
  const m = /Explicit valence for atom # \d+ (Al|Si|P), (\d+), is greater than permitted/.exec(message);
  return m !== null && (valences2022[String(Z[m[1]!])] ?? []).some((v) => v >= Number(m[2]));
}
