/**
 * CHEMATIC_CREATE_DIRS (issue 32, item 3): the Claude Desktop bundle's import and export folders default to
 * <Documents>/chematic/import and /export, which do not exist on a first start. With the variable on, a missing
 * CHEMATIC_IMPORT_DIR or CHEMATIC_EXPORT_DIR is made (mode 0700) when at most its last two folders are missing; a
 * path missing further up (a misspelt home or drive) is refused as without it, and so is everything it refused before.
 * CHEMATIC_CANVAS_DIR is never made.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadCanvasConfig } from "../../../src/config.js";

let home: string;
before(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), "chematic-dirs-")));
  mkdirSync(join(home, "Documents"));
});
after(() => rmSync(home, { recursive: true, force: true }));

test("without CHEMATIC_CREATE_DIRS a missing import or export directory stops start-up, as before", () => {
  const missing = join(home, "Documents", "chematic", "import");
  assert.throws(
    () => loadCanvasConfig({ CHEMATIC_IMPORT_DIR: missing }),
    (e: unknown) => e instanceof ConfigError && /must name an existing readable directory/.test(e.message),
  );
  assert.throws(() => loadCanvasConfig({ CHEMATIC_EXPORT_DIR: missing, CHEMATIC_CREATE_DIRS: "false" }), ConfigError);
  assert.ok(!existsSync(join(home, "Documents", "chematic")), "nothing made");
});

test("with it, the bundle's defaults are made under Documents, mode 0700, and read back as real paths", () => {
  const importDir = join(home, "Documents", "chematic", "import");
  const exportDir = join(home, "Documents", "chematic", "export");
  const config = loadCanvasConfig({ CHEMATIC_IMPORT_DIR: importDir, CHEMATIC_EXPORT_DIR: exportDir, CHEMATIC_CREATE_DIRS: "true" });
  assert.equal(config.importDir, importDir);
  assert.equal(config.exportDir, exportDir);
  if (process.platform !== "win32") {
    for (const dir of [importDir, exportDir]) assert.equal(statSync(dir).mode & 0o777, 0o700, dir);
  }
  // A second start finds them and leaves them as they are.
  assert.equal(loadCanvasConfig({ CHEMATIC_IMPORT_DIR: importDir, CHEMATIC_CREATE_DIRS: "1" }).importDir, importDir);
  // One folder missing is made too (its parent exists).
  const one = join(home, "Documents", "picks");
  assert.equal(loadCanvasConfig({ CHEMATIC_EXPORT_DIR: one, CHEMATIC_CREATE_DIRS: "true" }).exportDir, one);
});

test("a path missing further up than two folders is a typo, not a folder to make: refused, nothing made", () => {
  const typo = join(home, "Documnets", "chematic", "import");
  assert.throws(
    () => loadCanvasConfig({ CHEMATIC_IMPORT_DIR: typo, CHEMATIC_CREATE_DIRS: "true" }),
    (e: unknown) => e instanceof ConfigError && /CHEMATIC_IMPORT_DIR must name an existing directory.*makes at most its last 2 folders/.test(e.message),
  );
  assert.ok(!existsSync(join(home, "Documnets")));
});

test("what was refused before still is: relative paths, . and .. segments, the canvas directory, a bad flag; canvas off makes nothing", () => {
  const env = { CHEMATIC_CREATE_DIRS: "true" };
  assert.throws(() => loadCanvasConfig({ ...env, CHEMATIC_IMPORT_DIR: "chematic/import" }), /must be an absolute path/);
  assert.throws(() => loadCanvasConfig({ ...env, CHEMATIC_EXPORT_DIR: `${home}/Documents/../x/export` }), /must not contain "\." or "\.\." segments/);
  assert.throws(() => loadCanvasConfig({ ...env, CHEMATIC_CANVAS_DIR: join(home, "Documents", "canvases") }), /must name an existing writable directory/);
  assert.ok(!existsSync(join(home, "x")) && !existsSync(join(home, "Documents", "canvases")));
  assert.throws(() => loadCanvasConfig({ CHEMATIC_CREATE_DIRS: "maybe" }), /CHEMATIC_CREATE_DIRS must be a boolean/);
  const off = loadCanvasConfig({ ...env, CHEMATIC_CANVAS: "off", CHEMATIC_IMPORT_DIR: join(home, "Documents", "off") });
  assert.equal(off.importDir, null);
  assert.ok(!existsSync(join(home, "Documents", "off")));
});
