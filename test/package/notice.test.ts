/**
 * LICENSE and NOTICE stay in step with what ships: every data asset is listed in NOTICE, every licence
 * notice an asset carries is reproduced there, every runtime dependency is named with the licence its
 * package.json declares, and the ChEMBL attribution in NOTICE is the one ChEMBL answers carry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { CITATION, LICENSE_URL, sourceOf } from "../../src/domain/chembl/service.js";

const root = projectRoot();
const notice = readFileSync(join(root, "NOTICE"), "utf8");
/**
 * Whitespace-insensitive (notices are re-wrapped and re-indented freely), and without "All rights reserved.",
 * which some copies of the same RDKit notice carry and others do not.
 */
const flat = (text: string) =>
  text
    .replace(/All rights reserved\./g, "")
    .replace(/\s+/g, " ")
    .trim();
const flatNotice = flat(notice);

test("LICENSE is the MIT licence and package.json says so", () => {
  const license = readFileSync(join(root, "LICENSE"), "utf8");
  assert.match(license, /^MIT License/);
  assert.match(license, /Permission is hereby granted, free of charge/);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { license: string };
  assert.equal(pkg.license, "MIT");
});

test("NOTICE lists every data asset and reproduces every licence notice the assets carry", () => {
  const assets = readdirSync(join(root, "assets"));
  assert.ok(assets.length > 0);
  let notices = 0;
  for (const name of assets) {
    assert.ok(notice.includes(`assets/${name}`), `NOTICE lists assets/${name}`);
    if (!name.endsWith(".json")) continue;
    const data = JSON.parse(readFileSync(join(root, "assets", name), "utf8")) as { license?: Record<string, unknown> };
    for (const [key, value] of Object.entries(data.license ?? {})) {
      if (typeof value !== "string" || !/Copyright/i.test(value)) continue;
      // The whole notice (copyright line, conditions and disclaimer), whitespace aside.
      assert.ok(flatNotice.includes(flat(value)), `NOTICE reproduces assets/${name} license.${key}: ${flat(value).slice(0, 100)}...`);
      notices++;
    }
    if (data.license?.spdx !== undefined) assert.equal(data.license.spdx, "BSD-3-Clause", `assets/${name}: a licence NOTICE covers`);
  }
  assert.ok(notices >= 6, `found ${notices} notices in the assets' license fields`);
});

test("NOTICE names every runtime dependency with the licence its package declares", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const require = createRequire(join(root, "package.json"));
  for (const dep of Object.keys(pkg.dependencies)) {
    const manifest = join(root, "node_modules", dep, "package.json");
    assert.ok(existsSync(manifest), `${dep} is installed`);
    const license = (require(manifest) as { license?: string }).license;
    assert.ok(license, `${dep} declares a licence`);
    const line = notice.split("\n").findIndex((l) => l.trimStart().startsWith(`${dep} `));
    assert.ok(line >= 0, `NOTICE has an entry for ${dep}`);
    const entry = notice
      .split("\n")
      .slice(line, line + 4)
      .join(" ");
    assert.ok(entry.includes(license), `NOTICE gives ${dep}'s licence ${license}`);
  }
});

test("ChEMBL answers carry the CC BY-SA 3.0 attribution NOTICE gives", () => {
  const source = sourceOf("ChEMBL_36", "2025-07-28");
  assert.equal(source.license, "CC BY-SA 3.0");
  assert.equal(source.license_url, LICENSE_URL);
  assert.ok(source.attribution.includes(CITATION) && source.attribution.includes("CC BY-SA 3.0"));
  assert.ok(notice.includes("CC BY-SA 3.0") && notice.includes(LICENSE_URL));
  assert.ok(flatNotice.includes(flat(CITATION)), "NOTICE gives the ChEMBL citation the answers carry");
});
