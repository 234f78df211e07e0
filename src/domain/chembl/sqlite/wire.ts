/**
 * A declared ChEMBL record (records/) in the web API's shape, built from the dump's rows: each API key its
 * fields read, filled from the row value their declaration names ("alias.column"; null when the row or the
 * value is absent), so the offline answers go through the web API's readers (normalise.ts) unchanged. The rows
 * of one record come as a row set: under each alias its row (an object, or an array of values read by position),
 * or under a nested list's alias the row sets of its items.
 */
import { apiPaths, type Field, type RecordDecl } from "../records/record.js";

type RowSet = Readonly<Record<string, unknown>>;
/** For an alias whose row is an array of values (an activity page's row), each column's position in it. */
type Positions = Readonly<Record<string, Readonly<Record<string, number>>>>;

export interface WireShape {
  /** The record's API keys, in the order its fields first read them. */
  readonly keys: readonly string[];
  /** Its values under those keys. */
  values(rows: RowSet): unknown[];
  /** The record as an object. */
  record(rows: RowSet): Record<string, unknown>;
}

type Fill = (rows: RowSet) => unknown;

function present(row: unknown): boolean {
  return row !== undefined && row !== null;
}

function split(source: string): [alias: string, column: string] {
  const dot = source.indexOf(".");
  if (dot <= 0) throw new Error(`${source}: a dump source is "alias.column"`);
  return [source.slice(0, dot), source.slice(dot + 1)];
}

function column(source: string, positions: Positions): Fill {
  const [alias, name] = split(source);
  const at = positions[alias];
  if (at === undefined) return (rows) => (rows[alias] as Record<string, unknown> | undefined)?.[name] ?? null;
  const i = at[name];
  if (i === undefined) throw new Error(`${source}: no position for the column`);
  return (rows) => (rows[alias] as unknown[] | undefined)?.[i] ?? null;
}

/** The dump sources of a scalar field, one per API path (null: the dump does not hold it). */
function sourcesOf(field: Field, paths: readonly string[]): ReadonlyArray<string | null> {
  const sqlite = field.sqlite;
  const sources = sqlite === null || sqlite === undefined ? paths.map(() => null) : typeof sqlite === "string" ? [sqlite] : sqlite;
  if (sources.length !== paths.length) throw new Error(`${field.name}: one dump source per API key`);
  return sources;
}

/** The API shape of a declaration, compiled once: where an alias's row is an array, `positions` says where its columns are. */
export function wireShape(decl: RecordDecl, positions: Positions = {}): WireShape {
  const fills = new Map<string, Fill>();
  const nested = new Map<string, { alias: string; entries: Array<[string, Fill]> }>();
  const fill = (key: string, f: Fill) => {
    if (fills.has(key)) throw new Error(`${key}: filled by two fields`);
    fills.set(key, f);
  };
  for (const field of decl.fields) {
    // A field without a source is read from a key another field's source fills (a count, a flag of the abstract).
    if (field.sqlite === undefined) continue;
    const paths = apiPaths(field);
    if (field.type === "object" || (field.type === "array" && "fields" in field.items)) {
      const alias = field.sqlite;
      if (typeof alias !== "string" || paths.length !== 1) throw new Error(`${field.name}: a nested record names one API key and the alias of its rows`);
      if (field.type === "object") {
        const inner = wireShape(field.of, positions);
        fill(paths[0]!, (rows) => (present(rows[alias]) ? inner.record(rows) : null));
      } else {
        const inner = wireShape(field.items as RecordDecl, positions);
        fill(paths[0]!, (rows) => (rows[alias] as RowSet[]).map((item) => inner.record(item)));
      }
      continue;
    }
    const sources = sourcesOf(field, paths);
    paths.forEach((path, i) => {
      const source = sources[i]!;
      const get: Fill = source === null ? () => null : column(source, positions);
      const [head, ...rest] = path.split(".");
      if (rest.length === 0) {
        fill(head!, get);
        return;
      }
      // A key of a nested object (molecule_hierarchy.parent_chembl_id): the object is null when its row is absent.
      let group = nested.get(head!);
      if (group === undefined) {
        if (source === null) throw new Error(`${field.name}: a nested API key needs a dump row`);
        const g = { alias: split(source)[0], entries: [] as Array<[string, Fill]> };
        nested.set(head!, g);
        fill(head!, (rows) => (present(rows[g.alias]) ? Object.fromEntries(g.entries.map(([k, f]) => [k, f(rows)])) : null));
        group = g;
      }
      group.entries.push([rest.join("."), get]);
    });
  }
  const keys = [...fills.keys()];
  const all = [...fills.values()];
  // Each record starts as a copy of one with every key in place, so a page's records share one object shape.
  const blank: Record<string, unknown> = Object.fromEntries(keys.map((key) => [key, null]));
  return {
    keys,
    values: (rows) => {
      const out = new Array<unknown>(all.length);
      for (let i = 0; i < all.length; i++) out[i] = all[i]!(rows);
      return out;
    },
    record: (rows) => {
      const out = { ...blank };
      for (let i = 0; i < all.length; i++) out[keys[i]!] = all[i]!(rows);
      return out;
    },
  };
}

/** The columns of one alias's row a declaration reads (its nested records' too), in field order. */
export function columnsOf(decl: RecordDecl, alias: string): string[] {
  const out = new Set<string>();
  for (const field of decl.fields) {
    if (field.type === "object") columnsOf(field.of, alias).forEach((c) => out.add(c));
    else if (field.type === "array" && "fields" in field.items) columnsOf(field.items, alias).forEach((c) => out.add(c));
    const sqlite = field.sqlite;
    for (const source of typeof sqlite === "string" ? [sqlite] : (sqlite ?? [])) {
      if (!source.includes(".")) continue;
      const [a, c] = split(source);
      if (a === alias) out.add(c);
    }
  }
  return [...out];
}
