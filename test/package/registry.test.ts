/**
 * server.json, the official MCP registry's record: valid against the registry's JSON Schema (version 2025-12-11,
 * vendored in test/fixtures/mcp-registry/ with its source), using only fields that schema defines, and current:
 * exactly what scripts/metadata.ts generates from package.json and src/environment.ts, so its name is package.json's
 * mcpName, its versions package.json's, and its environment variables the server's, each with a row in the README's
 * Configuration table. A new variable (the list), a release (the version) or a new owner (repository) that did not
 * regenerate it fails here: run `npm run metadata`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Ajv as AjvType } from "ajv";
import { ENVIRONMENT } from "../../src/environment.js";
import { REGISTRY_DESCRIPTION, ROOT, SERVER_SCHEMA_URL, readPackageJson, repositoryUrl, serverJson, serverJsonText } from "../../scripts/metadata.js";

const SCHEMA_DIR = join(ROOT, "test", "fixtures", "mcp-registry");
const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, "server.schema.json"), "utf8")) as {
  $id: string;
  definitions: Record<string, { properties?: Record<string, unknown>; allOf?: Array<{ properties?: Record<string, unknown>; $ref?: string }> }>;
};
const pkg = readPackageJson();
const text = readFileSync(join(ROOT, "server.json"), "utf8");
const server = JSON.parse(text) as {
  $schema: string;
  name: string;
  description: string;
  version: string;
  repository: { url: string; source: string };
  packages: Array<{
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string; url?: string };
    environmentVariables: Array<Record<string, unknown> & { name: string; description: string }>;
    packageArguments?: Array<Record<string, unknown>>;
  }>;
};

function validator(): ReturnType<AjvType["compile"]> {
  // ajv's default class is draft-07, the schema's dialect. The schema carries OpenAPI's `example` and
  // `discriminator`: not strict. "uri" is checked as WHATWG URL parsing does (no ajv-formats here).
  const { default: Ajv } = createRequire(import.meta.url)("ajv") as { default: new (o: Record<string, unknown>) => AjvType };
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat("uri", (value: string) => URL.canParse(value));
  return ajv.compile(schema);
}

test("the vendored schema is the version server.json names", () => {
  assert.equal(schema.$id, SERVER_SCHEMA_URL);
  assert.equal(server.$schema, schema.$id);
});

test("server.json is valid against the registry's schema, and a broken one is not", () => {
  const validate = validator();
  assert.ok(validate(server), JSON.stringify(validate.errors, null, 2));
  // The validator does reject: a name without its namespace, a description over the limit, a package without a transport.
  for (const broken of [
    { ...server, name: "chematic-mcp" },
    { ...server, description: "x".repeat(101) },
    { ...server, packages: [{ ...server.packages[0], transport: undefined }] },
    { ...server, packages: [{ ...server.packages[0], version: "latest" }] },
  ]) {
    assert.equal(validate(JSON.parse(JSON.stringify(broken))), false, JSON.stringify(broken).slice(0, 200));
  }
});

test("server.json uses only fields the schema defines (the schema itself allows unknown ones)", () => {
  const defs = schema.definitions;
  const props = (...names: string[]) =>
    new Set(
      names.flatMap((n) => {
        const d = defs[n]!;
        return [...Object.keys(d.properties ?? {}), ...(d.allOf ?? []).flatMap((a) => Object.keys(a.properties ?? {}))];
      }),
    );
  const check = (value: Record<string, unknown>, allowed: Set<string>, where: string) => {
    for (const key of Object.keys(value)) assert.ok(allowed.has(key), `${where}: ${key} is not a field of the schema`);
  };
  check(server, props("ServerDetail"), "server");
  check(server.repository, props("Repository"), "repository");
  for (const p of server.packages) {
    check(p, props("Package"), "package");
    check(p.transport, props("StdioTransport", "StreamableHttpTransport"), "transport");
    for (const v of p.environmentVariables) check(v, props("Input", "KeyValueInput"), `variable ${v.name}`);
    for (const a of p.packageArguments ?? []) check(a, props("Input", "InputWithVariables", "NamedArgument"), "argument");
  }
});

test("server.json is current: what scripts/metadata.ts makes of package.json and src/environment.ts", () => {
  assert.equal(text, serverJsonText(pkg), "server.json is stale: run npm run metadata");
  assert.deepEqual(server, serverJson(pkg));
});

test("name, description, versions and repository agree with package.json and the registry's rules", () => {
  assert.equal(server.name, pkg.mcpName, "package.json mcpName is server.json's name (the registry checks it on npm)");
  const [namespace, serverName] = server.name.split("/");
  const [owner, repo] = new URL(repositoryUrl(pkg)).pathname.slice(1).split("/");
  assert.equal(namespace, `io.github.${owner}`, "a GitHub namespace is the repository's owner");
  assert.equal(serverName, repo);
  assert.equal(server.repository.url, `https://github.com/${owner}/${repo}`);
  assert.equal(server.description, REGISTRY_DESCRIPTION);
  assert.ok(server.description.length <= 100, `${server.description.length} characters: the registry allows 100`);
  assert.equal(server.version, pkg.version);
  for (const p of server.packages) {
    assert.equal(p.registryType, "npm");
    assert.equal(p.identifier, pkg.name);
    assert.equal(p.version, pkg.version);
  }
  assert.deepEqual(
    server.packages.map((p) => p.transport.type),
    ["stdio", "streamable-http"],
    "stdio, and the HTTP transport described",
  );
  assert.match(server.packages[1]!.transport.url!, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.ok(pkg.bugs.url.startsWith(server.repository.url) && pkg.homepage.startsWith(server.repository.url));
});

test("its environment variables are the server's, as described in src/environment.ts and the README's table", () => {
  const readme = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
  for (const p of server.packages) {
    const transport = p.transport.type === "stdio" ? "stdio" : "http";
    const serving = ENVIRONMENT.filter((v) => v.scope === "server" && (v.transport === undefined || v.transport === transport));
    assert.deepEqual(
      p.environmentVariables.map((v) => [v.name, v.description]),
      serving.map((v) => [v.name, v.summary]),
      `the ${transport} package's variables`,
    );
    for (const v of p.environmentVariables) {
      assert.match(readme, new RegExp(`^\\| \`${v.name}\` \\|`, "m"), `${v.name} has a row in the README's Configuration table`);
      if (v.choices) assert.ok((v.choices as string[]).includes(v.default as string), `${v.name}: its default is one of its choices`);
    }
  }
  const names = server.packages[0]!.environmentVariables.map((v) => v.name);
  assert.ok(names.includes("CHEMATIC_TOOLSETS") && names.includes("CHEMBL_SQLITE"));
});

test("CHANGELOG.md (Keep a Changelog) opens with this version's release, each release linked", () => {
  const changelog = readFileSync(join(ROOT, "CHANGELOG.md"), "utf8");
  const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$/gm)].map((m) => m[1]!);
  assert.equal(releases[0], pkg.version, "the newest release is package.json's version");
  assert.ok(releases.includes("0.1.0"));
  for (const version of releases) assert.match(changelog, new RegExp(`^\\[${version.replace(/\./g, "\\.")}\\]: https://`, "m"), `${version} has its link`);
  for (const section of changelog.split(/^## /m).slice(1)) {
    for (const heading of section.matchAll(/^### (.+)$/gm))
      assert.ok(["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"].includes(heading[1]!), heading[1]);
  }
});
