/**
 * Reading molecule sets for canvas_import: SMILES lists, CSV text, SDF text (split by the same splitSdf the
 * list calls use), .smi files, and files inside CHEMATIC_IMPORT_DIR behind a path guard. Nothing here
 * touches RDKit: the records carry the text each molecule is parsed from, and the tool canonicalises them
 * in the worker pool.
 *
 * Column types are inferred per column from the text values: all integers (safe in a double) -> BIGINT,
 * all numbers -> DOUBLE, anything else -> VARCHAR; an empty value is NULL and does not vote.
 */
import { constants as fsConstants } from "node:fs";
import { lstat, open, realpath } from "node:fs/promises";
import { isAbsolute, normalize, resolve } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { splitSdf } from "../chem/input-format.js";
import { ToolError } from "../errors.js";
import type { CellValue, ColumnSpec, ColumnType } from "./tables.js";
import { isInside } from "./paths.js";

/** One molecule to import. */
interface ImportRecord {
  /** The SMILES as given (the row's `input` column), or an SDF record's title ("sdf record N" when blank) to name it in failures. */
  input: string;
  /** An SDF record's title, null when blank (the row's title column); absent for other sources. */
  title?: string | null;
  /** The text canonical SMILES is computed from (the SMILES, or the record's molblock). */
  molecule: string;
  /** An identifier (CSV id_column, a .smi line's name), when the source has one. */
  id?: string | null;
  /** Data values by column name (CSV columns, SDF tags). */
  data?: Record<string, string>;
  /** Why the record is not a molecule before any parsing (an SDF record without M  END, an empty SMILES). */
  problem?: string;
}

export interface ImportSource {
  records: ImportRecord[];
  /** Data column names, in first-seen order. */
  dataColumns: string[];
  /** Whether records carry an id. */
  hasId: boolean;
}

const INTEGER_RE = /^[+-]?\d+$/;
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The explicit type of a column of text values (see the module comment). */
export function inferColumnType(values: Iterable<string | null | undefined>): ColumnType {
  let type: ColumnType | null = null;
  for (const raw of values) {
    if (raw === null || raw === undefined) continue;
    const v = raw.trim();
    if (v === "") continue;
    if (INTEGER_RE.test(v) && Number.isSafeInteger(Number(v))) type ??= "BIGINT";
    else if (NUMBER_RE.test(v) && Number.isFinite(Number(v))) type = type === "BIGINT" || type === null ? "DOUBLE" : type;
    else return "VARCHAR";
  }
  return type ?? "VARCHAR";
}

/** A text value as a cell of `type` (empty -> NULL; numbers parsed; text kept as given). */
export function toCell(type: ColumnType, raw: string | null | undefined): CellValue {
  if (raw === null || raw === undefined || raw.trim() === "") return null;
  if (type === "BIGINT" || type === "INTEGER" || type === "DOUBLE") return Number(raw.trim());
  return raw;
}

/**
 * The refusal of an import with more data columns than CHEMATIC_IMPORT_MAX_COLUMNS allows, made before its rows are
 * read: QUERY_REFUSED with details.reason too_many_columns (the shared conventions' code for it).
 */
function tooManyColumns(columns: number, maxColumns: number, what: string, path: string): ToolError {
  return new ToolError(
    "QUERY_REFUSED",
    `The ${what} has ${columns} data columns; an import takes at most ${maxColumns} (CHEMATIC_IMPORT_MAX_COLUMNS)`,
    { reason: "too_many_columns", path, columns, max_columns: maxColumns, setting: "CHEMATIC_IMPORT_MAX_COLUMNS" },
    `Keep the columns you need (at most ${maxColumns}, e.g. with cut or a spreadsheet) and import again, or ask the operator to raise CHEMATIC_IMPORT_MAX_COLUMNS.`,
  );
}

