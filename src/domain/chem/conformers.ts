/**
 * 3D conformers: OpenChemLib's ConformerGenerator (torsion-library based, seeded) and minimisation with
 * its MMFF94 implementation using the 'MMFF94s' tables. MinimalLib has no 3D embedding or force field.
 *
 * Coordinates have one source: the V2000 molfile OpenChemLib writes. The XYZ text is read back from that
 * molfile's atom block, so both carry the same numbers. (OpenChemLib's getAtomY/getAtomZ are the molfile's
 * -y/-z, a 180 degree rotation; reading coordinates from the molfile avoids mixing the two frames.)
 *
 * OpenChemLib is loaded on first use inside the worker thread that needs it (its first call costs about
 * two seconds of initialisation), so workers that never build 3D never load it.
 *
 * References:
 *  - ConformerGenerator: Sander, Freyss, von Korff, Rufener, J. Chem. Inf. Model. 2015, 55, 460-473
 *    (DataWarrior/OpenChemLib), torsion preferences from crystal structures.
 *  - MMFF94: Halgren, J. Comput. Chem. 1996, 17, 490-519; MMFF94s: Halgren, J. Comput. Chem. 1999, 20, 720-729.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type * as OCLTypes from "openchemlib";
import { ToolError } from "../errors.js";

type OCLModule = typeof OCLTypes;
type OCLMolecule = OCLTypes.Molecule;

/**
 * OpenChemLib's MMFF94 tables variant used for minimisation and energies. Its 'MMFF94s+' tables add torsion
 * parameters where MMFF94s has none and falls back on its empirical rule, so their energies left RDKit's MMFF94s
 * on ordinary drugs (diltiazem 95.3 against 105.1 kcal/mol, carbamazepine 21.4 against 42.4, imatinib 69.5 against
 * 71.3, on the same coordinates); with the 'MMFF94s' tables OpenChemLib's energy equals RDKit's MMFF94s within
 * 0.01 kcal/mol on 74 of 74 molecules of RDKit's data files (test/tools/generate_3d.oracle.test.ts). What still
 * differs, aromatic rings of other than 5 or 6 atoms, is said in the answer (sevenRingNote in tools/generate_3d.ts).
 */
export const FORCE_FIELD = "MMFF94s";
/** The force field as the answer names it: MMFF94s, as OpenChemLib implements it. */
export const FORCE_FIELD_LABEL = "MMFF94s (OpenChemLib)";

let ocl: OCLModule | undefined;
/** Path (property names) from a ConformerGenerator to its rigid-fragment cache field; null if not found. */
let cachePath: string[] | null = null;

/**
 * OpenChemLib keeps one process-wide cache of rigid-fragment geometries, filled by whichever molecule
 * first needed a fragment (and in that molecule's atom order). Left alone, a molecule's coordinates depend
 * on what the worker built before: the same seed gave coordinates up to 0.03 Å apart. So each call starts
 * with an empty cache (its Java API's clear(); fragments repeated within one molecule still share
 * geometries). The cache is not part of the JavaScript API, so its field is found by what defines it: it
 * is the one object that two freshly made generators share.
 */
function findCachePath(OCL: OCLModule): string[] | null {
  const a = new OCL.ConformerGenerator(11) as unknown as Record<string, unknown>;
  const b = new OCL.ConformerGenerator(12) as unknown as Record<string, unknown>;
  const shared: string[][] = [];
  const walk = (x: Record<string, unknown>, y: Record<string, unknown>, path: string[]): void => {
    if (path.length > 3) return;
    for (const key of Object.keys(x)) {
      const u = x[key];
      const v = y[key];
      if (u === null || typeof u !== "object" || v === null || typeof v !== "object") continue;
      if (u === v) shared.push([...path, key]);
      else walk(u as Record<string, unknown>, v as Record<string, unknown>, [...path, key]);
    }
  };
  walk(a, b, []);
  return shared.length === 1 ? shared[0]! : null;
}

/** Whether generators run without the shared fragment cache (so a seed always gives the same coordinates). */
export function reproducibleSeeds(): boolean {
  loadOpenChemLib();
  return cachePath !== null;
}

