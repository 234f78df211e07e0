/**
 * One table of protocol eras (issue 38 item 1): what differs between protocol versions is in src/protocol/eras.ts,
 * and every other module asks it. The server, the registry, prompts, result shaping and the HTTP transport each
 * compared version strings or eras on their own; a version string or an era compared outside src/protocol/ is where
 * that starts again. Strings are read from the syntax tree, so comments may still name versions.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { PROTOCOL_VERSIONS } from "../../src/protocol/eras.js";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));
const VERSIONS = Object.keys(PROTOCOL_VERSIONS);

/** What is allowed outside src/protocol/, and why: where (a file or folder relative to src/, with /) and text its lines hold. */
const ALLOWED: ReadonlyArray<{ where: string; text: string; why: string }> = [
  {
    where: "server/connection.ts",
    text: `if (era === "modern") {`,
    why: "the Connection routes a request to its era's handler: the branch on classifyEra's decision, not a feature of a version",
  },
  {
    where: "domain/canvas/",
    text: "2026-07-28 client",
    why: "a hint's prose names the clients that send the Mcp-Param-Canvas-Id header; domain/ may not import protocol/",
  },
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function isEraLiteral(node: ts.Node): boolean {
  return ts.isStringLiteralLike(node) && (node.text === "legacy" || node.text === "modern");
}

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Each string naming a protocol version, and each comparison with (or case of) "legacy" or "modern", as name:line: text. */
function findings(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${name}:${line + 1}: ${text.split("\n")[line]!.trim()}`);
  };
  const visit = (node: ts.Node) => {
    const literal = ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node);
    if (literal && VERSIONS.some((v) => node.text.includes(v))) report(node);
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind) && (isEraLiteral(node.left) || isEraLiteral(node.right))) report(node);
    if (ts.isCaseClause(node) && isEraLiteral(node.expression)) report(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The findings in every source file outside src/protocol/, each named relative to src/ (parsed once, for both tests). */
let scanned: string[] | undefined;
function outsideProtocol(): string[] {
  return (scanned ??= sources(SRC)
    .map((f) => relative(SRC, f).split(sep).join("/"))
    .filter((name) => !name.startsWith("protocol/"))
    .flatMap((name) => findings(name, readFileSync(join(SRC, name), "utf8"))));
}

const isAllowed = (finding: string, a: (typeof ALLOWED)[number]) => finding.startsWith(a.where) && finding.includes(a.text);

test("no protocol version string and no era comparison outside src/protocol/ (but the allowed ones)", () => {
  assert.deepEqual(
    outsideProtocol().filter((f) => !ALLOWED.some((a) => isAllowed(f, a))),
    [],
  );
});

test("each allowed exception is still there (a stale one is taken off the list)", () => {
  const all = outsideProtocol();
  for (const a of ALLOWED) {
    assert.ok(
      all.some((f) => isAllowed(f, a)),
      `${a.where} no longer holds ${a.text} (allowed because ${a.why})`,
    );
  }
});

test("the scan finds version strings, era comparisons and era cases, and not comments", () => {
  const probe = [
    `// 2025-06-18 in a comment, and era === "modern" too`,
    `const a = "2025-06-18";`,
    "const b = `MCP ${x} 2026-07-28`;",
    `if (era !== "legacy") f();`,
    `if ("modern" == decision.era) f();`,
    `switch (era) { case "legacy": break; }`,
    `const c = "2099-01-01" === era ? "legacy" : "modern";`,
  ].join("\n");
  assert.deepEqual(
    findings("probe.ts", probe).map((f) => f.split(":")[1]),
    ["2", "3", "4", "5", "6"],
  );
});