/** RFC 4180 rows: fields separated by `delimiter`, "quoted" fields may hold delimiters, newlines and "" quotes. */
export function parseCsv(text: string, delimiter: string, maxRows = Number.POSITIVE_INFINITY): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === "") {
      quoted = true;
      i++;
    } else if (ch === delimiter) {
      row.push(field);
      field = "";
      i++;
    } else if (ch === "\n" || ch === "\r") {
      row.push(field);
      field = "";
      rows.push(row);
      row = [];
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      if (rows.length >= maxRows && !(rows[rows.length - 1]!.length === 1 && rows[rows.length - 1]![0]!.trim() === "")) return rows;
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0]!.trim() === ""));
}

/** The delimiter of a CSV: a tab when the header line holds one and no comma, a semicolon likewise, else a comma. */
export function csvDelimiter(text: string): string {
  const header = text.slice(0, text.search(/\r?\n|$/));
  if (header.includes(",")) return ",";
  if (header.includes("\t")) return "\t";
  if (header.includes(";")) return ";";
  return ",";
}

function invalid(message: string, path: string, details: Record<string, unknown> = {}, hint?: string): ToolError {
  return new ToolError("INVALID_ARGUMENTS", message, { path, ...details }, hint);
}

/** CSV text with a header: the SMILES from smiles_column, the id from id_column, every other column as data. */
export function csvSource(
  text: string,
  smilesColumn: string,
  idColumn: string | undefined,
  path = "/csv",
  maxColumns = Number.POSITIVE_INFINITY,
): ImportSource {
  const body = text.replace(/^\uFEFF/, "");
  const delimiter = csvDelimiter(text);
  // The header alone first: a file too wide is refused before its rows are parsed.
  const head = parseCsv(body, delimiter, 1)[0];
  if (head) {
    const data = head.length - 1 - (idColumn !== undefined && head.some((h) => h.trim() === idColumn) ? 1 : 0);
    if (data > maxColumns) throw tooManyColumns(data, maxColumns, "csv", path);
  }
  const rows = parseCsv(body, delimiter);
  const header = rows[0];
  if (!header) throw invalid("Invalid arguments: the csv has no header line", path);
  const names = header.map((h) => h.trim());
  const at = names.indexOf(smilesColumn);
  if (at < 0)
    throw invalid(
      `Invalid arguments: the csv has no column ${JSON.stringify(smilesColumn)}`,
      "/smiles_column",
      { columns: names.slice(0, 50) },
      "Name the SMILES column with smiles_column (one of details.columns).",
    );
  const idAt = idColumn === undefined ? -1 : names.indexOf(idColumn);
  if (idColumn !== undefined && idAt < 0)
    throw invalid(`Invalid arguments: the csv has no column ${JSON.stringify(idColumn)}`, "/id_column", { columns: names.slice(0, 50) });
  const dataAt = names.map((_, i) => i).filter((i) => i !== at && i !== idAt);
  // Header names as keys, made unique (a repeated or empty name gets _2, _3, ... or column_N).
  const seen = new Set<string>();
  const dataColumns = dataAt.map((i) => {
    const base = names[i] || `column_${i + 1}`;
    let name = base;
    for (let k = 2; seen.has(name.toLowerCase()); k++) name = `${base}_${k}`;
    seen.add(name.toLowerCase());
    return name;
  });
  const records: ImportRecord[] = rows.slice(1).map((cells) => {
    const smiles = (cells[at] ?? "").trim();
    const data: Record<string, string> = {};
    for (let k = 0; k < dataAt.length; k++) data[dataColumns[k]!] = cells[dataAt[k]!] ?? "";
    const record: ImportRecord = { input: smiles, molecule: smiles, data };
    if (idAt >= 0) record.id = cells[idAt] ?? null;
    if (smiles === "") record.problem = "the SMILES cell is empty";
    return record;
  });
  return { records, dataColumns, hasId: idAt >= 0 };
}