function newGenerator(OCL: OCLModule, seed: number): OCLTypes.ConformerGenerator {
  const generator = new OCL.ConformerGenerator(seed);
  if (cachePath !== null) {
    let holder = generator as unknown as Record<string, unknown>;
    for (const key of cachePath.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
    const field = cachePath[cachePath.length - 1]!;
    const cache = holder[field] as { clear?: unknown } | null;
    // Empty the shared cache; without a clear() run this generator with no cache at all.
    if (cache !== null && typeof cache.clear === "function") (cache.clear as () => void).call(cache);
    else holder[field] = null;
  }
  return generator;
}

/**
 * How many conformers OpenChemLib's self-organiser makes for each rigid fragment. The generator builds every
 * rigid fragment (a ring system, or an atom with its neighbours) by self-organisation, asking for 16
 * conformers and trying 12 random starts for each conformer it still needs. That was 72-94% of a drug's time
 * (docs/performance.md, "3D"), mostly spent re-finding the one geometry an aromatic ring or an sp3 atom has.
 * For one conformer the generator's first choice per fragment is its most likely one, so asking the
 * self-organiser for one conformer per fragment (then at most 12 starts) gives the same kind of answer
 * several times faster: bench/3d.ts on 42 drug-like molecules, median round trip 16.3 s -> 3.0 s (38.8x -> 9.4x
 * native RDKit ETKDG + MMFF94, same run), with the native MMFF94 energy gap to native RDKit's best of 10 ETKDG
 * conformers unchanged in median and p95 (docs/performance.md).
 * The number is not an option of OpenChemLib's API: it is the second argument of the self-organiser's
 * initializeConformers() in the compiled library, edited at load (FRAGMENT_POOL_PATTERN) to read this
 * global first. With another OpenChemLib build where the pattern is not found exactly once, the library
 * loads unedited and every call makes 16 (fragmentPoolEdited() says which).
 */
const FRAGMENT_POOL_GLOBAL = "__chematicOclFragmentPool";
/**
 * In the minified build: `t.b=A==-1?1<<1+P+(r/2|0):A,FR(t,w.Math.min(8,t.b))}` (mMaxConformers = maxConformers
 * == -1 ? 1 << (1 + freeBonds + ringBonds / 2) : maxConformers; increaseConformerPool(min(8, mMaxConformers))).
 * The edit reads `t.b=globalThis.__chematicOclFragmentPool||(...)`: the global, when set, replaces both forms
 * (-1 is the whole molecule when it has no rotatable bond, self-organised as one piece).
 */
const FRAGMENT_POOL_PATTERN =
  /(\b[\w$]+\.[\w$]+=)(([\w$]+)==-1\?1<<1\+[\w$]+\+\([\w$]+\/2\|0\):\3)(,[\w$]+\([\w$]+,[\w$]+\.Math\.min\(8,[\w$]+\.[\w$]+\)\)\})/g;
let fragmentPool: boolean | undefined;

/** Whether the self-organiser's fragment conformer count could be set (see FRAGMENT_POOL_GLOBAL). */
export function fragmentPoolEdited(): boolean {
  loadOpenChemLib();
  return fragmentPool === true;
}

