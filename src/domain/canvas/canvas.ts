/**
 * One canvas: a DuckDB workspace of one caller, holding staged tables that the caller reads with guarded SQL. This
 * file is the canvas's coordinator: its identity, its tables' metadata, its pins (a call holding it), its one write
 * turn (writes to one canvas run one after another), its caps, and closing it. The work is done in the rooms beside
 * it, each with one job:
 *  - staging.ts: whole-table writes (stage, append, part-by-part staging, drop), swapped in by one transaction;
 *  - rows-in.ts: rows into DuckDB (appender or bulk insert), checked against their column types;
 *  - annotations.ts: computed columns (canvas_annotate) and their per-row bookkeeping;
 *  - queries.ts: one guarded SELECT in a query slot, under a timeout and a memory watch, output capped;
 *  - sql-guard.ts: every lock a query passes (the only SQL lock);
 *  - tables.ts, ids.ts, settings.ts: what a table is, canvas IDs, bounds;
 *  - manager.ts: every canvas of the process (creation, lookup, quotas and eviction, expiry); files.ts their files,
 *    sidecar.ts and reopen.ts what keeps a file-backed canvas across a restart.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { ToolError } from "../errors.js";
import {
  AnnotationBook,
  dropAnnotationColumns,
  prepareAnnotation,
  selectRows,
  writeAnnotation,
  type AnnotationColumn,
  type AnnotationWork,
} from "./annotations.js";
import { diskFullError } from "./duckdb-errors.js";
import type { DuckDbModule } from "./duckdb.js";
import { runQuery, type QueryOptions, type QueryResult, type RunningQuery } from "./queries.js";
import type { CanvasHost } from "./settings.js";
import { appendToTable, dropTable, firstRowsByKey, openStage, stageTable, type AppendOptions, type StageWriter } from "./staging.js";
import type { CellValue, ColumnSpec, TableMeta } from "./tables.js";

export class Canvas {
  readonly tables = new Map<string, TableMeta>();
  /** canvas_annotate's bookkeeping, beside the tables it describes. */
  readonly annotations = new AnnotationBook();
  /** Queries DuckDB is running on this canvas (closing interrupts them). */
  readonly running = new Set<RunningQuery>();
  lastUsedAt: number;
  /** Calls holding this canvas (a spill, a query): it neither expires nor is evicted meanwhile. */
  pins = 0;
  closed = false;
  /** Settles once the DuckDB instance is closed (a query DuckDB could not interrupt may hold it past close()). */
  shut: Promise<void> = Promise.resolve();
  private writeChain: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly host: CanvasHost,
    readonly duckdb: DuckDbModule,
    readonly instance: DuckDBInstance,
    /** The database file, or null in memory. */
    readonly file: string | null,
    readonly createdAt: number,
    /** The subject (or token label) that made it when the server authenticates callers; null without authentication. */
    readonly owner: string | null = null,
  ) {
    this.lastUsedAt = createdAt;
  }

  touch(): void {
    this.lastUsedAt = this.host.now();
  }

  /** Holds the canvas for the length of `work` (no expiry, no eviction). */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.pins++;
    this.touch();
    try {
      return await work();
    } finally {
      this.pins--;
      this.touch();
    }
  }

  /** CANVAS_NOT_FOUND once the canvas has closed (a call that held it meanwhile answers as for a gone canvas). */
  checkOpen(): void {
    if (this.closed) throw this.host.notFound(this.id, this.owner);
  }

  /**
   * Runs one write after the ones before it (the canvas's one write turn); a failed write does not block the next.
   * A file-backed canvas's sidecar is brought up to date at the end of each turn, inside it, so what a restarted
   * server reads lags DuckDB by at most the one write a kill interrupted.
   */
  inTurn<T>(write: () => Promise<T>): Promise<T> {
    // A full disk under CHEMATIC_CANVAS_DIR is a named refusal, whatever write met it.
    const mapped = () =>
      write()
        .catch((e: unknown) => {
          throw diskFullError(e, this.host.dir) ?? e;
        })
        .finally(() => {
          if (!this.closed) this.host.persist(this);
        });
    const run = this.writeChain.then(mapped, mapped);
    this.writeChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** A write: the canvas held, in its turn, refused once the canvas has closed. */
  write<T>(work: () => Promise<T>): Promise<T> {
    return this.hold(() =>
      this.inTurn(async () => {
        this.checkOpen();
        return work();
      }),
    );
  }

  describe(): TableMeta[] {
    return [...this.tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The catalog (database) name DuckDB gives this canvas: the file's stem, or "memory". */
  get catalog(): string {
    return this.file ? this.id : "memory";
  }

  /** Estimated data bytes of all this canvas's tables (see estimateBytes). */
  usedBytes(): number {
    let bytes = 0;
    for (const t of this.tables.values()) bytes += t.bytes;
    return bytes;
  }

  /**
   * CANVAS_FULL when table `name` holding `rows` rows and `bytes` bytes (in place of what it holds now)
   * would pass the rows-per-table or the bytes-per-canvas cap. Writers call it before they write.
   */
  checkBounds(name: string, rows: number, bytes: number): void {
    if (rows > this.host.maxTableRows) throw this.host.tooManyRows(name, rows);
    const others = this.usedBytes() - (this.tables.get(name)?.bytes ?? 0);
    if (others + bytes > this.host.maxBytes) {
      throw new ToolError(
        "CANVAS_FULL",
        `Canvas ${this.id} would hold about ${others + bytes} bytes of data; a canvas holds at most ${this.host.maxBytes}`,
        { table: name, bytes: others + bytes, max_bytes: this.host.maxBytes, tables: [...this.tables.keys()] },
        "Drop tables you no longer need (chembl_dataframe_drop), or put the data on a new canvas (omit canvas_id).",
      );
    }
  }

  /** INVALID_ARGUMENTS naming the tables there are. */
  noTable(name: string): ToolError {
    return new ToolError(
      "INVALID_ARGUMENTS",
      `No table ${name} on canvas ${this.id}`,
      { path: "/table", tables: [...this.tables.keys()] },
      "Pick a table chembl_dataframe_describe lists.",
    );
  }

  /** staging.ts stageTable: the table replaced whole. */
  stage(name: string, columns: ColumnSpec[], rows: readonly CellValue[][], provenance: Record<string, unknown>, signal?: AbortSignal): Promise<TableMeta> {
    return stageTable(this, name, columns, rows, provenance, signal);
  }

  /** staging.ts appendToTable: rows added, columns added or widened (options: a row-count check, counts added to earlier rows). */
  appendRows(
    name: string,
    columns: ColumnSpec[],
    rows: readonly CellValue[][],
    provenance: Record<string, unknown> = {},
    signal?: AbortSignal,
    options: AppendOptions = {},
  ): Promise<TableMeta> {
    return appendToTable(this, name, columns, rows, provenance, signal, options);
  }

  /** staging.ts firstRowsByKey: the first row id of each key a column holds. */
  firstRowsByKey(name: string, column: string, idColumn: string, keys: readonly string[]): Promise<Map<string, number>> {
    return firstRowsByKey(this, name, column, idColumn, keys);
  }

  /** staging.ts openStage: a table staged part by part. */
  openStage(name: string, columns: ColumnSpec[], signal?: AbortSignal): StageWriter {
    return openStage(this, name, columns, signal);
  }

  dropTable(name: string): Promise<void> {
    return dropTable(this, name);
  }

  /** The columns canvas_annotate computed on `table` (an import appending to it must not write into them). */
  computedColumns(table: string): string[] {
    return this.annotations.columns(table);
  }

  prepareAnnotation(table: string, smilesColumn: string, columns: readonly AnnotationColumn[], where?: string): Promise<AnnotationWork> {
    return prepareAnnotation(this, table, smilesColumn, columns, where);
  }

  /** annotations.ts dropAnnotationColumns: computed columns taken back off (a failed set computation). */
  dropAnnotationColumns(table: string, names: readonly string[]): Promise<void> {
    return dropAnnotationColumns(this, table, names);
  }

  /** annotations.ts selectRows: the keyed rows a set tool reads. */
  selectRows(table: string, smilesColumn: string, where?: string): Promise<Array<{ row: number; smiles: string | null }>> {
    return selectRows(this, table, smilesColumn, where);
  }

  writeAnnotation(
    table: string,
    columns: readonly AnnotationColumn[],
    rows: readonly number[],
    values: readonly unknown[][],
    signal?: AbortSignal,
  ): Promise<void> {
    return writeAnnotation(this, table, columns, rows, values, signal);
  }

  query(sql: string, options: QueryOptions): Promise<QueryResult> {
    return runQuery(this, sql, options);
  }

  /** The tables and columns as DuckDB itself holds them (checks and diagnostics; queries cannot read information_schema). */
  async inspect(): Promise<Array<{ table_name: string; column_name: string; data_type: string }>> {
    const connection = await this.instance.connect();
    try {
      const r = await connection.runAndReadAll(
        "SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY table_name, ordinal_position",
      );
      return r.getRowObjectsJson() as Array<{ table_name: string; column_name: string; data_type: string }>;
    } finally {
      connection.closeSync();
    }
  }

  /**
   * Interrupts what runs, waits a little for it and closes the instance. Its files are the manager's to keep or
   * delete; when `keep`, the sidecar is written a last time (the canvas stays on disk, to be reopened).
   */
  async close(keep = false): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.running) {
      try {
        r.connection.interrupt();
      } catch {
        // Finished meanwhile.
      }
    }
    const pending = [...this.running].map((r) => r.done);
    const settled = await Promise.race([Promise.all(pending).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000).unref())]);
    await this.writeChain;
    // A query DuckDB could not interrupt still uses the instance: it is closed once that query returns, and `shut`
    // tells the manager when (the file must not be opened again while this instance holds it).
    if (settled) this.instance.closeSync();
    else this.shut = Promise.allSettled(pending).then(() => this.instance.closeSync());
    if (keep) this.host.persist(this, true);
  }
}
