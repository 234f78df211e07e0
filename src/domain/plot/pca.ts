/**
 * Principal component analysis of binary fingerprints (each row the set of its on bits), to two components,
 * deterministic: the same rows in the same order give the same coordinates on every machine and run.
 *
 * Method: the covariance of the bits that are set in some row (d of them, at most the fingerprint's length) is
 * formed from the rows' sparse bit sets (co-occurrence counts, n * k^2 additions for k on bits a row, then
 * C = (XᵀX - n μμᵀ) / (n - 1)), and its largest eigenpairs are found by Lanczos iteration with full
 * reorthogonalisation from a fixed pseudo-random start vector, the small tridiagonal matrix solved by cyclic
 * Jacobi rotations. This is the same decomposition as an SVD of the centred rows (numpy.linalg.svd of X - mean):
 * the right singular vectors are C's eigenvectors and the squared singular values (n - 1) times its eigenvalues.
 *
 * Sign convention (an eigenvector's sign is arbitrary): each component's loading with the largest absolute value
 * is positive (the lowest bit index first among equal magnitudes), so the coordinates never flip between runs.
 * The explained-variance ratio of a component is its eigenvalue over the trace of C (the total variance of the
 * bits), as scikit-learn's explained_variance_ratio_.
 */

export interface PcaResult {
  /** Row i's coordinates: coordinates[2i] on the first component, coordinates[2i + 1] on the second. */
  coordinates: Float64Array;
  /** Each component's share of the total variance. */
  explainedVarianceRatio: [number, number];
  /** Bits set in some row (the covariance's dimension). */
  activeBits: number;
  /** Lanczos steps taken. */
  iterations: number;
}

/** Residual, relative to the largest eigenvalue, under which a Ritz pair counts as converged. */
const RITZ_TOLERANCE = 1e-12;
/** Lanczos steps at most (the Krylov space never needs more than the covariance's dimension). */
const MAX_LANCZOS_STEPS = 300;

/** A fixed pseudo-random sequence in [-0.5, 0.5) (xorshift32 from a constant seed): the start vector. */
function startVector(d: number): Float64Array {
  let s = 0x9e3779b9;
  const v = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    v[i] = s / 2 ** 32 - 0.5;
  }
  return v;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Eigen-decomposition of a small dense symmetric matrix (row-major m x m) by cyclic Jacobi rotations. */