/** Loads OpenChemLib with the fragment-pool edit; the unedited library when the pattern is not found once. */
function requireOpenChemLib(): OCLModule {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("openchemlib");
  const source = readFileSync(entry, "utf8");
  const unedited = () => {
    fragmentPool = false;
    const mod = require("openchemlib") as OCLModule;
    mod.Resources.registerFromNodejs();
    return mod;
  };
  if ((source.match(FRAGMENT_POOL_PATTERN)?.length ?? 0) !== 1) return unedited();
  const edited = source.replace(FRAGMENT_POOL_PATTERN, `$1globalThis.${FRAGMENT_POOL_GLOBAL}||($2)$4`);
  // require() loads an ES module from a file: write the edited build to a private directory, load, remove.
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), "chematic-ocl-"));
    const file = join(dir, "openchemlib.mjs");
    writeFileSync(file, edited, { mode: 0o600 });
    const mod = require(file) as OCLModule;
    mod.Resources.registerFromNodejs(join(dirname(entry), "resources.json"));
    fragmentPool = true;
    return mod;
  } catch {
    // No writable temporary directory (or the edited build does not load): the library as installed.
    return unedited();
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** Sets how many conformers the self-organiser makes per rigid fragment (0: OpenChemLib's 16). */
function setFragmentPool(count: number): void {
  (globalThis as Record<string, unknown>)[FRAGMENT_POOL_GLOBAL] = count;
}

/**
 * OpenChemLib, loaded synchronously (tools run synchronously inside a worker). The package is ES-module
 * only; Node 20.19+ and 22.12+ load such a package with require().
 */
export function loadOpenChemLib(): OCLModule {
  if (ocl === undefined) {
    let mod: OCLModule;
    try {
      // The force field, torsion and fragment tables are registered too (needed before ConformerGenerator).
      mod = requireOpenChemLib();
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ERR_REQUIRE_ESM")
        throw new Error(`openchemlib needs require(esm): run on Node.js 20.19+ or 22.12+ (this is ${process.version})`, { cause: e });
      throw e;
    }
    cachePath = findCachePath(mod);
    ocl = mod;
  }
  return ocl;
}

export interface ConformerOptions {
  numConformers: number;
  seed: number;
  addHydrogens: boolean;
  /** performance.now() after which no new conformer is started. */
  softDeadline: number;
  /** performance.now() after which a running minimisation stops (its conformer is kept, unconverged). */
  hardDeadline: number;
  /** Told each step as it ends (see ConformerStep), so a caller can report progress. */
  onStep?: (step: ConformerStep) => void;
  /**
   * Symmetries of the heavy-atom graph (perm[i] = the atom that atom i may stand for), so conformers
   * that differ only by a ring flip or swapped equivalent groups count as one. Identity when absent.
   */
  automorphisms?: number[][];
  /**
   * Conformers the self-organiser makes per rigid fragment: 1 (the default when one conformer is asked
   * for), or 0 for OpenChemLib's 16 (the default for several, and the retry when 1 gives no usable geometry).
   */
  fragmentConformers?: number;
}

/**
 * The steps of a conformer build, in order: "fragments" as a build starts (OpenChemLib then builds the rigid
 * fragments, seconds for a drug), "ready" once they are built, "conformer" after each conformer's MMFF94s
 * minimisation (kept, or dropped as a duplicate; a second or so each for a drug). A second "fragments" is a
 * build started again with OpenChemLib's full fragment search (see generateConformers), whose counts start over.
 */
export type ConformerStep = { step: "fragments" } | { step: "ready" } | { step: "conformer"; kept: number; duplicates: number; wanted: number };

export interface Conformer {
  /** OpenChemLib MMFF94s energy in kcal/mol. */
  energy: number;
  /** True when the minimiser met its convergence criteria. */
  converged: boolean;
  /** V2000 molfile with the hydrogens that were asked for. */
  molfile: string;
  /** Heavy-atom coordinates in molfile order (for RMSD). */
  heavy: number[][];
}

export interface ConformerSet {
  conformers: Conformer[];
  /** Conformers generated, duplicates included. */
  attempts: number;
  /** Duplicates dropped (heavy-atom RMSD, symmetry considered, below DUPLICATE_RMSD to a kept one). */
  duplicates: number;
  /** Why fewer conformers than asked were returned, if so. */
  stopReason?: "exhausted" | "time_budget" | "attempts";
  /** Conformers per rigid fragment the set was made with (1, or 0 for OpenChemLib's 16). */
  fragmentConformers: number;
}

/**
 * Largest ring the generator is given. OpenChemLib builds each ring system as one rigid fragment by
 * self-organisation, and its cost climbs steeply with the ring: cyclosporin A (CHEMBL160, one 33-membered
 * ring, 85 heavy atoms) spent 89 s initialising and 145 s more on its first conformer on the 2-core test
 * machine, far past the 45 s budget (native RDKit ETKDG + MMFF: 3 s). Beyond this size (the largest ring of
 * RDKit's SSSR) the call is refused at once rather than timing out. Smaller macrocycles still run: rifampicin
 * took 29 s, sirolimus (SSSR ring of 29 atoms) still exceeds the budget. One self-organised conformer per
 * fragment (FRAGMENT_POOL_GLOBAL) does not change this: the ring is one fragment, and cyclosporin A's
 * initializeConformers alone still took 79 s (docs/performance.md, "3D").
 */
export const MAX_RING_ATOMS = 30;

/** Two minimised conformers closer than this (heavy atoms, after superposition, Å) count as one. */
export const DUPLICATE_RMSD = 0.5;
/** Minimisation in chunks so a deadline can stop it: iterations per chunk and in total. */
const MINIMISE_CHUNK = 1000;
const MINIMISE_MAX_ITS = 4000;

interface AtomLine {
  symbol: string;
  x: number;
  y: number;
  z: number;
}

/** Atoms of a V2000 molfile's atom block: symbol and coordinates as written. */
export function molfileAtoms(molfile: string): AtomLine[] {
  const lines = molfile.split("\n");
  const counts = lines[3] ?? "";
  if (!counts.includes("V2000")) throw new Error("not a V2000 molfile");
  const n = Number.parseInt(counts.slice(0, 3), 10);
  const atoms: AtomLine[] = [];
  for (let i = 0; i < n; i++) {
    const line = lines[4 + i] ?? "";
    atoms.push({
      x: Number.parseFloat(line.slice(0, 10)),
      y: Number.parseFloat(line.slice(10, 20)),
      z: Number.parseFloat(line.slice(20, 30)),
      symbol: line.slice(31, 34).trim(),
    });
  }
  return atoms;
}

/** XYZ text (atom count, comment line, "El x y z") from a molfile's atoms, with its 4-decimal coordinates. */
export function xyzFromMolfile(molfile: string, comment: string): string {
  const atoms = molfileAtoms(molfile);
  const rows = atoms.map((a) => `${a.symbol.padEnd(2)} ${a.x.toFixed(4).padStart(10)} ${a.y.toFixed(4).padStart(10)} ${a.z.toFixed(4).padStart(10)}`);
  return `${atoms.length}\n${comment.replace(/[\r\n]+/g, " ")}\n${rows.join("\n")}\n`;
}

/** Replaces a molfile's title line (first line, at most 80 characters). */
function withTitle(molfile: string, title: string): string {
  const nl = molfile.indexOf("\n");
  return (title.length <= 80 ? title : "") + molfile.slice(nl);
}

function heavyCoordinates(molfile: string): number[][] {
  return molfileAtoms(molfile)
    .filter((a) => a.symbol !== "H")
    .map((a) => [a.x, a.y, a.z]);
}

/** Largest eigenvalue of a symmetric 4x4 matrix (cyclic Jacobi). */
function largestEigenvalue(m: number[][]): number {
  const a = m.map((row) => [...row]);
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < 4; p++) for (let q = p + 1; q < 4; q++) off += a[p]![q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < 4; p++) {
      for (let q = p + 1; q < 4; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 4; k++) {
          const akp = a[k]![p]!;
          const akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < 4; k++) {
          const apk = a[p]![k]!;
          const aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
      }
    }
  }
  return Math.max(a[0]![0]!, a[1]![1]!, a[2]![2]!, a[3]![3]!);
}

