/**
 * The vocabulary a ChEMBL record is declared in, once (the other files of records/): its fields in the order the
 * answers give them, each with its JSON type and nullability, its schema description, where the web API record
 * holds it, which value of the offline dump's rows fills that place, and how the markdown twin shows it. The
 * record's TypeScript type follows from its declaration (RecordOf); normalise.ts derives from it the web API
 * reader and the `only=` list, sqlite/wire.ts the dump's rows in the API's shape, and the tools the output schema
 * (chembl-common.ts) and the markdown columns (chembl-markdown.ts).
 */
import type { Json } from "../request.js";

export type ScalarType = "string" | "number" | "integer" | "boolean";

interface FieldBase {
  readonly name: string;
  readonly description: string;
  /** false for a value every record has (a count, a list, a flag the record computes); otherwise null means ChEMBL did not say. */
  readonly nullable?: false;
  /**
   * Where the web API record holds it: a key, or a dotted path into a nested object ("molecule_hierarchy.parent_chembl_id");
   * several keys: the first that reads a value; null: not in the web record (filled in later). Default: the key of the
   * field's own name. The `only=` list the service sends is these keys (their heads).
   */
  readonly api?: string | readonly string[] | null;
  /**
   * What fills that place when the offline source (sqlite/rest.ts) builds the record in the API's shape from the
   * dump: "alias.column" of the rows the record is read from (each declaration lists its aliases), one per key when
   * api lists several; null when the dump does not hold it (it reads null offline); absent when another field's
   * source fills the same key. For a nested record: the alias of its row (no row, no object) or of its list.
   */
  readonly sqlite?: string | readonly string[] | null;
  /**
   * How the markdown twin shows it: "code" in a code span (structures); "spread" its object's fields as columns of
   * their own; "cell" its nested records summed up in one cell (the tool writes it). Default: its value as text.
   */
  readonly markdown?: "code" | "spread" | "cell";
}

interface ScalarField extends FieldBase {
  readonly type: ScalarType;
  /** The schema's minimum (counts). */
  readonly minimum?: number;
  /** The reading of the value at `api`, when the type's own is not it (max_phase's known values, the 0-9 confidence score). */
  readonly as?: (v: unknown) => unknown;
  /** A reading of the whole web record, when one value does not say it (a count, a cut abstract): it reads the keys `api` names. */
  readonly read?: (raw: Json) => unknown;
}

interface ObjectField extends FieldBase {
  readonly type: "object";
  readonly of: RecordDecl;
}

interface StringItems {
  readonly type: "string";
  readonly description: string;
}

interface ListField extends FieldBase {
  readonly type: "array";
  readonly nullable: false;
  readonly items: RecordDecl | StringItems;
  /** The most items kept. */
  readonly max?: number;
  /** As ScalarField's read (a list the web record does not hold as such). */
  readonly read?: (raw: Json) => unknown;
}

export type Field = ScalarField | ObjectField | ListField;

/** How a record is laid out in markdown: table columns (by default its fields in order), or lines of fields (a document). */
type MarkdownLayout = { readonly columns: readonly string[] } | { readonly lines: ReadonlyArray<readonly string[]> };

export interface RecordDecl {
  /** The schema description of one record (a record held in an object field is described by the field). */
  readonly description?: string;
  /** Whether answers leave out the record's null fields and empty lists (its schema then requires none). */
  readonly compact?: boolean;
  readonly fields: readonly Field[];
  /** The `only=` list, when it is not the API keys in field order (it then holds the same keys). */
  readonly only?: readonly string[];
  readonly markdown?: MarkdownLayout;
}

type Nulls<F> = F extends { readonly nullable: false } ? never : null;
type ScalarOf<T> = T extends "string" ? string : T extends "boolean" ? boolean : number;

/** The value type of a declared field. */
type ValueOf<F> = F extends { readonly type: "array"; readonly items: infer I }
  ? Array<I extends RecordDecl ? RecordOf<I> : string>
  : F extends { readonly type: "object"; readonly of: infer D extends RecordDecl }
    ? RecordOf<D> | Nulls<F>
    : F extends { readonly type: infer T }
      ? ScalarOf<T> | Nulls<F>
      : never;

/** The record a declaration describes: each field under its name, of its declared type. */
export type RecordOf<D extends RecordDecl> = { -readonly [F in D["fields"][number] as F["name"]]: ValueOf<F> };

export type FieldName<D extends RecordDecl> = D["fields"][number]["name"];

/** A field whose own reading (read, as) gives its declared type. */
type Checked<F> = F extends { readonly read: unknown }
  ? { readonly read: (raw: Json) => ValueOf<F> }
  : F extends { readonly as: unknown }
    ? { readonly as: (v: unknown) => ValueOf<F> }
    : unknown;

/** What the compiler checks of a declaration beyond its shape: readings of the declared types, layouts naming its fields. */
type Consistent<D extends RecordDecl> = {
  readonly fields: { readonly [I in keyof D["fields"]]: Checked<D["fields"][I]> };
  readonly markdown?: { readonly columns: ReadonlyArray<FieldName<D>> } | { readonly lines: ReadonlyArray<ReadonlyArray<FieldName<D>>> };
};

/** The API keys or dotted paths a field reads (none for a field the web record does not hold). */
export function apiPaths(field: Field): readonly string[] {
  const api = field.api === undefined ? field.name : field.api;
  return api === null ? [] : typeof api === "string" ? [api] : api;
}

/** A record declaration, its literal types kept (so RecordOf can read them) and checked for consistency. */
export function declareRecord<const D extends RecordDecl>(decl: D & Consistent<D>): D {
  return decl;
}
