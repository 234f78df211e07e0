/**
 * Where file-backed canvases (CHEMATIC_CANVAS_DIR) keep their databases: a per-process directory inside it, made on
 * the first file-backed canvas, every path derived through safeJoin; a canvas's files are deleted when it closes and
 * the directory when the server closes.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isInside, safeJoin } from "./paths.js";

export class CanvasFiles {
  private sessionDir: string | null = null;

  constructor(
    /** CHEMATIC_CANVAS_DIR, or null: every canvas lives in memory. */
    readonly dir: string | null,
    private readonly log: (message: string) => void,
  ) {}

  /** The database file of a new canvas, or null in memory. */
  fileFor(id: string): string | null {
    return this.dir ? safeJoin(this.ensureSessionDir(), `${id}.duckdb`) : null;
  }

  /** The per-process directory inside CHEMATIC_CANVAS_DIR (created on the first file-backed canvas). */
  private ensureSessionDir(): string {
    if (!this.dir) throw new Error("no canvas directory");
    if (!this.sessionDir) {
      const made = realpathSync(mkdtempSync(join(this.dir, "chematic-canvas-")));
      if (!isInside(this.dir, made)) throw new Error("the canvas directory escaped CHEMATIC_CANVAS_DIR");
      this.sessionDir = made;
    }
    return this.sessionDir;
  }

  /** Deletes a file-backed canvas's database, WAL and temp directory (paths re-derived and guarded). */
  delete(canvas: { readonly id: string; readonly file: string | null }): void {
    if (!canvas.file || !this.sessionDir) return;
    for (const name of [`${canvas.id}.duckdb`, `${canvas.id}.duckdb.wal`, `${canvas.id}.duckdb.tmp`]) {
      try {
        rmSync(safeJoin(this.sessionDir, name), { recursive: true, force: true });
      } catch (e) {
        this.log(`canvas ${canvas.id}: could not delete ${name}: ${(e as Error).message}`);
      }
    }
  }

  /** Removes the per-process directory (the server is closing; every canvas is closed). */
  removeAll(): void {
    if (this.sessionDir && this.dir && isInside(this.dir, this.sessionDir)) {
      try {
        rmSync(this.sessionDir, { recursive: true, force: true });
      } catch (e) {
        this.log(`could not remove ${this.sessionDir}: ${(e as Error).message}`);
      }
    }
  }
}
