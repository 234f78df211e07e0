/**
 * Files that leave the canvas (canvas_export): where one goes inside CHEMATIC_EXPORT_DIR (guarded like the import
 * directory's paths), how it is written (under a temporary name beside its place, moved there only once whole, so a
 * failure, a full disk or a cancelled call leaves nothing half-written behind), and what each format holds: SDF records
 * and CSV text are written here; Parquet is written by DuckDB in an in-memory instance of its own, since the canvas's
 * instance has no file access (sql-guard.ts) and user SQL never runs in the export instance.
 */
import { createHash, randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { link, lstat, mkdir, open, realpath, rename, rm, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, normalize, resolve } from "node:path";
import type { DuckDBDataChunk, DuckDBInstance, DuckDBType } from "@duckdb/node-api";
import { ToolError } from "../errors.js";
import type { DuckDbModule } from "./duckdb.js";
import { isInside } from "./paths.js";
import { lockedDownOptions } from "./sql-guard.js";
import type { JsonValue } from "./values.js";

export type ExportFormat = "sdf" | "csv" | "parquet";

export const EXPORT_MIME_TYPES: Readonly<Record<ExportFormat, string>> = {
  sdf: "chemical/x-mdl-sdfile",
  csv: "text/csv",
  parquet: "application/vnd.apache.parquet",
};

/** The format a file name's extension says (case-insensitive), or null. */
function exportFormatOf(name: string): ExportFormat | null {
  const m = /\.(sdf|csv|parquet)$/i.exec(name);
  return m ? (m[1]!.toLowerCase() as ExportFormat) : null;
}

/**
 * A file name an export may take: path segments of letters, digits, spaces and `_ - . ( ) + , @`, none starting with a
 * dot (no hidden files, no `.` or `..`). Narrow on purpose: Parquet's path reaches DuckDB inside an SQL string.
 */
const SEGMENT = /^[A-Za-z0-9_\-+,@() ][A-Za-z0-9_\-+,@(). ]{0,199}$/;

function refused(reason: string, message: string, hint: string, extra: Record<string, unknown> = {}): ToolError {
  return new ToolError("PATH_REFUSED", message, { path: "/file", reason, ...extra }, hint);
}

/**
 * The directory a caller's exports go to: the export directory itself without authentication (stdio, a local
 * server), else a folder of the caller's own inside it (`caller-` and 16 hex digits of the subject's SHA-256), so
 * callers of a shared server neither read nor overwrite each other's files. Made on first use.
 */
export async function callerExportDir(exportDir: string, owner: string | null): Promise<string> {
  if (owner === null) return exportDir;
  const dir = join(exportDir, `caller-${createHash("sha256").update(owner).digest("hex").slice(0, 16)}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Where an export goes: its final path, the temporary name it is written under, and its name relative to the directory. */
export interface ExportTarget {
  dir: string;
  /** The file as named relative to `dir` (forward slashes). */
  relative: string;
  final: string;
  temporary: string;
  format: ExportFormat;
  overwrite: boolean;
}

/**
 * The target of an export named `file` inside `dir` (a real, absolute directory), or PATH_REFUSED: a name with a
 * control character, a `..` segment or a character outside the allowed set (bad_name), an absolute path outside
 * the directory (outside), an extension other than .sdf, .csv, .parquet (extension), a folder that does not exist
 * (not_found) or that is reached through a symlink out of the directory (symlink_out), an existing entry that is not
 * a regular file (not_regular), an existing file without `overwrite` (exists).
 */
export async function resolveExportTarget(dir: string, file: string, overwrite: boolean): Promise<ExportTarget> {
  const name = file.trim();
  const rel = isAbsolute(name) ? normalize(name) : name;
  if (isAbsolute(rel) && !isInside(dir, rel)) {
    throw refused("outside", "The file is outside the export directory", "Give a file name relative to the export directory, e.g. hits.sdf.");
  }
  const relative = isAbsolute(rel) ? rel.slice(dir.length + 1) : rel;
  const segments = relative.split(/[\\/]+/);
  if (segments.some((s) => s === ".." || s === ".")) {
    throw refused("traversal", "The file name climbs out with '..'", "Give a file name inside the export directory, without '..', e.g. hits.sdf.");
  }
  if (!segments.every((s) => SEGMENT.test(s))) {
    throw refused(
      "bad_name",
      "The file name holds a character an export name may not (or a segment starting with a dot)",
      "Use letters, digits, spaces and _ - . ( ) + , @ in the file name, e.g. triage_hits.sdf.",
    );
  }
  const format = exportFormatOf(relative);
  if (!format)
    throw refused("extension", "Exports are .sdf, .csv or .parquet files", "End the file name with .sdf, .csv or .parquet: the extension picks the format.");
  const lexical = resolve(dir, ...segments);
  if (!isInside(dir, lexical)) throw refused("outside", "The file is outside the export directory", "Give a file name relative to the export directory.");
  let folder: string;
  try {
    folder = await realpath(dirname(lexical));
  } catch {
    throw refused(
      "not_found",
      "The folder the file names does not exist in the export directory",
      "Export to the export directory itself (a plain file name) or to a folder that exists in it.",
    );
  }
  if (folder !== dir && !isInside(dir, folder)) {
    throw refused("symlink_out", "The folder is a symlink (or passes through one) pointing out of the export directory", "Export to a plain file name.");
  }
  const final = join(folder, basename(lexical));
  const existing = await lstat(final).catch(() => null);
  if (existing && !existing.isFile()) {
    throw refused("not_regular", "Something other than a regular file (a folder, symlink or device) already has that name", "Pick another file name.");
  }
  if (existing && !overwrite) {
    throw refused("exists", `${relative} already exists in the export directory`, "Pick another file name, or pass overwrite: true to replace it.", {
      file: relative,
    });
  }
  const temporary = join(folder, `.${basename(lexical)}.${randomBytes(6).toString("hex")}.part`);
  return { dir, relative: segments.join("/"), final, temporary, format, overwrite };
}

/**
 * WRITE_FAILED for a file system failure while writing or moving an export (an errno code, or DuckDB's words for a
 * full disk), the error itself otherwise. Nothing is left behind: the caller discards the temporary file.
 */
export function writeFailed(e: unknown, dir: string): unknown {
  if (e instanceof ToolError) return e;
  const code = (e as { code?: string } | null)?.code;
  const text = (e instanceof Error ? e.message : String(e)).split(dir).join("<export dir>").replace(/\s+/g, " ").slice(0, 400);
  const errno = typeof code === "string" && /^E[A-Z]+$/.test(code);
  if (!errno && !/^IO Error/i.test(text)) return e;
  if (code === "ENOSPC" || code === "EDQUOT" || /No space left on device|Disk quota exceeded|ENOSPC|EDQUOT/i.test(text)) {
    return new ToolError(
      "WRITE_FAILED",
      "The disk holding the export directory is full: the file was not written (nothing was left behind)",
      { reason: "disk_full" },
      "Free space in the export directory (or ask the operator to), or export fewer rows or columns (sql with a WHERE, or CSV instead of SDF), then retry.",
    );
  }
  return new ToolError(
    "WRITE_FAILED",
    `The file could not be written (${code ?? text}); nothing was left behind`,
    { reason: "io_error", error_code: code ?? null },
    "Check the export directory (permissions, space) and retry, or ask the operator.",
  );
}

/** Removes an export's temporary file (a failed or cancelled export). */
export async function discardExport(target: ExportTarget): Promise<void> {
  await rm(target.temporary, { force: true }).catch(() => undefined);
}

/**
 * Moves a whole temporary file to its place and answers its size. Without `overwrite` the move is a hard link, which
 * fails when the name was taken meanwhile (never replacing a file another call wrote); with it, a rename.
 */
export async function publishExport(target: ExportTarget): Promise<number> {
  const { size } = await stat(target.temporary);
  if (target.overwrite) {
    await rename(target.temporary, target.final);
    return size;
  }
  try {
    await link(target.temporary, target.final);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "EEXIST") {
      throw refused("exists", `${target.relative} appeared in the export directory while this export ran`, "Pick another file name, or pass overwrite: true.", {
        file: target.relative,
      });
    }
    // A file system without hard links (some network and FAT mounts): check, then rename.
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw e;
    if (await lstat(target.final).catch(() => null)) {
      throw refused("exists", `${target.relative} appeared in the export directory while this export ran`, "Pick another file name, or pass overwrite: true.", {
        file: target.relative,
      });
    }
    await rename(target.temporary, target.final);
    return size;
  }
  await unlink(target.temporary);
  return size;
}

/** Text written to an export's temporary file, in blocks of about 1 MiB (one write call each). */
export class ExportTextFile {
  private parts: string[] = [];
  private pending = 0;

  private constructor(private readonly handle: FileHandle) {}

  /** Creates the temporary file (never following or replacing anything: O_EXCL, O_NOFOLLOW). */
  static async create(target: ExportTarget): Promise<ExportTextFile> {
    const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;
    return new ExportTextFile(await open(target.temporary, flags, 0o644));
  }

  async write(text: string): Promise<void> {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const data = Buffer.from(this.parts.join(""), "utf8");
    this.parts = [];
    this.pending = 0;
    // A write may take fewer bytes than given (a disk filling up): the rest is written again, until the disk says ENOSPC.
    for (let at = 0; at < data.length;) {
      const { bytesWritten } = await this.handle.write(data, at, data.length - at);
      if (bytesWritten === 0) throw Object.assign(new Error("no space left on device (nothing written)"), { code: "ENOSPC" });
      at += bytesWritten;
    }
  }

  /** Flushes, syncs to disk (a rename after a crash must not name an empty file) and closes. */
  async finish(): Promise<void> {
    try {
      await this.flush();
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  /** Closes without writing what is pending (the caller discards the file). */
  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------
// What a cell becomes in a text file

/** A cell as text: numbers as JavaScript writes them (shortest round trip), lists and structs as JSON, NULL as null. */
function cellText(v: JsonValue): string | null {
  if (v === null) return null;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/**
 * One CSV line (RFC 4180): a field quoted when it holds a comma, quote, line break or edge space; NULL an empty field
 * and an empty string `""`, so that readers which tell them apart (DuckDB, pandas) read each back as it was.
 */
export function csvLine(cells: readonly JsonValue[]): string {
  return `${cells
    .map((v) => {
      const t = cellText(v);
      if (t === null) return "";
      return t === "" || /[",\r\n]|^\s|\s$/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
    })
    .join(",")}\r\n`;
}

/** The molblock of a row whose molecule could not be drawn: no atoms, so the record and its data items still stand. */
export const EMPTY_MOLBLOCK = "\n     RDKit          2D\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n";

/** A value as SDF data lines: no blank line (it would end the item), none starting with $$$$ (it would end the record). */
function sdfValue(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (line.startsWith("$$$$") ? ` ${line}` : line))
    .join("\n");
}

/**
 * One SDF record: the molblock with `title` on its first line, then each non-NULL cell as a data item
 * (`>  <name>`, its value, a blank line), then `$$$$`.
 */
export function sdfRecord(molblock: string, title: string, items: ReadonlyArray<readonly [string, JsonValue]>): string {
  const eol = molblock.indexOf("\n");
  const block = `${title.replace(/[\r\n]+/g, " ").slice(0, 80)}${eol < 0 ? "\n" : molblock.slice(eol)}`;
  const parts = [block.endsWith("\n") ? block : `${block}\n`];
  for (const [name, v] of items) {
    const t = cellText(v);
    if (t === null) continue;
    parts.push(`>  <${name}>\n${sdfValue(t)}\n\n`);
  }
  parts.push("$$$$\n");
  return parts.join("");
}

// ---------------------------------------------------------------------------------------------------
// Parquet, by DuckDB

/**
 * An in-memory DuckDB instance that receives a query's chunks and writes them as Parquet. File access is on here (it
 * is how COPY writes), so it runs only the statements below, with names and a path this module made.
 */
export class ParquetExport {
  private appender: Awaited<ReturnType<Awaited<ReturnType<DuckDBInstance["connect"]>>["createAppender"]>> | null = null;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: Awaited<ReturnType<DuckDBInstance["connect"]>>,
  ) {}

  static async create(duckdb: DuckDbModule, memoryLimitMb: number, threads: number): Promise<ParquetExport> {
    const options = lockedDownOptions({ memoryLimitMb, threads, inMemory: true });
    options.enable_external_access = "true";
    const instance = await duckdb.DuckDBInstance.create(":memory:", options);
    try {
      return new ParquetExport(instance, await instance.connect());
    } catch (e) {
      instance.closeSync();
      throw e;
    }
  }

  /** The table the chunks go to, with the query's own column types (chunks are appended as they are). */
  async columns(columns: ReadonlyArray<{ name: string; type: DuckDBType }>): Promise<void> {
    const quoted = (n: string) => `"${n.replace(/"/g, '""')}"`;
    await this.connection.run(`CREATE TABLE export_rows (${columns.map((c) => `${quoted(c.name)} ${c.type.toString()}`).join(", ")})`);
    this.appender = await this.connection.createAppender("export_rows");
  }

  chunk(chunk: DuckDBDataChunk): void {
    if (!this.appender) throw new Error("ParquetExport: columns() first");
    this.appender.appendDataChunk(chunk);
  }

  /** Writes every appended row to `path` (an export's temporary name: ours, without a quote, see SEGMENT). */
  async write(path: string): Promise<void> {
    this.appender?.closeSync();
    this.appender = null;
    if (path.includes("'")) throw new Error("an export path holds a quote");
    await this.connection.run(`COPY export_rows TO '${path}' (FORMAT parquet, COMPRESSION zstd)`);
  }

  close(): void {
    try {
      this.appender?.closeSync();
    } catch {
      // Already closed, or the table was never made.
    }
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

// ---------------------------------------------------------------------------------------------------
// Reading an export back (the chematic://export/ resource)

/**
 * The bytes of the export `relative` names inside `dir`, or NOT_FOUND (a name an export could not have, a file that
 * is not there, a symlink or anything but a regular file, a path leaving the directory), or PATH_REFUSED too_large
 * past `maxBytes` (a resource read lands in a host's context: a large file is opened at its path instead).
 */
export async function readExportFile(dir: string, relative: string, maxBytes: number): Promise<{ data: Buffer; format: ExportFormat }> {
  const segments = relative.split("/");
  const format = exportFormatOf(relative);
  const gone = () =>
    new ToolError("NOT_FOUND", `No exported file ${relative}`, { file: relative }, "Export it first (canvas_export), then read the uri it answers.");
  if (!format || !segments.every((s) => SEGMENT.test(s) && s !== "." && s !== "..")) throw gone();
  const lexical = resolve(dir, ...segments);
  if (!isInside(dir, lexical)) throw gone();
  const real = await realpath(lexical).catch(() => null);
  if (real === null || real !== lexical || !isInside(dir, real)) throw gone();
  const handle = await open(real, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK).catch(() => null);
  if (!handle) throw gone();
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw gone();
    if (info.size > maxBytes) {
      throw new ToolError(
        "PATH_REFUSED",
        `${relative} holds ${info.size} bytes; a resource read gives at most ${maxBytes}`,
        { path: "/uri", reason: "too_large", bytes: info.size, max_bytes: maxBytes },
        "Open the file from the export directory (canvas_export answered its path), or export fewer rows.",
      );
    }
    return { data: await handle.readFile(), format };
  } finally {
    await handle.close();
  }
}
