/**
 * server.json, the official MCP registry's record of this server, generated from package.json (name, version,
 * mcpName, repository, homepage) and the one list of environment variables (src/environment.ts), so neither
 * can drift: `npm run metadata` writes it, `npm run metadata -- --check` says whether it is current, and
 * test/package/registry.test.ts fails while it is not. Schema: the registry's 2025-12-11 version (vendored in
 * test/fixtures/mcp-registry/ with its source).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ENVIRONMENT, type EnvVar } from "../src/environment.js";
import { DEFAULT_BIND, DEFAULT_PORT } from "../src/transport/http.js";

export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/** The registry's limit on a description (server.schema.json, ServerDetail.description.maxLength). */
export const REGISTRY_DESCRIPTION = "Cheminformatics computed locally with RDKit, and ChEMBL data, for AI agents: tools, prompts, SQL";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface PackageJson {
  name: string;
  version: string;
  description: string;
  mcpName: string;
  homepage: string;
  repository: { type: string; url: string };
  engines: { node: string };
  license: string;
  author: string;
  keywords: string[];
  bugs: { url: string };
}

export function readPackageJson(root = ROOT): PackageJson {
  return JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;
}

/** The repository's web address (https://github.com/owner/name) from package.json's git URL. */
export function repositoryUrl(pkg: PackageJson): string {
  return pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
}

/** A variable as the registry describes an input: its default only when it is a value a client may set. */
function environmentVariable(v: EnvVar): Record<string, unknown> {
  const out: Record<string, unknown> = { name: v.name, description: v.summary, isRequired: false, format: v.format };
  const concrete =
    (v.format === "number" && /^\d+$/.test(v.default)) ||
    (v.format === "boolean" && /^(true|false)$/.test(v.default)) ||
    (v.choices?.includes(v.default) ?? false) ||
    /^https?:\/\//.test(v.default);
  if (concrete) out.default = v.default;
  if (v.choices) out.choices = [...v.choices];
  if (v.secret) out.isSecret = true;
  return out;
}

/** server.json as it must read for this package.json and this list of variables. */
export function serverJson(pkg: PackageJson): Record<string, unknown> {
  const serving = ENVIRONMENT.filter((v) => v.scope === "server");
  const variablesFor = (transport: "stdio" | "http") => serving.filter((v) => v.transport === undefined || v.transport === transport).map(environmentVariable);
  const npm = { registryType: "npm", registryBaseUrl: "https://registry.npmjs.org", identifier: pkg.name, version: pkg.version, runtimeHint: "npx" };
  return {
    $schema: SERVER_SCHEMA_URL,
    name: pkg.mcpName,
    title: "chematic-mcp",
    description: REGISTRY_DESCRIPTION,
    version: pkg.version,
    repository: { url: repositoryUrl(pkg), source: "github" },
    websiteUrl: pkg.homepage,
    packages: [
      // What a client config starts: npx chematic-mcp, MCP over stdio.
      { ...npm, transport: { type: "stdio" }, environmentVariables: variablesFor("stdio") },
      // The same package serving Streamable HTTP on its default loopback address (README, "Streamable HTTP").
      {
        ...npm,
        transport: { type: "streamable-http", url: `http://${DEFAULT_BIND}:${DEFAULT_PORT}/mcp` },
        packageArguments: [
          {
            type: "named",
            name: "--transport",
            value: "streamable-http",
            isRequired: true,
            description: "Serve MCP over Streamable HTTP at /mcp (stateless; 2026-07-28 and the legacy initialize dialects).",
          },
          {
            // What the HTTP-only variables below serve: without it, CHEMATIC_AUTH_TOKENS_FILE and CHEMATIC_OAUTH_* are read by nothing.
            type: "named",
            name: "--auth",
            default: "none",
            choices: ["none", "bearer", "oauth"],
            isRequired: false,
            description:
              "Authentication of every request: bearer checks the tokens listed in CHEMATIC_AUTH_TOKENS_FILE; oauth checks JWT access tokens of CHEMATIC_OAUTH_ISSUER for CHEMATIC_OAUTH_AUDIENCE.",
          },
        ],
        environmentVariables: variablesFor("http"),
      },
    ],
  };
}

export function serverJsonText(pkg: PackageJson): string {
  return `${JSON.stringify(serverJson(pkg), null, 2)}\n`;
}

function main(args: string[]): number {
  const path = join(ROOT, "server.json");
  const wanted = serverJsonText(readPackageJson());
  if (args.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // missing: not current
    }
    if (current === wanted) {
      console.error("server.json is current");
      return 0;
    }
    console.error("server.json is not current: run npm run metadata");
    return 1;
  }
  writeFileSync(path, wanted);
  console.error(`wrote ${path}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
