/**
 * RDKit's Morgan (circular, ECFP-like) fingerprint algorithm in TypeScript, for what MinimalLib does not
 * expose: the unfolded 32-bit environment ids with their counts (rdMolDescriptors.GetMorganFingerprint),
 * which the SA score reads. Folded bit vectors come from MinimalLib itself (get_morgan_fp_as_uint8array);
 * foldMorgan() of these ids equals them bit for bit (tested against MinimalLib and native RDKit).
 *
 * The algorithm is Rogers & Hahn's extended-connectivity fingerprint (J. Chem. Inf. Model. 2010, 50,
 * 742-754) as RDKit defines it (Code/GraphMol/Fingerprints: FingerprintUtil getConnectivityInvariants,
 * MorganGenerator getEnvironments; Code/RDGeneral/hash with a 32-bit result type), without chirality,
 * with bond types, and without redundant environments (RDKit's defaults):
 *
 *   atom invariant   = hash_range([Z, total degree, total H (hydrogen atoms bonded to it included), formal
 *                      charge, (int)(mass - average atomic weight), 1 if the atom is in a ring])
 *   layer L+1 id     = hash_combine(L, own layer-L id), then hash_combine with each (bond type, neighbour
 *                      layer-L id) pair, pairs sorted ascending, each pair hashed as hash_combine(0, a, b)
 *   deduplication    = an environment (the set of bonds within L+1 of the atom) that was already emitted,
 *                      in this layer or an earlier one, is dropped and its atom stops growing; among equal
 *                      new environments the smallest id (then the lowest atom index) is kept
 *   hash_combine     = seed ^= value + 0x9e3779b9 + (seed << 6) + (seed >> 2), modulo 2^32
 *
 * The molecular graph is graph.ts's molGraph(mol) (one get_json() call: atoms with total H counts, Kekulé bond
 * orders that are RDKit bond-type numbers, plus aromatic bonds and ring atoms in the RDKit extension).
 */
import type { GraphBond, MolGraph } from "./graph.js";
import type { RDKit, RDKitMol } from "./rdkit.js";
import { compiledPerRdkit } from "./rdkit-cache.js";

/** RDKit's Bond::BondType value of an aromatic bond (rdkitjson writes the Kekulé order instead). */
const AROMATIC_BOND_TYPE = 12;

/** RDKit's Bond::BondType number of a bond: 1 single, 2 double, 3 triple, 12 aromatic, 17 dative, ... */
function bondType(bond: GraphBond): number {
  return bond.aromatic ? AROMATIC_BOND_TYPE : bond.bo;
}

// ---- 32-bit boost-style hashing (RDKit's gboost with hash_result_t = uint32) ----

/** seed ^= value + 0x9e3779b9 + (seed << 6) + (seed >> 2), all modulo 2^32. `value` is a uint32. */
export function hashCombine(seed: number, value: number): number {
  return (seed ^ ((value + 0x9e3779b9 + ((seed << 6) >>> 0) + (seed >>> 2)) >>> 0)) >>> 0;
}

/** hash_range over 32-bit values (signed values wrap, as a static_cast<uint32_t> does). */
export function hashRange(values: readonly number[]): number {
  let seed = 0;
  for (const v of values) seed = hashCombine(seed, v >>> 0);
  return seed;
}

// ---- atom invariants ----

/**
 * (int)(mass - average atomic weight) of an isotope-labelled atom, as RDKit's getConnectivityInvariants
 * computes it, taken from the running RDKit's own element data (the average weight of a bare bracket
 * atom of that isotope minus that of the unlabelled atom). Cached per module: a few values ever occur.
 */
const deltaMassCache = compiledPerRdkit(() => new Map<string, number>());

function deltaMass(rdkit: RDKit, z: number, isotope: number): number {
  if (isotope === 0) return 0;
  const cache = deltaMassCache(rdkit);
  const key = `${z}:${isotope}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const element = z === 0 ? "*" : `#${z}`;
  const weight = (smiles: string): number => {
    const mol = rdkit.get_mol(smiles);
    if (!mol) throw new Error(`RDKit cannot build the atom ${smiles}`);
    try {
      return (JSON.parse(mol.get_descriptors()) as { amw: number }).amw;
    } finally {
      mol.delete();
    }
  };
  const value = Math.trunc(weight(`[${isotope}${element}]`) - weight(`[${element}]`));
  cache.set(key, value);
  return value;
}