function jacobiEigen(a: Float64Array, m: number): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(m * m);
  for (let i = 0; i < m; i++) v[i * m + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < m; p++) for (let q = p + 1; q < m; q++) off += a[p * m + q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < m; p++) {
      for (let q = p + 1; q < m; q++) {
        const apq = a[p * m + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * m + q]! - a[p * m + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < m; k++) {
          const akp = a[k * m + p]!;
          const akq = a[k * m + q]!;
          a[k * m + p] = c * akp - s * akq;
          a[k * m + q] = s * akp + c * akq;
        }
        for (let k = 0; k < m; k++) {
          const apk = a[p * m + k]!;
          const aqk = a[q * m + k]!;
          a[p * m + k] = c * apk - s * aqk;
          a[q * m + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < m; k++) {
          const vkp = v[k * m + p]!;
          const vkq = v[k * m + q]!;
          v[k * m + p] = c * vkp - s * vkq;
          v[k * m + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(m);
  for (let i = 0; i < m; i++) values[i] = a[i * m + i]!;
  return { values, vectors: v };
}

/**
 * The two leading principal components of `rows` (each the ascending or unordered on-bit indices of one
 * fingerprint of `nBits` bits). Needs at least two rows; when the bits do not vary (every row alike) the
 * coordinates are all 0 and the ratios 0.
 */
export function fingerprintPca(rows: ReadonlyArray<ArrayLike<number>>, nBits: number): PcaResult {
  const n = rows.length;
  if (n < 2) throw new Error("PCA needs at least two rows");
  // The bits set in some row, renumbered 0..d-1 in bit order.
  const index = new Int32Array(nBits).fill(-1);
  const counts = new Float64Array(nBits);
  for (const row of rows) for (let j = 0; j < row.length; j++) counts[row[j]!]!++;
  let d = 0;
  for (let b = 0; b < nBits; b++) if (counts[b]! > 0) index[b] = d++;
  const mean = new Float64Array(d);
  for (let b = 0; b < nBits; b++) if (index[b]! >= 0) mean[index[b]!] = counts[b]! / n;
  const compact = rows.map((row) => Int32Array.from(row, (b) => index[b]!));

  // C = (XᵀX - n μμᵀ) / (n - 1), dense over the active bits.
  const cov = new Float64Array(d * d);
  for (const row of compact) {
    for (let i = 0; i < row.length; i++) {
      const base = row[i]! * d;
      for (let j = 0; j < row.length; j++) cov[base + row[j]!]!++;
    }
  }
  let trace = 0;
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) cov[i * d + j] = (cov[i * d + j]! - n * mean[i]! * mean[j]!) / (n - 1);
    trace += cov[i * d + i]!;
  }
  const zero = (): PcaResult => ({ coordinates: new Float64Array(2 * n), explainedVarianceRatio: [0, 0], activeBits: d, iterations: 0 });
  if (d === 0 || trace <= 0) return zero();

  const { vectors, values, iterations } = lanczosTop2(cov, d);
  const ratios: [number, number] = [Math.max(0, values[0]!) / trace, Math.max(0, values[1] ?? 0) / trace];
  // Sign convention: each loading vector's largest-magnitude entry positive (lowest bit first on ties).
  for (const v of vectors) {
    let at = 0;
    for (let i = 1; i < d; i++) if (Math.abs(v[i]!) > Math.abs(v[at]!) * (1 + 1e-9)) at = i;
    if (v[at]! < 0) for (let i = 0; i < d; i++) v[i] = -v[i]!;
  }
  const coordinates = new Float64Array(2 * n);
  vectors.forEach((v, k) => {
    const shift = dot(mean, v);
    compact.forEach((row, r) => {
      let s = 0;
      for (let j = 0; j < row.length; j++) s += v[row[j]!]!;
      coordinates[2 * r + k] = s - shift;
    });
  });
  return { coordinates, explainedVarianceRatio: ratios, activeBits: d, iterations };
}

/** The two largest eigenpairs of the dense symmetric d x d matrix `a` (Lanczos, full reorthogonalisation). */
function lanczosTop2(a: Float64Array, d: number): { values: number[]; vectors: Float64Array[]; iterations: number } {
  const maxSteps = Math.min(d, MAX_LANCZOS_STEPS);
  const basis: Float64Array[] = [];
  const alpha: number[] = [];
  const beta: number[] = [];
  let q = startVector(d);
  const norm0 = Math.sqrt(dot(q, q));
  for (let i = 0; i < d; i++) q[i] = q[i]! / norm0;
  const w = new Float64Array(d);
  let result: { values: number[]; y: Float64Array[] } | undefined;
  for (let step = 0; step < maxSteps; step++) {
    basis.push(q);
    for (let i = 0; i < d; i++) {
      let s = 0;
      const row = i * d;
      for (let j = 0; j < d; j++) s += a[row + j]! * q[j]!;
      w[i] = s;
    }
    alpha.push(dot(q, w));
    // Full reorthogonalisation, twice ("twice is enough"): keeps the basis orthogonal to working precision.
    for (let pass = 0; pass < 2; pass++) {
      for (const b of basis) {
        const c = dot(b, w);
        for (let i = 0; i < d; i++) w[i] = w[i]! - c * b[i]!;
      }
    }
    const b = Math.sqrt(dot(w, w));
    const m = basis.length;
    const done = m === maxSteps || b < 1e-14 * Math.max(1, Math.abs(alpha[0]!));
    if (done || (m >= 4 && m % 4 === 0)) {
      const t = new Float64Array(m * m);
      for (let i = 0; i < m; i++) {
        t[i * m + i] = alpha[i]!;
        if (i + 1 < m) t[i * m + i + 1] = t[(i + 1) * m + i] = beta[i]!;
      }
      const eig = jacobiEigen(t, m);
      const order = [...eig.values.keys()].sort((x, y) => eig.values[y]! - eig.values[x]! || x - y);
      const top = order.slice(0, 2);
      const values = top.map((k) => eig.values[k]!);
      const scale = Math.max(Math.abs(values[0]!), 1e-300);
      // A Ritz pair's residual is |β_m * last component of its eigenvector of T|.
      const converged = top.every((k) => Math.abs(b * eig.vectors[(m - 1) * m + k]!) <= RITZ_TOLERANCE * scale);
      result = { values, y: top.map((k) => Float64Array.from({ length: m }, (_, i) => eig.vectors[i * m + k]!)) };
      if (done || converged) break;
    }
    beta.push(b);
    q = Float64Array.from(w, (x) => x / b);
  }
  const vectors = result!.y.map((y) => {
    const v = new Float64Array(d);
    y.forEach((c, i) => {
      const bi = basis[i]!;
      for (let j = 0; j < d; j++) v[j] = v[j]! + c * bi[j]!;
    });
    const nv = Math.sqrt(dot(v, v));
    return v.map((x) => x / nv);
  });
  return { values: result!.values, vectors, iterations: basis.length };
}