/** A SMILES list: each entry as given. */
export function smilesListSource(list: readonly string[]): ImportSource {
  return {
    records: list.map((s) => {
      const smiles = s.trim();
      return smiles === "" ? { input: s, molecule: s, problem: "the SMILES is empty" } : { input: smiles, molecule: smiles };
    }),
    dataColumns: [],
    hasId: false,
  };
}

/** A .smi text: one molecule a line, the SMILES then (after a space or tab) its name; blank and # lines skipped, a "SMILES ..." header line too. */
export function smiSource(text: string): ImportSource {
  const records: ImportRecord[] = [];
  let first = true;
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const m = /^(\S+)(?:\s+(.*))?$/.exec(trimmed)!;
    if (first && m[1]!.toLowerCase() === "smiles") {
      first = false;
      continue;
    }
    first = false;
    records.push({ input: m[1]!, molecule: m[1]!, id: m[2]?.trim() || null });
  }
  return { records, dataColumns: [], hasId: true };
}

/** SDF text: one record a molecule (splitSdf), its title as `title` (and as `input`, "sdf record N" when blank), its data items as data. */
export function sdfSource(text: string, firstRecord = 1, maxColumns = Number.POSITIVE_INFINITY, path = "/sdf"): ImportSource {
  const dataColumns: string[] = [];
  const seen = new Set<string>();
  const records = splitSdf(text).map((r, i): ImportRecord => {
    const input = r.title !== "" ? r.title : `sdf record ${firstRecord + i}`;
    for (const tag of Object.keys(r.properties ?? {}))
      if (!seen.has(tag)) {
        seen.add(tag);
        dataColumns.push(tag);
        // Refused as soon as the distinct data items pass the cap, before any row reaches the canvas.
        if (dataColumns.length > maxColumns) throw tooManyColumns(dataColumns.length, maxColumns, "sdf (distinct data items so far)", path);
      }
    const record: ImportRecord = { input, title: r.title !== "" ? r.title : null, molecule: r.molblock ?? "" };
    if (r.properties) record.data = r.properties;
    if (r.problem !== undefined) record.problem = r.problem;
    return record;
  });
  return { records, dataColumns, hasId: false };
}

// ---------------------------------------------------------------------------------------------------
// The table's columns: the ones the import writes, and the data columns named beside them

/** What an import writes for a source besides its data columns (importColumns). */
export interface ImportShape {
  /** An SDF source: its record titles go to `titleColumn`; any other source keeps the molecule as given in `input`. */
  sdf: boolean;
  titleColumn: string;
  hasId: boolean;
  standardize: boolean;
  dedupe: boolean;
}

/** The SDF record title column's default name. */
export const DEFAULT_TITLE_COLUMN = "title";

/**
 * The columns the import writes itself, in order: row_id, input (or the SDF title column), smiles, with standardize
 * original_smiles, with standardize or dedupe parent_inchikey, with dedupe duplicates, error, and id when the source
 * has one. Only these names are reserved for the source's data columns (nameDataColumns).
 */