/** RMSD of two equal-length point sets after optimal superposition (Horn's quaternion method, 1987). */
function superposedRmsd(a: number[][], b: number[][]): number {
  const n = a.length;
  if (n === 0 || n !== b.length) return n === 0 ? 0 : Number.NaN;
  const centre = (pts: number[][]) => [0, 1, 2].map((k) => pts.reduce((s, p) => s + p[k]!, 0) / n);
  const ca = centre(a);
  const cb = centre(b);
  const A = a.map((p) => p.map((v, k) => v - ca[k]!));
  const B = b.map((p) => p.map((v, k) => v - cb[k]!));
  const S = [0, 1, 2].map(() => [0, 0, 0]);
  let ga = 0;
  let gb = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < 3; j++) {
      ga += A[i]![j]! ** 2;
      gb += B[i]![j]! ** 2;
      for (let k = 0; k < 3; k++) S[j]![k]! += A[i]![j]! * B[i]![k]!;
    }
  }
  const [[sxx, sxy, sxz], [syx, syy, syz], [szx, szy, szz]] = S as [[number, number, number], [number, number, number], [number, number, number]];
  const K = [
    [sxx + syy + szz, syz - szy, szx - sxz, sxy - syx],
    [syz - szy, sxx - syy - szz, sxy + syx, szx + sxz],
    [szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy],
    [sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz],
  ];
  const lambda = largestEigenvalue(K);
  return Math.sqrt(Math.max(0, (ga + gb - 2 * lambda) / n));
}

