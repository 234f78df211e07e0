/**
 * Per-RDKit-instance caches. Each worker thread loads its own RDKit module, and a compiled query or reaction
 * belongs to the module that made it; so what is compiled once is cached per module (in a WeakMap keyed by
 * it) and never deleted: it lives as long as the module.
 */
import type { Reaction } from "@rdkit/rdkit";
import type { RDKit, RDKitMol } from "./rdkit.js";

/** `build`, memoised per RDKit instance: the first call with an instance builds, later calls answer the same value. */
export function compiledPerRdkit<T>(build: (rdkit: RDKit) => T): (rdkit: RDKit) => T {
  const cache = new WeakMap<RDKit, T>();
  return (rdkit) => {
    let value = cache.get(rdkit);
    if (value === undefined) {
      value = build(rdkit);
      cache.set(rdkit, value);
    }
    return value;
  };
}

/** Compilers handed to compileAll's callback. */
export interface Compilers {
  /** A SMARTS query; `label` names it in the error (default: the SMARTS). */
  query(smarts: string, label?: string): RDKitMol;
  /** A reaction SMARTS. */
  reaction(smarts: string): Reaction;
}

/**
 * Runs `build` with compilers that remember what they made; when anything fails to compile, everything made
 * so far is deleted and an Error naming `what` and the failing text is thrown.
 */
export function compileAll<T>(rdkit: RDKit, what: string, build: (c: Compilers) => T): T {
  const made: Array<{ delete(): void }> = [];
  const fail = (message: string): never => {
    throw new Error(message);
  };
  const compilers: Compilers = {
    query(smarts, label) {
      const q = rdkit.get_qmol(smarts);
      if (!q || !q.is_valid()) {
        q?.delete();
        return fail(`RDKit could not compile the ${what} SMARTS ${label === undefined ? `'${smarts}'` : `'${label}': ${smarts}`}`);
      }
      made.push(q);
      return q;
    },
    reaction(smarts) {
      const rxn = rdkit.get_rxn(smarts);
      if (!rxn) return fail(`RDKit could not compile the ${what} reaction '${smarts}'`);
      made.push(rxn);
      return rxn;
    },
  };
  try {
    return build(compilers);
  } catch (e) {
    for (const h of made) h.delete();
    throw e;
  }
}
