/**
 * How the dump's worker hands an answer to the main thread without JSON text: a list of records sharing
 * their keys (an activity page's 1000 rows) goes column by column, numbers in a Float64Array and strings
 * as a per-column dictionary of distinct values with an Int32Array of indexes, so a page crosses the
 * thread as a few transferred buffers and short string lists instead of 1.5 MB of text that one thread
 * writes and the other parses. Anything else goes as it is.
 *
 * The decoded value is exactly what JSON.parse(JSON.stringify(value)) gives (the web path's answer): an
 * undefined property dropped, -0 as 0, a non-finite number as null, an undefined array element as null.
 */

/** One packed value. */
export type Packed =
  /** A value as JSON would give it back (structured clone carries it). */
  | { t: "v"; v: unknown }
  /** An object: its keys and each one's packed value (undefined ones dropped). */
  | { t: "o"; k: string[]; v: Packed[] }
  /** An array that is not a list of records: each element packed. */
  | { t: "a"; v: Packed[] }
  /** A list of records sharing their keys in one order. */
  | RecordList;

interface RecordList {
  t: "r";
  n: number;
  k: string[];
  c: Column[];
}

/** One key's values over a record list. */
type Column =
  /** Numbers; `z[i]` 1 where the value is null. */
  | { t: "n"; v: Float64Array<ArrayBuffer>; z: Uint8Array<ArrayBuffer> | null }
  /** Strings and nulls: `i[r]` the index in `d`, -1 for null. */
  | { t: "s"; d: string[]; i: Int32Array<ArrayBuffer> }
  /** Records sharing their keys, or null (`z[i]` 1): the others as one record list. */
  | { t: "t"; z: Uint8Array<ArrayBuffer>; r: RecordList }
  /** Anything else: each value packed. */
  | { t: "p"; v: Packed[] };

export interface PackedAnswer {
  value: Packed;
  /** The buffers to transfer with the message (the columns' typed arrays). */
  transfer: ArrayBuffer[];
  /** The length of the value's JSON text, estimated (the response cache weighs its entries by it). */
  bytes: number;
}

/** A record list is worth packing column-wise from this many records. */
const MIN_RECORDS = 2;

/**
 * Records held as rows of values under one key list (an activity page as the worker reads it): packed
 * column by column without an object per record, and written as JSON as the objects they stand for.
 */
export class RecordRows {
  constructor(
    readonly keys: readonly string[],
    readonly rows: readonly unknown[][],
  ) {}

  get length(): number {
    return this.rows.length;
  }

  toJSON(): Array<Record<string, unknown>> {
    return this.rows.map((row) => {
      const out: Record<string, unknown> = {};
      this.keys.forEach((k, j) => setOwn(out, k, row[j]));
      return out;
    });
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A plain object whose JSON is its own keys (no toJSON of its own). */
function isPlain(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && Object.getPrototypeOf(v) === Object.prototype && typeof v.toJSON !== "function";
}

/** A value JSON drops from an object (and writes null in an array). */
function dropped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

/** A JSON number as JSON.parse gives it back: -0 reads 0, NaN and infinities null. */
function jsonNumber(v: number): number | null {
  return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
}

class Packer {
  readonly transfer: ArrayBuffer[] = [];
  bytes = 0;

  pack(v: unknown): Packed {
    if (v instanceof RecordRows) return this.table(v.keys, v.rows) ?? this.pack(v.toJSON());
    if (Array.isArray(v)) {
      const list = v.length >= MIN_RECORDS ? this.records(v) : null;
      if (list) return list;
      this.bytes += 2 + v.length;
      return { t: "a", v: v.map((x) => (dropped(x) ? { t: "v", v: null } : this.pack(x))) };
    }
    if (isPlain(v)) {
      const k: string[] = [];
      const out: Packed[] = [];
      for (const key of Object.keys(v)) {
        const x = v[key];
        if (dropped(x)) continue;
        k.push(key);
        out.push(this.pack(x));
        this.bytes += key.length + 4;
      }
      return { t: "o", k, v: out };
    }
    if (typeof v === "number") {
      this.bytes += 8;
      return { t: "v", v: jsonNumber(v) };
    }
    if (typeof v === "string") this.bytes += v.length + 2;
    else this.bytes += 4;
    // Other values (strings, booleans, null, and anything JSON rewrites) exactly as JSON gives them back.
    return { t: "v", v: v === null || typeof v === "string" || typeof v === "boolean" ? v : JSON.parse(JSON.stringify(v) ?? "null") };
  }

  /** A list of plain records that all have the same keys in the same order, none dropped by JSON; else null. */
  records(rows: readonly unknown[]): RecordList | null {
    const first = rows[0];
    if (!isPlain(first)) return null;
    const k = Object.keys(first);
    const values = new Array<unknown[]>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (!isPlain(row)) return null;
      const keys = Object.keys(row);
      if (keys.length !== k.length) return null;
      for (let j = 0; j < k.length; j++) if (keys[j] !== k[j]) return null;
      values[i] = Object.values(row);
    }
    return this.table(k, values);
  }

  /** Rows of values under one key list as a record list; null when a value is one JSON drops (undefined, a function). */
  table(k: readonly string[], rows: readonly unknown[][]): RecordList | null {
    const width = k.length;
    for (const row of rows) {
      if (row.length !== width) return null;
      for (let j = 0; j < width; j++) if (dropped(row[j])) return null;
    }
    for (const key of k) this.bytes += (key.length + 4) * rows.length;
    return { t: "r", n: rows.length, k: [...k], c: k.map((_, j) => this.column(rows, j)) };
  }

  column(rows: readonly unknown[][], j: number): Column {
    let numbers = true;
    let strings = true;
    let records = true;
    let nulls = 0;
    for (const row of rows) {
      const x = row[j];
      if (x === null) {
        nulls++;
        continue;
      }
      if (typeof x !== "number") numbers = false;
      if (typeof x !== "string") strings = false;
      if (!isPlain(x)) records = false;
      if (!numbers && !strings && !records) break;
    }
    const n = rows.length;
    if (numbers) {
      const v = new Float64Array(n);
      let z: Uint8Array<ArrayBuffer> | null = null;
      for (let i = 0; i < n; i++) {
        const x = rows[i]![j] as number | null;
        const y = x === null ? null : jsonNumber(x);
        if (y === null) (z ??= new Uint8Array(n))[i] = 1;
        else v[i] = y;
      }
      this.bytes += 8 * n;
      this.transfer.push(v.buffer);
      if (z) this.transfer.push(z.buffer);
      return { t: "n", v, z };
    }
    if (strings) {
      const d: string[] = [];
      const seen = new Map<string, number>();
      const idx = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const x = rows[i]![j] as string | null;
        if (x === null) {
          idx[i] = -1;
          this.bytes += 4;
          continue;
        }
        let y = seen.get(x);
        if (y === undefined) {
          y = d.length;
          d.push(x);
          seen.set(x, y);
        }
        idx[i] = y;
        this.bytes += x.length + 2;
      }
      this.transfer.push(idx.buffer);
      return { t: "s", d, i: idx };
    }
    if (records && nulls < n) {
      const list = this.records(rows.map((r) => r[j]).filter((x) => x !== null));
      if (list) {
        const z = new Uint8Array(n);
        for (let i = 0; i < n; i++) if (rows[i]![j] === null) z[i] = 1;
        this.transfer.push(z.buffer);
        this.bytes += 4 * nulls;
        return { t: "t", z, r: list };
      }
    }
    return { t: "p", v: rows.map((r) => this.pack(r[j])) };
  }
}