/** Smallest superposed RMSD of `b` to `a` over the molecule's symmetries (RDKit's GetBestRMS idea). */
export function bestRmsd(a: number[][], b: number[][], automorphisms: number[][] = []): number {
  let best = superposedRmsd(a, b);
  for (const perm of automorphisms) {
    if (perm.length !== b.length) continue;
    best = Math.min(
      best,
      superposedRmsd(
        a,
        perm.map((j) => b[j]!),
      ),
    );
  }
  return best;
}

/** Minimises in chunks until converged, out of iterations, or past the deadline. */
function minimise(ff: OCLTypes.ForceFieldMMFF94, hardDeadline: number): boolean {
  for (let its = 0; its < MINIMISE_MAX_ITS; its += MINIMISE_CHUNK) {
    if (ff.minimise({ maxIts: MINIMISE_CHUNK, gradTol: 1e-4, funcTol: 1e-6 }) === 0) return true;
    if (performance.now() > hardDeadline) return false;
  }
  return false;
}

/**
 * Builds up to `numConformers` distinct minimised conformers of the molecule in `molfileIn` (a 2D
 * molfile without hydrogens, as RDKit writes it), lowest energy first. Throws EMBEDDING_FAILED when
 * the generator cannot place the molecule at all.
 */
export function generateConformers(molfileIn: string, title: string, options: ConformerOptions): ConformerSet {
  const OCL = loadOpenChemLib();
  const fragmentConformers = fragmentPool === true ? (options.fragmentConformers ?? (options.numConformers === 1 ? 1 : 0)) : 0;
  if (fragmentConformers === 0) return buildConformers(OCL, molfileIn, title, options, 0);
  try {
    return buildConformers(OCL, molfileIn, title, options, fragmentConformers);
  } catch (e) {
    // One conformer per fragment can leave a degenerate geometry (a non-finite energy) or no collision-free
    // conformer where OpenChemLib's 16 find one: those molecules get the full search (same seed, so still
    // reproducible). A missing MMFF parameter fails either way and is thrown at once.
    const cause = e instanceof ToolError ? e.details.cause : undefined;
    const retry = cause === "random" || (cause === "force_field" && e instanceof ToolError && e.details.force_field_error === NOT_FINITE);
    if (!retry) throw e;
    return buildConformers(OCL, molfileIn, title, options, 0);
  }
}

const NOT_FINITE = `the ${FORCE_FIELD} energy is not finite`;