/** RDKit's connectivity (ECFP) invariant of every atom, ring membership included. */
function atomInvariants(rdkit: RDKit, graph: MolGraph): Uint32Array {
  const degree = new Uint32Array(graph.atoms.length);
  // Hydrogen atoms bonded to each atom: RDKit counts them with getTotalNumHs(true) ([2H]C, [H][H]).
  const hNeighbours = new Uint32Array(graph.atoms.length);
  for (const b of graph.bonds) {
    degree[b.begin]!++;
    degree[b.end]!++;
    if (graph.atoms[b.end]!.z === 1) hNeighbours[b.begin]!++;
    if (graph.atoms[b.begin]!.z === 1) hNeighbours[b.end]!++;
  }
  const invariants = new Uint32Array(graph.atoms.length);
  graph.atoms.forEach((a, i) => {
    const components = [a.z, degree[i]! + a.hs, a.hs + hNeighbours[i]!, a.chg, deltaMass(rdkit, a.z, a.isotope)];
    if (graph.inRing[i]) components.push(1);
    invariants[i] = hashRange(components);
  });
  return invariants;
}

// ---- environments ----

export interface MorganEnvironment {
  /** Unfolded 32-bit environment id. */
  id: number;
  /** Central atom. */
  atom: number;
  /** Radius of the environment (0 = the atom alone). */
  layer: number;
}

/** Union of two sorted index lists. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x < y) {
      out.push(x);
      i++;
    } else if (y < x) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
      j++;
    }
  }
  return out;
}

/**
 * Every environment RDKit's Morgan generator emits up to `radius` (useChirality false, useBondTypes true,
 * includeRedundantEnvironments false, onlyNonzeroInvariants false), in RDKit's emission order.
 */
export function morganEnvironments(rdkit: RDKit, graph: MolGraph, radius: number): MorganEnvironment[] {
  const n = graph.atoms.length;
  const out: MorganEnvironment[] = [];
  let current = atomInvariants(rdkit, graph);
  for (let i = 0; i < n; i++) out.push({ id: current[i]!, atom: i, layer: 0 });
  if (radius <= 0 || n === 0) return out;

  // Incident bonds of each atom, in bond order (RDKit iterates an atom's bonds in insertion order; the
  // neighbour list is sorted before hashing, so the order does not matter for the ids).
  const incident: number[][] = graph.atoms.map(() => []);
  graph.bonds.forEach((b, idx) => {
    incident[b.begin]!.push(idx);
    incident[b.end]!.push(idx);
  });

  // Bond sets (sorted bond indices): of the previous layer, and of this layer (which persists for atoms
  // that stop growing, as RDKit's roundAtomNeighborhoods does).
  let neighborhoods: number[][] = graph.atoms.map(() => []);
  const round: number[][] = graph.atoms.map(() => []);
  const dead = new Uint8Array(n);
  const seen = new Set<string>();

  for (let layer = 0; layer < radius; layer++) {
    const next = new Uint32Array(n);
    const candidates: Array<{ key: string; id: number; atom: number }> = [];
    for (let atom = 0; atom < n; atom++) {
      if (dead[atom]) continue;
      const bonds = incident[atom]!;
      if (bonds.length === 0) {
        dead[atom] = 1;
        continue;
      }
      let env = round[atom]!;
      const pairs: Array<[number, number]> = [];
      for (const bondIdx of bonds) {
        const bond = graph.bonds[bondIdx]!;
        const other = bond.begin === atom ? bond.end : bond.begin;
        env = mergeSorted(mergeSorted(env, [bondIdx]), neighborhoods[other]!);
        pairs.push([bondType(bond) >>> 0, current[other]!]);
      }
      round[atom] = env;
      pairs.sort((p, q) => (p[0] !== q[0] ? p[0] - q[0] : p[1] - q[1]));
      let id = hashCombine(layer, current[atom]!);
      for (const [bondType, neighbour] of pairs) id = hashCombine(id, hashCombine(hashCombine(0, bondType), neighbour));
      next[atom] = id;
      candidates.push({ key: env.join(","), id, atom });
    }
    // RDKit sorts (environment, id, atom) and keeps the first of each environment not seen before.
    candidates.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : p.id !== q.id ? p.id - q.id : p.atom - q.atom));
    for (const c of candidates) {
      if (seen.has(c.key)) {
        dead[c.atom] = 1;
      } else {
        seen.add(c.key);
        out.push({ id: c.id, atom: c.atom, layer: layer + 1 });
      }
    }
    current = next;
    neighborhoods = round.map((env) => env);
  }
  return out;
}

