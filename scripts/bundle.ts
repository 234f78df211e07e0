/**
 * `npm run bundle`: .mcpb bundles (MCP Bundles, the one-click install of Claude Desktop), one per target platform,
 * built with the official packer (@anthropic-ai/mcpb, pure JavaScript). For each target a staging folder gets the
 * compiled server (build/src), its assets and skills, a package.json and lock trimmed to the production
 * dependencies, `npm ci --os --cpu` for that platform (npm installs that platform's optional native packages: DuckDB
 * for the canvas, resvg for depict's PNG), and a manifest.json; the packer validates the manifest and zips the folder.
 * A target whose native packages npm could not install still gets a bundle, whose manifest says what it lacks.
 *
 *   npm run bundle                              every target, into build/mcpb/
 *   npm run bundle -- --target linux-x64 ...    some targets
 *   npm run bundle -- --out DIR --keep-staging  another output folder; keep the staging folders
 *   npm run bundle -- --prefer-offline          npm takes what its cache holds without asking the registry
 *
 * The npm registry (or a warm npm cache: --prefer-offline) must be reachable for another platform's packages.
 * test/package/bundle.test.ts builds the linux-x64 bundle this way, unpacks it and runs the server from it.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { ENVIRONMENT } from "../src/environment.js";
import { appOnly, firstSentence } from "../src/contract/tool.js";
import { allTools } from "../src/tools/index.js";
import { ROOT, readPackageJson, repositoryUrl, type PackageJson } from "./metadata.js";

/** The MCPB manifest version written (the spec's current one, MANIFEST.md of github.com/modelcontextprotocol/mcpb). */
export const MANIFEST_VERSION = "0.3";

export interface Target {
  /** <os>-<cpu>, as the bundle's file name says. */
  id: string;
  os: "darwin" | "win32" | "linux";
  cpu: "arm64" | "x64";
  /** Claude Desktop's name for the platform, for the README and the manifest's text. */
  label: string;
  /** The platform's native packages: DuckDB's binding (the canvas) and resvg's (depict's PNG). */
  natives: Array<{ pkg: string; feature: string }>;
}

function natives(duckdb: string, resvg: string): Target["natives"] {
  return [
    {
      pkg: `@duckdb/node-bindings-${duckdb}`,
      feature: "the canvas (chembl_get_bioactivities staging, the chembl_dataframe_* tools, canvas_import, canvas_annotate)",
    },
    { pkg: `@resvg/resvg-js-${resvg}`, feature: "depict's PNG pictures (format svg still works)" },
  ];
}

export const TARGETS: readonly Target[] = [
  { id: "darwin-arm64", os: "darwin", cpu: "arm64", label: "macOS on Apple silicon", natives: natives("darwin-arm64", "darwin-arm64") },
  { id: "darwin-x64", os: "darwin", cpu: "x64", label: "macOS on Intel", natives: natives("darwin-x64", "darwin-x64") },
  { id: "win32-x64", os: "win32", cpu: "x64", label: "Windows x64", natives: natives("win32-x64", "win32-x64-msvc") },
  { id: "linux-x64", os: "linux", cpu: "x64", label: "Linux x64 (glibc)", natives: natives("linux-x64", "linux-x64-gnu") },
];

/**
 * The folders a desktop user hands files over in: canvas_import reads the first (`path`), canvas_export writes into the
 * second. Defaults under the user's documents (MCPB substitutes ${DOCUMENTS} in a default); the server makes them on
 * its first start (CHEMATIC_CREATE_DIRS, set below). The README's desktop section names them.
 */
export const DESKTOP_FOLDERS = { import: "${DOCUMENTS}/chematic/import", export: "${DOCUMENTS}/chematic/export" } as const;

