/**
 * A SMILES lexer just deep enough for the standardiser: which atoms were written in brackets. RDKit fixes the
 * hydrogen count of a bracket atom (its noImplicit flag) and recomputes it for an organic-subset atom, which
 * MinimalLib does not expose; the standardiser needs it after metal disconnection.
 */

/**
 * For each atom RDKit builds from `smiles`, whether it was written in brackets (its hydrogen count is then
 * fixed). Plain [H] atoms, which RDKit folds into their neighbour, are skipped. Undefined when the count
 * does not match `atomCount` (then every hydrogen count is treated as fixed).
 */
export function bracketAtoms(smiles: string, atomCount: number): boolean[] | undefined {
  const s = smiles.trim().split(/\s/)[0] ?? "";
  const flags: boolean[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "[") {
      const end = s.indexOf("]", i);
      if (end < 0) return undefined;
      const body = s.slice(i + 1, end);
      i = end;
      if (/^H(:\d+)?$/.test(body)) continue; // a plain hydrogen atom: removed by RDKit's RemoveHs
      flags.push(true);
    } else if (c === "%") {
      i += s[i + 1] === "(" ? s.indexOf(")", i) - i : 2;
    } else if (/[BCNOPSFI]/.test(c)) {
      if ((c === "C" && s[i + 1] === "l") || (c === "B" && s[i + 1] === "r")) i++;
      flags.push(false);
    } else if (/[bcnops*]/.test(c)) {
      flags.push(false);
    }
  }
  return flags.length === atomCount ? flags : undefined;
}