/** Packs a value for postMessage (the worker side). */
export function packAnswer(value: unknown): PackedAnswer {
  const p = new Packer();
  const packed = p.pack(value);
  return { value: packed, transfer: p.transfer, bytes: p.bytes };
}

/** The value a Packed stands for, as JSON.parse(JSON.stringify(original)) would give it (the main-thread side). */
export function unpack(p: Packed): unknown {
  switch (p.t) {
    case "v":
      return p.v;
    case "a":
      return p.v.map(unpack);
    case "o": {
      const out: Record<string, unknown> = {};
      for (let j = 0; j < p.k.length; j++) setOwn(out, p.k[j]!, unpack(p.v[j]!));
      return out;
    }
    case "r":
      return unpackRecords(p);
  }
}

function columnValues(c: Column, n: number): unknown[] {
  const out = new Array<unknown>(n);
  switch (c.t) {
    case "n":
      for (let i = 0; i < n; i++) out[i] = c.z && c.z[i] === 1 ? null : c.v[i];
      return out;
    case "s":
      for (let i = 0; i < n; i++) {
        const j = c.i[i]!;
        out[i] = j < 0 ? null : c.d[j];
      }
      return out;
    case "t": {
      const present = unpackRecords(c.r);
      let next = 0;
      for (let i = 0; i < n; i++) out[i] = c.z[i] === 1 ? null : present[next++];
      return out;
    }
    case "p":
      for (let i = 0; i < n; i++) out[i] = unpack(c.v[i]!);
      return out;
  }
}

/** A key JSON.parse makes an own property of; assigning "__proto__" would set the prototype instead. */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

type Builder = (values: unknown[][], i: number) => Record<string, unknown>;

/** Record builders by key list (a dump answers a handful of shapes). */
const BUILDERS = new Map<string, Builder>();

/**
 * A function returning the i-th record as one object literal of the keys: every record gets the same
 * shape at once, which measured 6x faster to build than copying a template and setting its keys one by one,
 * and the normaliser reads such records 2x faster. The keys are written as JSON string literals (valid JS
 * for any string); "__proto__" is a computed key, so it stays an own property as JSON.parse makes it.
 */
function builder(keys: readonly string[]): Builder {
  const id = JSON.stringify(keys);
  let build = BUILDERS.get(id);
  if (!build) {
    const fields = keys.map((k, j) => `${k === "__proto__" ? `[${JSON.stringify(k)}]` : JSON.stringify(k)}: v[${j}][i]`);
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from JSON string literals only (see above)
    build = new Function("v", "i", `return { ${fields.join(", ")} };`) as Builder;
    if (BUILDERS.size >= 64) BUILDERS.delete(BUILDERS.keys().next().value!);
    BUILDERS.set(id, build);
  }
  return build;
}

function unpackRecords(p: RecordList): Array<Record<string, unknown>> {
  const values = p.c.map((c) => columnValues(c, p.n));
  const build = builder(p.k);
  const rows = new Array<Record<string, unknown>>(p.n);
  for (let i = 0; i < p.n; i++) rows[i] = build(values, i);
  return rows;
}