function buildConformers(OCL: OCLModule, molfileIn: string, title: string, options: ConformerOptions, fragmentConformers: number): ConformerSet {
  options.onStep?.({ step: "fragments" });
  const mol = OCL.Molecule.fromMolfile(molfileIn);
  // Seed 0 would make OpenChemLib pick a random seed: callers pass 1 or more.
  const generator = newGenerator(OCL, options.seed);
  setFragmentPool(fragmentConformers);
  if (!generator.initializeConformers(mol, { strategy: OCL.ConformerGenerator.STRATEGY_LIKELY_RANDOM })) {
    throw embeddingFailed("OpenChemLib's conformer generator reported a structure problem", "structure");
  }
  options.onStep?.({ step: "ready" });
  const maxAttempts = options.numConformers * 3 + 2;
  const kept: Conformer[] = [];
  let attempts = 0;
  let duplicates = 0;
  let stopReason: ConformerSet["stopReason"];

  while (kept.length < options.numConformers) {
    if (attempts >= maxAttempts) {
      stopReason = "attempts";
      break;
    }
    if (attempts > 0 && performance.now() > options.softDeadline) {
      stopReason = "time_budget";
      break;
    }
    const conformer = generator.getNextConformerAsMolecule();
    if (conformer === null) {
      stopReason = "exhausted";
      break;
    }
    attempts++;
    let ff: OCLTypes.ForceFieldMMFF94;
    try {
      ff = new OCL.ForceFieldMMFF94(conformer, FORCE_FIELD);
    } catch (e) {
      // No MMFF parameters for an element or atom type (metals such as Pt, B, Se, a * dummy atom). The
      // generator's own geometry is not minimised and not checked (a square-planar Pt(II) came out
      // tetrahedral, fused heteroaromatics 80-90 kcal/mol above their minimum), so none is returned.
      throw noForceField(
        String((e as Error)?.message ?? e)
          .replace(/^Class\$\S+: /, "")
          .replace("(?)", "(*, a dummy atom)"),
      );
    }
    // A lone atom has nothing to minimise (the minimiser reports no convergence for it).
    const converged = conformer.getAllAtoms() < 2 || minimise(ff, options.hardDeadline);
    const energy = ff.getTotalEnergy();
    if (!Number.isFinite(energy)) throw noForceField(NOT_FINITE);
    let out: OCLMolecule = conformer;
    if (!options.addHydrogens) {
      out = conformer.getCompactCopy();
      out.removeExplicitHydrogens();
    }
    const molfile = withTitle(out.toMolfile(), title);
    const heavy = heavyCoordinates(molfile);
    if (kept.some((k) => bestRmsd(k.heavy, heavy, options.automorphisms) < DUPLICATE_RMSD)) duplicates++;
    else kept.push({ energy, converged, molfile, heavy });
    options.onStep?.({ step: "conformer", kept: kept.length, duplicates, wanted: options.numConformers });
  }
  if (kept.length === 0) throw embeddingFailed("OpenChemLib's conformer generator found no collision-free conformer", "random");
  kept.sort((a, b) => a.energy - b.energy);
  const set: ConformerSet = { conformers: kept, attempts, duplicates, fragmentConformers };
  if (stopReason !== undefined && kept.length < options.numConformers) set.stopReason = stopReason;
  return set;
}

/**
 * Why an embedding failed, in details.cause: "random" (this seed's random torsion choices found nothing; another
 * seed may succeed), "structure" (the generator rejects the structure: every seed fails), "force_field" (no
 * MMFF94s parameters for an atom, so no geometry could be minimised or checked: every seed fails), "macrocycle"
 * (a ring too large for the generator within the time budget, refused before it starts).
 */
export type EmbeddingCause = "random" | "structure" | "force_field" | "macrocycle";

const EMBEDDING_HINTS: Record<EmbeddingCause, string> = {
  random: "The conformer generator's random choices found no conformer with this seed: try another seed, or a simpler form of the molecule.",
  structure: "Every seed fails for this structure: check it for unusual valences, charges or strained ring systems, or send a simpler form of the molecule.",
  force_field:
    "Every seed fails: MMFF94s has no parameters for an atom (details.force_field_error names it; metals such as Pt, B, Se, dummy atoms *). Replace that atom (e.g. * by H or a methyl) or build metal complexes with a tool that parameterises them.",
  macrocycle: `Every seed fails the same way: OpenChemLib builds a ring as one rigid piece, and a ring of more than ${MAX_RING_ATOMS} atoms takes minutes (details.largest_ring). Use a distance-geometry embedder (RDKit ETKDG) for such macrocycles, or send a smaller ring system.`,
};

export function embeddingFailed(reason: string, cause: EmbeddingCause, details: Record<string, unknown> = {}): ToolError {
  return new ToolError("EMBEDDING_FAILED", `Could not build 3D coordinates: ${reason}`, { reason, cause, ...details }, EMBEDDING_HINTS[cause]);
}

function noForceField(message: string): ToolError {
  return embeddingFailed(`no ${FORCE_FIELD} parameters for this molecule, so no minimised geometry`, "force_field", { force_field_error: message });
}