export function importColumns(shape: ImportShape): ColumnSpec[] {
  const columns: ColumnSpec[] = [{ name: "row_id", type: "BIGINT", description: "Position in the table, from 1 (appended rows continue the count)." }];
  if (shape.sdf) columns.push({ name: shape.titleColumn, type: "VARCHAR", description: "The SDF record's title (its first line); NULL when blank." });
  else columns.push({ name: "input", type: "VARCHAR", description: "The molecule as given (the SMILES)." });
  columns.push({
    name: "smiles",
    type: "VARCHAR",
    description: shape.standardize
      ? "RDKit canonical SMILES of the record's standardised parent (the standardize tool's parent_smiles with its defaults); NULL when the record does not parse or has no parent."
      : "RDKit canonical SMILES (isomeric); NULL when the input does not parse.",
  });
  if (shape.standardize)
    columns.push({
      name: "original_smiles",
      type: "VARCHAR",
      description: "RDKit canonical SMILES of the record as given (salts included); NULL when it does not parse.",
    });
  if (shape.standardize || shape.dedupe)
    columns.push({
      name: "parent_inchikey",
      type: "VARCHAR",
      description: "Standard InChIKey of the standardised parent (the dedupe key); NULL when there is none (no parent, or InChI cannot represent it).",
    });
  if (shape.dedupe)
    columns.push({
      name: "duplicates",
      type: "INTEGER",
      description: "Records merged into this row: later records with the same parent_inchikey, not written (NULL on rows without a parent_inchikey).",
    });
  columns.push({ name: "error", type: "VARCHAR", description: "Why the input does not parse (an error code such as INVALID_SMILES); NULL when it parses." });
  if (shape.hasId) columns.push({ name: "id", type: "VARCHAR", description: "The identifier: the CSV's id_column, or a .smi line's name." });
  return columns;
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;
/** A data column's name is cut to this many characters. */
const MAX_COLUMN_NAME = 100;

/** The column names canvas_import has written on some source (tables imported before the names were reserved per source). */
export const IMPORT_COLUMN_NAMES = ["row_id", "input", "smiles", "original_smiles", "parent_inchikey", "duplicates", "error", "id"];

/**
 * Column names for the data columns (CSV headers, SDF data item names): each as given, unless it clashes case-insensitively
 * (as DuckDB compares names) with a `taken` name (the columns the import writes for this source, and on append the
 * table's own and computed ones) or with a data column before it: then it gets the first suffix _2, _3, ... that no
 * other column holds, as given or renamed (a data column named like a suffixed one keeps its name). A name renamed by
 * an earlier call into the same table (`previous`) keeps that name, so appended values land in the same column.
 * Control characters become spaces and names are cut at 100 characters. `renamed` lists each name that did not stay
 * as given.
 */
export function nameDataColumns(
  names: readonly string[],
  taken: readonly string[],
  previous: Readonly<Record<string, string>> = {},
): { columns: Map<string, string>; renamed: Record<string, string> } {
  const used = new Set(taken.map((n) => n.toLowerCase()));
  for (const to of Object.values(previous)) used.add(to.toLowerCase());
  const columns = new Map<string, string>();
  const clashing: Array<[raw: string, name: string]> = [];
  // First every name that is free keeps it; then the clashing ones take suffixes free of all of those.
  for (const raw of names) {
    const before = previous[raw];
    if (before !== undefined) {
      columns.set(raw, before);
      continue;
    }
    const name = raw.replace(CONTROL_CHARACTERS, " ").trim().slice(0, MAX_COLUMN_NAME) || "column";
    if (used.has(name.toLowerCase())) clashing.push([raw, name]);
    else {
      used.add(name.toLowerCase());
      columns.set(raw, name);
    }
  }
  for (const [raw, name] of clashing) {
    let k = 2;
    while (used.has(`${name}_${k}`.toLowerCase())) k++;
    used.add(`${name}_${k}`.toLowerCase());
    columns.set(raw, `${name}_${k}`);
  }
  const ordered = new Map(names.map((raw) => [raw, columns.get(raw)!]));
  const renamed: Record<string, string> = {};
  for (const [raw, name] of ordered) if (name !== raw) renamed[raw] = name;
  return { columns: ordered, renamed };
}

// ---------------------------------------------------------------------------------------------------
// Files inside CHEMATIC_IMPORT_DIR

export type ImportFileKind = "smi" | "csv" | "sdf" | "sdf.gz";

/** The kind a file name says (by its extension, case-insensitive), or null. */
export function importKind(name: string): ImportFileKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith(".sdf.gz")) return "sdf.gz";
  if (lower.endsWith(".sdf")) return "sdf";
  if (lower.endsWith(".csv")) return "csv";
  if (lower.endsWith(".smi")) return "smi";
  return null;
}

