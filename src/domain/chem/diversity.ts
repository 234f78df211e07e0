/**
 * Clustering and diversity picking on fingerprint bit vectors, written after RDKit's published algorithms
 * (read and re-expressed here, not copied):
 *  - Butina, D. "Unsupervised Data Base Clustering Based on Daylight's Fingerprint and Tanimoto Similarity",
 *    J. Chem. Inf. Comput. Sci. 1999, 39, 747-750, as rdkit.ML.Cluster.Butina.ClusterData (isDistData,
 *    reordering off) runs it on the lower-triangle distance matrix 1 - TanimotoSimilarity;
 *  - MaxMin: Ashton, M. et al., Quant. Struct.-Act. Relat. 2002, 21, 598-604, as RDKit's
 *    MaxMinPicker::lazyPick (Code/SimDivPickers/MaxMinPicker.h) runs it for LazyBitVectorPick, distances
 *    1 - TanimotoSimilarity computed when needed.
 * Distances are computed with the same double operations as RDKit (common / (a + b - common), 1.0 for two
 * empty vectors, then 1 - s), so every threshold comparison and tie falls as it does there.
 */

/** Number of set bits in a 32-bit word. */
function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

function countBits(words: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) n += popcount32(words[i]!);
  return n;
}

/** RDKit's TanimotoSimilarity of two bit vectors of the same length (1.0 when both are empty). */
function similarity(a: Uint32Array, b: Uint32Array, countA: number, countB: number): number {
  const total = countA + countB;
  if (total === 0) return 1;
  let common = 0;
  for (let i = 0; i < a.length; i++) common += popcount32(a[i]! & b[i]!);
  return common / (total - common);
}

/** The on bits of each vector, and for each bit the vectors that have it (an inverted index, for counting common bits fast). */
function onBitLists(fps: readonly Uint32Array[]): { bits: Int32Array[]; postings: Int32Array[] } {
  const nBits = (fps[0]?.length ?? 0) * 32;
  const bits: Int32Array[] = [];
  const counts = new Int32Array(nBits);
  for (const words of fps) {
    const on: number[] = [];
    for (let w = 0; w < words.length; w++) {
      let v = words[w]!;
      while (v !== 0) {
        const low = v & -v;
        on.push(w * 32 + (31 - Math.clz32(low)));
        v ^= low;
      }
    }
    for (const b of on) counts[b]!++;
    bits.push(Int32Array.from(on));
  }
  const postings = Array.from(counts, (c) => new Int32Array(c));
  const fill = new Int32Array(nBits);
  bits.forEach((on, i) => {
    for (const b of on) postings[b]![fill[b]!++] = i;
  });
  return { bits, postings };
}

/**
 * Butina clusters: each a list of indices into `fps`, its centroid first, then its other members in index
 * order; clusters in the order RDKit finds them (centroids by neighbour count, ties to the higher index).
 * Neighbours are pairs at distance 1 - Tanimoto <= threshold. `check` is called every 64 vectors with how many
 * have been compared with all before them (for budgets and progress: vector i is compared with i others).
 */
export function butinaClusters(fps: readonly Uint32Array[], threshold: number, check: (compared: number) => void = () => {}): number[][] {
  const n = fps.length;
  const { bits, postings } = onBitLists(fps);
  const counts = bits.map((b) => b.length);
  const neighbours: number[][] = fps.map(() => []);
  const common = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if ((i & 63) === 0) check(i);
    // Common bits with every earlier vector: the postings of i's bits, each earlier index counted once per shared bit.
    for (const b of bits[i]!) {
      const list = postings[b]!;
      for (let k = 0; k < list.length; k++) {
        const j = list[k]!;
        if (j >= i) break;
        common[j]!++;
      }
    }
    const a = counts[i]!;
    for (let j = 0; j < i; j++) {
      const c = common[j]!;
      common[j] = 0;
      const total = a + counts[j]!;
      const s = total === 0 ? 1 : c / (total - c);
      if (1 - s <= threshold) {
        neighbours[i]!.push(j);
        neighbours[j]!.push(i);
      }
    }
  }
  // neighbours[k] is ascending: the lower indices pushed while k was i, the higher ones afterwards.
  const order = Array.from({ length: n }, (_, i) => i).sort((p, q) => neighbours[q]!.length - neighbours[p]!.length || q - p);
  const seen = new Uint8Array(n);
  const clusters: number[][] = [];
  for (const idx of order) {
    if (seen[idx]) continue;
    const members = [idx];
    for (const nbr of neighbours[idx]!) {
      if (!seen[nbr]) {
        members.push(nbr);
        seen[nbr] = 1;
      }
    }
    clusters.push(members);
  }
  return clusters;
}