/** The options Claude Desktop asks for when the bundle is installed: each one an environment variable of the server. */
const USER_CONFIG: ReadonlyArray<{
  name: string;
  type: "string" | "boolean" | "file" | "directory";
  title: string;
  extra?: string;
  sensitive?: boolean;
  /** The default offered, when not the variable's own. */
  default?: string;
}> = [
  { name: "CHEMATIC_OFFLINE", type: "boolean", title: "Offline mode", extra: "ChEMBL and PubChem are not contacted (a ChEMBL SQLite dump still answers)." },
  { name: "CHEMATIC_LOG_LEVEL", type: "string", title: "Log level" },
  { name: "HTTPS_PROXY", type: "string", title: "HTTPS proxy", sensitive: true, extra: "Leave empty for a direct connection." },
  { name: "CHEMBL_API_BASE_URL", type: "string", title: "ChEMBL API mirror", extra: "Leave empty for the public ChEMBL API." },
  {
    name: "CHEMBL_SQLITE",
    type: "file",
    title: "ChEMBL SQLite dump",
    extra:
      "Leave empty to use the web API. The dump needs the better-sqlite3 driver, which this bundle does not carry (a native module built " +
      "for one Node.js version): install chematic-mcp with npm for offline ChEMBL.",
  },
  {
    name: "CHEMATIC_IMPORT_DIR",
    type: "directory",
    title: "Import folder",
    default: DESKTOP_FOLDERS.import,
    extra: "Put a hit list (.sdf, .sdf.gz, .csv, .smi) here and ask for it by name (the triage_hit_list prompt). Made on first start if missing.",
  },
  {
    name: "CHEMATIC_EXPORT_DIR",
    type: "directory",
    title: "Export folder",
    default: DESKTOP_FOLDERS.export,
    extra: "Where exported tables (SDF, CSV, Parquet) are written. Made on first start if missing.",
  },
];

/** Variables every bundle sets to a fixed value (not asked for): the default folders are made on the first start. */
const FIXED_ENV: Readonly<Record<string, string>> = { CHEMATIC_CREATE_DIRS: "true" };

/** What a bundle runs: the server's own entry, from the bundle's folder, with the user's settings as its environment. */
export function mcpConfig(): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: "node",
    args: ["${__dirname}/build/src/cli.js"],
    env: { ...Object.fromEntries(USER_CONFIG.map((o) => [o.name, `\${user_config.${o.name}}`])), ...FIXED_ENV },
  };
}

/** manifest.json for a target; `missing` lists the native packages the staging could not install. */
export function manifestFor(target: Target, pkg: PackageJson, missing: readonly string[] = []): Record<string, unknown> {
  const repo = repositoryUrl(pkg);
  const lacking = target.natives.filter((n) => missing.includes(n.pkg));
  const userConfig: Record<string, unknown> = {};
  for (const name of [...USER_CONFIG.map((o) => o.name), ...Object.keys(FIXED_ENV)]) {
    if (!ENVIRONMENT.some((e) => e.name === name)) throw new Error(`the bundle sets ${name}, which src/environment.ts does not list`);
  }
  for (const option of USER_CONFIG) {
    const v = ENVIRONMENT.find((e) => e.name === option.name)!;
    const values = v.choices ? ` One of ${v.choices.join(", ")}.` : "";
    userConfig[option.name] = {
      type: option.type,
      title: option.title,
      description: `${v.summary}${values}${option.extra ? ` ${option.extra}` : ""}`,
      required: false,
      // Claude Desktop replaces ${user_config.X} only with a value: an optional setting needs a default ("" is unset).
      default: option.default ?? (option.type === "boolean" ? v.default === "true" : v.choices ? v.default : ""),
      ...(option.sensitive ? { sensitive: true } : {}),
    };
  }
  // The app-only tools (MCP Apps visibility ["app"]) are for the apps' own calls, never shown as the server's tools.
  const tools = allTools({})
    .filter((t) => t.name !== "chembl_dataframe_drop" && !appOnly(t))
    .map((t) => ({ name: t.name, description: firstSentence(t.description) }));
  return {
    manifest_version: MANIFEST_VERSION,
    name: pkg.name,
    display_name: "chematic-mcp: RDKit chemistry and ChEMBL",
    version: pkg.version,
    description: "Cheminformatics computed locally with RDKit and ChEMBL bioactivity data for your agent: properties, alerts, 3D, pictures, SQL.",
    long_description: [
      `This bundle is for **${target.label}** (${target.id}). It runs the chematic-mcp server with the Node.js that Claude Desktop ships.`,
      "Chemistry (RDKit, OpenChemLib) is computed locally; ChEMBL and PubChem are queried over the network unless offline mode is on.",
      "Large ChEMBL bioactivity views are staged on an in-memory DuckDB canvas that lasts while the server runs (Claude Desktop restarts it with the app); query them with SQL.",
      "Hand over a file by putting it in Documents/chematic/import (the import folder setting) and asking for it by name; exported tables land in Documents/chematic/export.",
      lacking.length === 0
        ? "Every feature is included."
        : `Not in this bundle (npm could not install ${lacking.map((n) => n.pkg).join(", ")} for this platform): ${lacking.map((n) => n.feature).join("; ")}.`,
      "Not in any bundle: the offline ChEMBL SQLite source (its better-sqlite3 driver is built per Node.js version); install with npm for it.",
    ].join("\n\n"),
    author: { name: pkg.author, url: repo },
    repository: { type: "git", url: repo },
    homepage: pkg.homepage,
    documentation: `${repo}#readme`,
    support: pkg.bugs.url,
    license: pkg.license,
    keywords: pkg.keywords,
    server: { type: "node", entry_point: "build/src/cli.js", mcp_config: mcpConfig() },
    tools,
    tools_generated: false,
    // Prompts are rendered by the server (prompts/list, prompts/get), not templates the host fills in.
    prompts_generated: true,
    compatibility: { platforms: [target.os], runtimes: { node: pkg.engines.node } },
    user_config: userConfig,
  };
}

