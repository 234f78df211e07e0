/**
 * A clean `npm ci` on Node 20 prints no EBADENGINE warning: every package in package-lock.json (dev ones
 * included) accepts the oldest Node the project supports (package.json engines: ^20.19.0). npm warns for each
 * locked package whose engines.node excludes the running Node; content-type@3 (>=22), pulled in by the
 * conformance suite through @octokit/request, did until package.json's overrides pinned 2.1.0.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const OLDEST_NODE = "20.19.0";

type Version = [number, number, number];

function version(text: string): Version {
  const [a = 0, b = 0, c = 0] = text
    .replace(/^v/, "")
    .split(".")
    .map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
  return [a, b, c];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** One comparator of an npm range: ">=18", "^20.9.0", "20", "10.*", "=1.2.3", "< 3". */
function comparator(node: Version, raw: string): boolean {
  const m = /^(>=|<=|>|<|=|\^|~)?\s*v?(\d+|\*|x)(?:\.(\d+|\*|x))?(?:\.(\d+|\*|x))?$/.exec(raw.trim());
  assert.ok(m, `an engines comparator this test reads: "${raw}"`);
  const [, op = "", major, minor, patch] = m;
  if (major === "*" || major === "x") return true;
  const wild = (p: string | undefined) => p === undefined || p === "*" || p === "x";
  const v: Version = [Number(major), wild(minor) ? 0 : Number(minor), wild(patch) ? 0 : Number(patch)];
  const c = compare(node, v);
  switch (op) {
    case ">=":
      return c >= 0;
    case ">":
      return c > 0;
    case "<=":
      return c <= 0;
    case "<":
      return c < 0;
    case "^":
      return c >= 0 && node[0] === v[0];
    case "~":
      return c >= 0 && node[0] === v[0] && node[1] === v[1];
    default:
      // "20", "20.x", "=20.1.2": the parts given must match.
      if (wild(minor)) return node[0] === v[0];
      if (wild(patch)) return node[0] === v[0] && node[1] === v[1];
      return c === 0;
  }
}

/** npm's range: alternatives split by "||", each a space-separated set of comparators ("> =" glued first). */
export function satisfies(nodeVersion: string, range: string): boolean {
  const node = version(nodeVersion);
  return range.split("||").some((alt) => {
    const parts = alt
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    return parts.length === 0 || parts.every((p) => comparator(node, p));
  });
}

test("the range reader agrees with npm on the forms the lockfile uses", () => {
  assert.equal(satisfies("20.19.0", ">=22"), false);
  assert.equal(satisfies("20.19.0", ">= 20"), true);
  assert.equal(satisfies("20.19.0", "^20.19.0 || >=22.12.0"), true);
  assert.equal(satisfies("20.18.0", "^20.19.0 || >=22.12.0"), false);
  assert.equal(satisfies("20.19.0", "18 || 20 || >=22"), true);
  assert.equal(satisfies("20.19.0", "10.* || >= 12.*"), true);
  assert.equal(satisfies("20.19.0", ">=9.4.0 || ^8.9.4"), true);
  assert.equal(satisfies("20.19.0", "^18.18.0 || ^20.9.0 || >=21.1.0"), true);
  assert.equal(satisfies("20.19.0", ">=20.18.1"), true);
});

test("npm ci on Node 20 prints no EBADENGINE warning: every locked package's engines.node accepts Node 20.19", () => {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { engines: { node: string } };
  assert.ok(satisfies(OLDEST_NODE, pkg.engines.node), `package.json engines (${pkg.engines.node}) still start at Node ${OLDEST_NODE}`);
  const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, "utf8")) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };
  const refusing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const engines = entry.engines;
    if (!engines || Array.isArray(engines) || engines.node === undefined) continue;
    if (!satisfies(OLDEST_NODE, engines.node)) refusing.push(`${path.replace(/^.*node_modules\//, "")}@${entry.version ?? "?"} (node ${engines.node})`);
  }
  assert.deepEqual(refusing, [], "locked packages npm would warn about on Node 20");
});