/**
 * MaxMin picks: `firstPicks` (distinct indices), then one at a time the pool entry whose smallest distance
 * to the picks so far is largest (the first such entry in index order on ties), until `pickSize` are
 * picked. RDKit's lazy evaluation, step for step: each entry keeps a bound (its distance to the picks it
 * has been compared with) and is compared with newer picks only while its bound beats the best so far.
 */
export function maxMinPicks(fps: readonly Uint32Array[], pickSize: number, firstPicks: readonly number[], check: () => void = () => {}): number[] {
  const n = fps.length;
  const counts = fps.map(countBits);
  const dist = (i: number, j: number) => 1 - similarity(fps[i]!, fps[j]!, counts[i]!, counts[j]!);
  const picks = [...firstPicks];
  if (picks.length >= pickSize) return picks;
  const picked = new Uint8Array(n);
  for (const p of picks) picked[p] = 1;
  // The pool as a linked list in index order: head, then next[i].
  const next = new Int32Array(n).fill(-1);
  let head = -1;
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (picked[i]) continue;
    if (last < 0) head = i;
    else next[last] = i;
    last = i;
  }
  const bound = new Float64Array(n);
  const compared = new Int32Array(n);
  for (let i = head; i >= 0; i = next[i]!) {
    bound[i] = dist(i, picks[0]!);
    compared[i] = 1;
  }
  while (picks.length < pickSize) {
    check();
    let best = -1.0;
    let pick = -1;
    let pickPrev = -1;
    for (let prev = -1, i = head; i >= 0; prev = i, i = next[i]!) {
      let minToI = bound[i]!;
      if (!(minToI > best)) continue;
      let k = compared[i]!;
      while (k < picks.length) {
        const d = dist(i, picks[k]!);
        k++;
        if (d <= minToI) {
          minToI = d;
          if (minToI <= best) break;
        }
      }
      bound[i] = minToI;
      compared[i] = k;
      if (minToI > best) {
        best = minToI;
        pick = i;
        pickPrev = prev;
      }
    }
    if (pickPrev < 0) head = next[pick]!;
    else next[pickPrev] = next[pick]!;
    picks.push(pick);
  }
  return picks;
}

/** The smallest distance (1 - Tanimoto) from vector i to the vectors `others`. */
export function minDistanceTo(fps: readonly Uint32Array[], i: number, others: readonly number[]): number {
  let best = Infinity;
  const a = fps[i]!;
  const countA = countBits(a);
  for (const j of others) best = Math.min(best, 1 - similarity(a, fps[j]!, countA, countBits(fps[j]!)));
  return best;
}

/**
 * The first pick RDKit's lazyPick draws when it is given no first picks and a seed >= 0: boost::mt19937
 * seeded with `seed`, one draw of boost::uniform_int<>(0, poolSize - 1) (its bucket rejection: the 32-bit
 * output divided by the bucket size, drawn again past the range).
 */
export function seededFirstPick(poolSize: number, seed: number): number {
  const mt = new Uint32Array(624);
  mt[0] = seed >>> 0;
  for (let i = 1; i < 624; i++) {
    const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
    mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
  }
  let index = 624;
  const draw = (): number => {
    if (index >= 624) {
      for (let i = 0; i < 624; i++) {
        const y = (mt[i]! & 0x80000000) | (mt[(i + 1) % 624]! & 0x7fffffff);
        mt[i] = mt[(i + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      index = 0;
    }
    let y = mt[index++]!;
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    return (y ^ (y >>> 18)) >>> 0;
  };
  const range = poolSize - 1;
  if (range === 0) return 0;
  const brange = 0xffffffff;
  let bucket = Math.floor(brange / (range + 1));
  if (brange % (range + 1) === range) bucket++;
  for (;;) {
    const result = Math.floor(draw() / bucket);
    if (result <= range) return result;
  }
}