function refused(reason: string, message: string, extra: Record<string, unknown> = {}, hint?: string): ToolError {
  return new ToolError("PATH_REFUSED", message, { path: "/path", reason, ...extra }, hint);
}

/**
 * The text of the file `rel` names inside `dir` (a real, absolute directory), or PATH_REFUSED: a path with
 * a ".." segment or a control character (traversal), an absolute path outside the directory (outside), a
 * file whose real path (symlinks resolved) leaves it (symlink_out), a missing file (not_found), anything but
 * a regular file: a directory, device, FIFO or socket (not_regular), a file (or a .gz's content) over
 * maxBytes (too_large), an extension other than .smi, .csv, .sdf, .sdf.gz (extension). The file is opened
 * once, without blocking, and checked again through its descriptor.
 */
/** The file operations readImportFile uses: node's, or a test's that fail on purpose (fault injection). */
export interface ImportIo {
  open: typeof open;
}
const NODE_IO: ImportIo = { open };

export async function readImportFile(
  dir: string,
  rel: string,
  maxBytes: number,
  io: ImportIo = NODE_IO,
): Promise<{ text: string; kind: ImportFileKind; bytes: number }> {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(rel)) throw refused("traversal", "The path holds a control character");
  if (rel.split(/[\\/]+/).some((seg) => seg === "..")) throw refused("traversal", "The path climbs out with '..'; name a file inside the import directory");
  const lexical = isAbsolute(rel) ? normalize(rel) : resolve(dir, rel);
  if (!isInside(dir, lexical)) throw refused("outside", "The path is outside the import directory");
  const kind = importKind(lexical);
  if (!kind) throw refused("extension", "Only .smi, .csv, .sdf and .sdf.gz files are imported");
  let real: string;
  try {
    await lstat(lexical);
    real = await realpath(lexical);
  } catch {
    throw refused("not_found", "No such file in the import directory");
  }
  if (!isInside(dir, real)) throw refused("symlink_out", "The path is a symlink (or passes through one) pointing out of the import directory");
  const handle = await io.open(real, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW).catch((e: unknown) => {
    // Gone between the check and the open (moved or deleted while the call ran).
    if ((e as { code?: string }).code === "ENOENT") throw refused("not_found", "The file went away before it could be read (moved or deleted meanwhile)");
    throw refused("not_regular", "The file cannot be opened as a regular file");
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw refused("not_regular", "Not a regular file (a directory, device, FIFO or socket)");
    if (stat.size > maxBytes)
      throw refused("too_large", `The file holds ${stat.size} bytes; at most ${maxBytes} are imported`, { bytes: stat.size, max_bytes: maxBytes });
    let raw: Buffer;
    try {
      raw = await handle.readFile();
    } catch (e) {
      // An I/O error while reading (a disk or network share failing, a file truncated under us).
      const code = (e as { code?: string }).code ?? "unknown";
      throw refused(
        "read_failed",
        `The file could not be read to its end (${code})`,
        { error_code: code },
        "Check the file (copy it again into the import directory) and retry; the canvas was not changed.",
      );
    }
    if (kind !== "sdf.gz") return { text: raw.toString("utf8"), kind, bytes: raw.length };
    let inflated: Buffer;
    try {
      inflated = await promisify(gunzip)(raw, { maxOutputLength: maxBytes });
    } catch (e) {
      if (e instanceof RangeError || (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
        throw refused("too_large", `The file's content passes ${maxBytes} bytes once decompressed`, { max_bytes: maxBytes });
      throw refused(
        "bad_gzip",
        `The .sdf.gz file is not valid gzip (${(e as Error).message})`,
        {},
        "Compress the SDF again (gzip file.sdf) or import the uncompressed .sdf; a file cut short in copying gives this too.",
      );
    }
    return { text: inflated.toString("utf8"), kind, bytes: inflated.length };
  } finally {
    await handle.close();
  }
}
