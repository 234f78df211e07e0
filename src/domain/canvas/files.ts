/**
 * Where file-backed canvases (CHEMATIC_CANVAS_DIR) keep their data: directly in that directory, under names derived
 * from the canvas ID only, so a restarted server finds them again: `<id>.duckdb` (with DuckDB's `.wal` and `.tmp/`)
 * and the sidecar `<id>.json`, which holds what DuckDB does not (owner, times, the tables' descriptions and
 * provenance, canvas_annotate's bookkeeping) or, once the canvas is gone, a tombstone saying why. Every path is
 * derived through safeJoin; the sidecar is replaced atomically (written beside, then renamed), so a kill leaves the
 * old one or the new one, never half of one.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isCanvasId } from "./ids.js";
import { safeJoin } from "./paths.js";
import { parseSidecar, SIDECAR_FORMAT, type Sidecar } from "./sidecar.js";

const SIDECAR_RE = /^(cv_[a-z0-9]{1,16}_[A-Za-z0-9]{28})\.json$/;
const DATABASE_RE = /^(cv_[a-z0-9]{1,16}_[A-Za-z0-9]{28})\.duckdb$/;

export class CanvasFiles {
  constructor(
    /** CHEMATIC_CANVAS_DIR, or null: every canvas lives in memory. */
    readonly dir: string | null,
    private readonly log: (message: string) => void,
  ) {}

  /** The database file of canvas `id`, or null in memory. */
  fileFor(id: string): string | null {
    return this.dir ? safeJoin(this.dir, `${id}.duckdb`) : null;
  }

  /** Whether canvas `id`'s database file is there. */
  hasDatabase(id: string): boolean {
    const file = this.fileFor(id);
    return file !== null && existsSync(file);
  }

  /** The database file's last change (ms), or null when it is not there. */
  databaseMtime(id: string): number | null {
    const file = this.fileFor(id);
    if (file === null) return null;
    try {
      return statSync(file).mtimeMs;
    } catch {
      return null;
    }
  }

  /** Canvas `id`'s sidecar, or undefined when there is none (or it cannot be read: logged). */
  readSidecar(id: string): Sidecar | undefined {
    if (!this.dir || !isCanvasId(id)) return undefined;
    let text: string;
    try {
      text = readFileSync(safeJoin(this.dir, `${id}.json`), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") this.log(`canvas ${id}: could not read its sidecar: ${(e as Error).message}`);
      return undefined;
    }
    const sidecar = parseSidecar(text, id);
    if (!sidecar) this.log(`canvas ${id}: its sidecar is not one this server reads; left as it is`);
    return sidecar;
  }

  /** Replaces canvas `sidecar.id`'s sidecar atomically; false (logged) when the disk refused. */
  writeSidecar(sidecar: Sidecar): boolean {
    if (!this.dir) return false;
    const path = safeJoin(this.dir, `${sidecar.id}.json`);
    // One fixed temporary name per canvas: a process writes a canvas's sidecar synchronously, and DuckDB's lock keeps
    // a second process from holding the same canvas open.
    const next = safeJoin(this.dir, `${sidecar.id}.json.new`);
    try {
      writeFileSync(next, JSON.stringify(sidecar));
      renameSync(next, path);
      return true;
    } catch (e) {
      this.log(`canvas ${sidecar.id}: could not write its sidecar: ${(e as Error).message}`);
      rmSync(next, { force: true });
      return false;
    }
  }

  /** Deletes canvas `id`'s database, WAL and temp directory (its sidecar stays: deleteSidecar). */
  deleteData(id: string): void {
    if (!this.dir) return;
    for (const name of [`${id}.duckdb`, `${id}.duckdb.wal`, `${id}.duckdb.tmp`]) this.remove(name, id);
  }

  deleteSidecar(id: string): void {
    if (!this.dir) return;
    this.remove(`${id}.json`, id);
    this.remove(`${id}.json.new`, id);
  }

  private remove(name: string, id: string): void {
    try {
      rmSync(safeJoin(this.dir!, name), { recursive: true, force: true });
    } catch (e) {
      this.log(`canvas ${id}: could not delete ${name}: ${(e as Error).message}`);
    }
  }

  /** The canvas IDs the directory holds a sidecar of, and those it holds a database of without one. */
  scan(): { sidecars: string[]; bare: string[] } {
    if (!this.dir) return { sidecars: [], bare: [] };
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (e) {
      this.log(`could not list the canvas directory: ${(e as Error).message}`);
      return { sidecars: [], bare: [] };
    }
    const sidecars = names.map((n) => SIDECAR_RE.exec(n)?.[1]).filter((id): id is string => id !== undefined && isCanvasId(id));
    const known = new Set(sidecars);
    const bare = names.map((n) => DATABASE_RE.exec(n)?.[1]).filter((id): id is string => id !== undefined && isCanvasId(id) && !known.has(id));
    return { sidecars, bare };
  }

  /**
   * The retention, at `now`: a canvas unused for `keepMs` (by its sidecar's last use) has its data deleted and its
   * sidecar turned into an "expired" tombstone; a tombstone (or a lost canvas's sidecar) `keepMs` old is deleted; a
   * database without a sidecar (a kill between the two being made) goes once `keepMs` old by its file time. Canvases
   * `inUse` are left alone. Answers the canvases whose data it deleted.
   */
  retain(now: number, keepMs: number, inUse: (id: string) => boolean): string[] {
    const deleted: string[] = [];
    const { sidecars, bare } = this.scan();
    for (const id of sidecars) {
      if (inUse(id)) continue;
      const s = this.readSidecar(id);
      if (!s) continue;
      if (s.state !== "live") {
        if (now - Date.parse(s.gone_at) > keepMs) this.deleteSidecar(id);
      } else if (now - Date.parse(s.last_used_at) > keepMs) {
        if (!this.hasDatabase(id)) {
          this.deleteSidecar(id);
          continue;
        }
        this.deleteData(id);
        this.writeSidecar({ format: SIDECAR_FORMAT, id, owner: s.owner, state: "expired", gone_at: new Date(now).toISOString() });
        deleted.push(id);
      }
    }
    for (const id of bare) {
      const mtime = this.databaseMtime(id);
      if (!inUse(id) && mtime !== null && now - mtime > keepMs) this.deleteData(id);
    }
    return deleted;
  }
}