/** Unfolded ids with their counts, as rdMolDescriptors.GetMorganFingerprint(mol, radius).GetNonzeroElements(). */
export function morganCounts(rdkit: RDKit, graph: MolGraph, radius: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const env of morganEnvironments(rdkit, graph, radius)) counts.set(env.id, (counts.get(env.id) ?? 0) + 1);
  return counts;
}

/** Folds unfolded ids into an nBits bit vector (bit = id mod nBits; bit i in byte i >> 3, lowest bit first). */
export function foldMorgan(ids: Iterable<number>, nBits: number): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(nBits / 8));
  for (const id of ids) {
    const bit = id % nBits;
    bytes[bit >> 3]! |= 1 << (bit & 7);
  }
  return bytes;
}

// ---- folded bit vectors from MinimalLib ----

export interface MorganOptions {
  /** Environment radius: 2 gives ECFP4. */
  radius: number;
  /** Bit-vector length, a power of two from 64 to 16384. */
  nBits: number;
  /** Include tetrahedral chirality (CIP labels) in the invariants. */
  useChirality: boolean;
}

export const DEFAULT_MORGAN_OPTIONS: Readonly<MorganOptions> = { radius: 2, nBits: 2048, useChirality: false };
export const MAX_MORGAN_RADIUS = 6;
/** Allowed bit-vector lengths: powers of two, so the hex string and 32-bit words align. */
export const MORGAN_N_BITS = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384] as const;

/**
 * RDKit's folded Morgan bit vector of `mol`, as GetMorganFingerprintAsBitVect(mol, radius, nBits,
 * useChirality): bit i is in byte i >> 3 at position i & 7 (lowest bit first). The bytes are a fresh
 * copy owned by JavaScript (offset 0), so a Uint32Array view over them is valid.
 */
export function morganBitVector(mol: RDKitMol, options: MorganOptions): Uint8Array {
  const details = JSON.stringify({ radius: options.radius, nBits: options.nBits, useChirality: options.useChirality });
  const bytes = mol.get_morgan_fp_as_uint8array(details) as Uint8Array;
  if (!(bytes instanceof Uint8Array) || bytes.length * 8 !== options.nBits) {
    throw new Error(`RDKit returned a Morgan fingerprint of unexpected size for nBits ${options.nBits}`);
  }
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : bytes.slice();
}

/** Number of set bits in a 32-bit word. */
function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** 32-bit word view of a fingerprint whose length is a multiple of 4 bytes and whose buffer starts at 0. */
export function fingerprintWords(bytes: Uint8Array): Uint32Array {
  return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
}

export function popcount(words: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) n += popcount32(words[i]!);
  return n;
}

/**
 * Tanimoto similarity |A and B| / |A or B| of two fingerprints of the same length, as RDKit's
 * DataStructs.TanimotoSimilarity (1 when both are empty). `countA` may pass popcount(a).
 */
export function tanimoto(a: Uint32Array, b: Uint32Array, countA = popcount(a)): number {
  if (a.length !== b.length) throw new Error("Tanimoto of fingerprints of different lengths");
  let common = 0;
  let countB = 0;
  for (let i = 0; i < a.length; i++) {
    const y = b[i]!;
    common += popcount32(a[i]! & y);
    countB += popcount32(y);
  }
  const union = countA + countB - common;
  return union === 0 ? 1 : common / union;
}

/** Lowercase hex of the bytes in order (byte 0 first; within a byte, the high nibble first). */
export function fingerprintHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex");
}

/** Indices of the set bits, ascending. */
export function onBits(bytes: Uint8Array): number[] {
  const bits: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0) continue;
    for (let k = 0; k < 8; k++) if (byte & (1 << k)) bits.push(i * 8 + k);
  }
  return bits;
}
