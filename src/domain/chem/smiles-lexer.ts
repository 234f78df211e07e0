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

/**
 * The bonds `smiles` writes with a direction (/ or \), as pairs of the atom indices RDKit builds (a ring closure
 * counts when either of its ends is directed). RDKit keeps these directions on the molecule and perceives
 * double-bond stereo from them again whenever it writes SMILES of an edited copy. Bonds to plain [H] atoms
 * (which RDKit removes) are left out. Undefined when the atom count does not match `atomCount`.
 */
export function directedBonds(smiles: string, atomCount: number): Array<[number, number]> | undefined {
  const s = smiles.trim().split(/\s/)[0] ?? "";
  const out: Array<[number, number]> = [];
  const open = new Map<string, { atom: number; directed: boolean }>();
  const branches: number[] = [];
  let atoms = 0;
  let prev = -1; // -1: no previous atom (start, after '.'); -2: a removed [H]
  let directed = false;
  const bond = (a: number, b: number, dir: boolean): void => {
    if (dir && a >= 0 && b >= 0) out.push([a, b]);
  };
  const atom = (index: number): void => {
    if (prev !== -1) bond(prev, index, directed);
    prev = index;
    directed = false;
  };
  const ring = (label: string): void => {
    const o = open.get(label);
    if (o === undefined) open.set(label, { atom: prev, directed });
    else {
      open.delete(label);
      bond(o.atom, prev, o.directed || directed);
    }
    directed = false;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "[") {
      const end = s.indexOf("]", i);
      if (end < 0) return undefined;
      const body = s.slice(i + 1, end);
      i = end;
      atom(/^H(:\d+)?$/.test(body) ? -2 : atoms++);
    } else if (c === "%") {
      const end = s[i + 1] === "(" ? s.indexOf(")", i) : i + 2;
      if (end < 0) return undefined;
      ring(s.slice(i, end + 1));
      i = end;
    } else if (/[0-9]/.test(c)) ring(c);
    else if (/[BCNOPSFI]/.test(c)) {
      if ((c === "C" && s[i + 1] === "l") || (c === "B" && s[i + 1] === "r")) i++;
      atom(atoms++);
    } else if (/[bcnops*]/.test(c)) atom(atoms++);
    else if (c === "/" || c === "\\") directed = true;
    else if (c === "(") branches.push(prev);
    else if (c === ")") prev = branches.pop() ?? -1;
    else if (c === ".") prev = -1;
  }
  return atoms === atomCount ? out : undefined;
}