/** package.json for the bundle: what the server reads at run time and npm needs to install its dependencies. */
function bundlePackageJson(): Record<string, unknown> {
  const full = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;
  const keep = ["name", "version", "description", "mcpName", "type", "license", "author", "homepage", "repository", "bugs", "bin", "engines", "dependencies"];
  return Object.fromEntries(keep.filter((k) => k in full).map((k) => [k, full[k]]));
}

/** The lock with the root's dev and optional dependencies taken out, so npm ci installs the production tree only. */
function bundleLock(): Record<string, unknown> {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, Record<string, unknown>> };
  const root = { ...lock.packages[""] };
  delete root.devDependencies;
  delete root.optionalDependencies;
  lock.packages[""] = root;
  return lock;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

export interface StageOptions {
  /** The staging folder (created; emptied first). */
  dir: string;
  /** npm's --prefer-offline (a warm cache serves the packages without the registry). */
  preferOffline?: boolean;
  /** Lines of progress. */
  log?: (line: string) => void;
  /** The npm command (npm.cmd on Windows). */
  npm?: string;
}

/** Stages one target: the compiled server, its files and production dependencies for that platform, and its manifest. */
export function stage(target: Target, options: StageOptions): { missing: string[]; manifest: Record<string, unknown> } {
  const { dir } = options;
  const log = options.log ?? (() => {});
  const compiled = join(ROOT, "build", "src");
  if (!existsSync(join(compiled, "cli.js"))) throw new Error("build/src/cli.js is missing: run npm run build first");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The compiled server without its source maps (the bundle ships no .ts for them to point at), and without
  // compiled files whose source is gone (a development build leaves them behind; prepack's prune does not run here).
  const current = (f: string) => f.endsWith(".js") && existsSync(join(ROOT, "src", relative(compiled, f).replace(/\.js$/, ".ts")));
  for (const file of walk(compiled).filter(current)) {
    const to = join(dir, "build", "src", relative(compiled, file));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(file, to);
  }
  for (const entry of ["assets", "skills", "LICENSE", "NOTICE", "README.md", "CHANGELOG.md"]) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(bundlePackageJson(), null, 2)}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(bundleLock(), null, 2)}\n`);
  const npm = options.npm ?? (process.platform === "win32" ? "npm.cmd" : "npm");
  const args = ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", `--os=${target.os}`, `--cpu=${target.cpu}`];
  if (target.os === "linux") args.push("--libc=glibc");
  if (options.preferOffline) args.push("--prefer-offline");
  log(`${target.id}: npm ${args.join(" ")}`);
  // Without an enclosing npm run's lifecycle and config variables, which would override the flags above.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_(lifecycle|package|config)_|^npm_command$|^INIT_CWD$/i.test(k)) env[k] = v;
  const r = spawnSync(npm, args, { cwd: dir, env, encoding: "utf8", shell: process.platform === "win32", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`npm ci for ${target.id} failed (${r.status ?? r.signal}):\n${(r.stderr ?? "").slice(-4000)}`);
  // The lock was for npm; the bundle runs from node_modules as installed.
  rmSync(join(dir, "package-lock.json"));
  const missing = target.natives.filter((n) => !existsSync(join(dir, "node_modules", ...n.pkg.split("/"), "package.json"))).map((n) => n.pkg);
  for (const m of missing) log(`${target.id}: ${m} could not be installed; the bundle says what it lacks`);
  const manifest = manifestFor(target, readPackageJson(), missing);
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return { missing, manifest };
}

/** The packer's API (@anthropic-ai/mcpb), loaded on demand: a dev dependency. */
interface Packer {
  validateManifest(path: string): boolean;
  packExtension(options: { extensionPath: string; outputPath?: string; silent?: boolean }): Promise<boolean>;
  unpackExtension(options: { mcpbPath: string; outputDir?: string; silent?: boolean }): Promise<boolean>;
}

export async function packer(): Promise<Packer> {
  const entry = createRequire(import.meta.url).resolve("@anthropic-ai/mcpb");
  return (await import(pathToFileURL(entry).href)) as Packer;
}

export function bundleName(pkg: PackageJson, target: Target): string {
  return `${pkg.name}-${pkg.version}-${target.id}.mcpb`;
}

/** Stages, validates and packs one target; returns the bundle's path and size. */
export async function buildBundle(
  target: Target,
  options: { outDir: string; stagingDir: string; keepStaging?: boolean; preferOffline?: boolean; log?: (line: string) => void },
): Promise<{ path: string; bytes: number; missing: string[] }> {
  const log = options.log ?? (() => {});
  const { missing } = stage(target, { dir: options.stagingDir, preferOffline: options.preferOffline, log });
  const mcpb = await packer();
  if (!mcpb.validateManifest(join(options.stagingDir, "manifest.json"))) throw new Error(`${target.id}: the packer refused manifest.json`);
  mkdirSync(options.outDir, { recursive: true });
  const path = join(options.outDir, bundleName(readPackageJson(), target));
  rmSync(path, { force: true });
  if (!(await mcpb.packExtension({ extensionPath: options.stagingDir, outputPath: path, silent: true }))) throw new Error(`${target.id}: the packer failed`);
  if (!options.keepStaging) {
    rmSync(options.stagingDir, { recursive: true, force: true });
    // The staging parent too, once empty.
    if (readdirSync(dirname(options.stagingDir)).length === 0) rmSync(dirname(options.stagingDir), { recursive: true, force: true });
  }
  const bytes = statSync(path).size;
  log(`${target.id}: ${basename(path)} ${(bytes / 1024 / 1024).toFixed(1)} MB${missing.length ? ` (without ${missing.join(", ")})` : ""}`);
  return { path, bytes, missing };
}

async function main(args: string[]): Promise<number> {
  const wanted: string[] = [];
  let outDir = join(ROOT, "build", "mcpb");
  let keepStaging = false;
  let preferOffline = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--target") wanted.push(args[++i] ?? "");
    else if (a === "--out") outDir = args[++i] ?? outDir;
    else if (a === "--keep-staging") keepStaging = true;
    else if (a === "--prefer-offline") preferOffline = true;
    else {
      console.error(`bundle: unknown argument ${a} (--target ${TARGETS.map((t) => t.id).join("|")}, --out DIR, --keep-staging, --prefer-offline)`);
      return 2;
    }
  }
  const unknown = wanted.filter((w) => !TARGETS.some((t) => t.id === w));
  if (unknown.length > 0) {
    console.error(`bundle: unknown target ${unknown.join(", ")}; targets: ${TARGETS.map((t) => t.id).join(", ")}`);
    return 2;
  }
  const targets = wanted.length > 0 ? TARGETS.filter((t) => wanted.includes(t.id)) : TARGETS;
  for (const target of targets) {
    const started = Date.now();
    const result = await buildBundle(target, {
      outDir,
      stagingDir: join(outDir, "staging", target.id),
      keepStaging,
      preferOffline,
      log: (l) => console.error(l),
    });
    console.error(`${target.id}: done in ${((Date.now() - started) / 1000).toFixed(0)} s -> ${result.path}`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = await main(process.argv.slice(2));
