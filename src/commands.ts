/**
 * chematic-mcp command line. With no arguments it serves MCP over stdio.
 *   chematic-mcp [--transport stdio]                  serve stdio (default)
 *   chematic-mcp --transport streamable-http [...]    serve HTTP at /mcp (see USAGE for the options)
 *   chematic-mcp tools                                print the tool table
 *   chematic-mcp call <tool> '<json>' [--out FILE]    run one tool, print its structured result (exit 1 on a tool error);
 *                                                     --out writes its picture (PNG or SVG) to FILE
 *   chematic-mcp doctor [--json] [--timeout-ms N]     check the install and the upstreams (exit 1 when a check fails)
 *   chematic-mcp chembl download [--release N] [--dir D]   fetch, check and unpack the ChEMBL SQLite release
 *   chematic-mcp chembl index [--sqlite PATH]         build the dump's lookup sidecar and structure index
 *   chematic-mcp --help | --version (-v)
 * Usage errors and invalid environment variables go to stderr with exit status 2; an HTTP bind failure
 * exits 1. Nothing but protocol is ever written to stdout while serving.
 */
import { isIP } from "node:net";
import { writeFileSync } from "node:fs";
import { extname, resolve as resolvePath } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { createApp, type App } from "./app.js";
import { ConfigError } from "./config.js";
import { DEFAULT_DOCTOR_TIMEOUT_MS, formatReport, runDoctor } from "./doctor.js";
import { PUBCHEM_DEFAULT_BASE_URL } from "./domain/net/pubchem.js";
import { BearerAuthenticator, TOKENS_FILE_VARIABLE, TokenFileError } from "./domain/auth/bearer.js";
import type { OAuthAuthenticator } from "./domain/auth/oauth.js";
import { getCanvasManager } from "./domain/canvas/manager.js";
import { RpcError } from "./protocol/jsonrpc.js";
import { LATEST_LEGACY_VERSION, MODERN_VERSION, REFERENCE_VERSION } from "./protocol/eras.js";
import { ToolCallRefused } from "./server/server.js";
import { firstSentence, type ContentBlock } from "./contract/tool.js";
import { environmentHelp } from "./environment.js";
import { endpointOf } from "./server/transport.js";
import { serveStdio } from "./transport/stdio.js";
import { DEFAULT_BIND, DEFAULT_MAX_CONCURRENCY, DEFAULT_PORT, serveHttp } from "./transport/http.js";
import { isLoopbackAddress, normalizeOrigin } from "./transport/http-headers.js";
import { PACKAGE } from "./version.js";

const USAGE = `Usage:
  chematic-mcp [--transport stdio]        Serve MCP over stdio (default)
  chematic-mcp --transport streamable-http [options]
                                          Serve MCP over HTTP at POST /mcp (authentication: --auth)
  chematic-mcp tools                      Print the tool table (name, title, first sentence)
  chematic-mcp call <tool> '<json-args>' [--out <file>]
                                          Run one tool and print its structured result; --out (before or
                                          after the arguments) writes the picture it answers (depict's PNG
                                          or SVG) to the file
  chematic-mcp doctor [--json] [--timeout-ms <n>]
                                          Check Node.js, RDKit, OpenChemLib, the data assets, DuckDB,
                                          proxy settings and whether ChEMBL and PubChem answer
  chematic-mcp chembl download [--release <n>] [--dir <folder>]
                                          Download the official ChEMBL SQLite release (default: the latest,
                                          into the current folder), check its sha256, unpack it and print
                                          the CHEMBL_SQLITE line to use; an interrupted download resumes
  chematic-mcp chembl index [--sqlite <path>]
                                          Build the lookup index and the structure index (offline
                                          similarity and substructure search) of the CHEMBL_SQLITE dump,
                                          in files beside it; the dump is never written
  chematic-mcp --help | --version (-v)

Streamable HTTP options:
  --bind <ip>                 Address to listen on (default ${DEFAULT_BIND})
  --port <n>                  Port (default ${DEFAULT_PORT}; 0 picks a free one, printed to stderr)
  --allow-non-loopback        Required to bind a non-loopback address; put TLS in front and turn on --auth
  --allowed-origin <origin>   Extra browser Origin allowed, exactly scheme://host[:port] (repeatable)
  --max-concurrency <n>       Requests served at once; more get 503 with Retry-After: 1 (default ${DEFAULT_MAX_CONCURRENCY})
  --auth none|bearer|oauth    Authentication (default none): bearer takes the tokens listed (as SHA-256) in
                              CHEMATIC_AUTH_TOKENS_FILE, re-read on SIGHUP; oauth accepts JWT access tokens of
                              CHEMATIC_OAUTH_ISSUER for CHEMATIC_OAUTH_AUDIENCE (with CHEMATIC_OAUTH_SCOPES, if set)

`;

/** --help: the usage, then every environment variable (a usage error prints the usage alone). */
const HELP = `${USAGE}${environmentHelp()}\n`;

class UsageError extends Error {}

function usageError(message: string): never {
  throw new UsageError(message);
}

interface ServeOptions {
  transport: "stdio" | "streamable-http";
  bind: string;
  port: number;
  allowNonLoopback: boolean;
  allowedOrigins: string[];
  maxConcurrency: number;
  auth: "none" | "bearer" | "oauth";
}

/** The serve options as node:util parseArgs reads them (strict: an unknown option or a stray argument is a usage error). */
const SERVE_OPTIONS = {
  transport: { type: "string" },
  bind: { type: "string" },
  port: { type: "string" },
  "allow-non-loopback": { type: "boolean" },
  "allowed-origin": { type: "string", multiple: true },
  "max-concurrency": { type: "string" },
  auth: { type: "string" },
} as const satisfies ParseArgsConfig["options"];
const HTTP_ONLY = new Set(["bind", "port", "allow-non-loopback", "allowed-origin", "max-concurrency", "auth"]);

/**
 * parseArgs, strict, with its errors turned into this command's usage messages (exit 2):
 * "unknown <what> --x", "--x needs a value", "--x takes no value".
 */
function parseStrict<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T, what: string) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false, tokens: true });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const named = /'(-[^' ]*)/.exec(err.message)?.[1];
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") usageError(`unknown ${what} ${named ?? err.message}`);
    if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") usageError(`unknown ${what} ${/'([^']*)'/.exec(err.message)?.[1] ?? err.message}`);
    if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && named) {
      usageError(/does not take an argument/.test(err.message) ? `${named} takes no value` : `${named} needs a value`);
    }
    throw e;
  }
}

function wholeNumber(flag: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) usageError(`${flag} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) usageError(`${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Parses the serve options strictly: unknown options, HTTP-only options with stdio and bad values are usage errors. */
function parseServeArgs(args: string[]): ServeOptions {
  const { values, tokens } = parseStrict(args, SERVE_OPTIONS, "option");
  const options: ServeOptions = {
    transport: "stdio",
    bind: DEFAULT_BIND,
    port: DEFAULT_PORT,
    allowNonLoopback: values["allow-non-loopback"] === true,
    allowedOrigins: [],
    maxConcurrency: DEFAULT_MAX_CONCURRENCY,
    auth: "none",
  };
  const transport = values.transport;
  if (transport !== undefined) {
    if (transport !== "stdio" && transport !== "streamable-http") usageError(`unknown transport "${transport}" (expected stdio or streamable-http)`);
    options.transport = transport;
  }
  const bind = values.bind;
  if (bind !== undefined) {
    if (bind === "localhost") options.bind = "127.0.0.1";
    else if (isIP(bind) !== 0) options.bind = bind;
    else usageError(`--bind needs an IP address (e.g. 127.0.0.1 or ::1), got "${bind}"`);
  }
  if (values.port !== undefined) options.port = wholeNumber("--port", values.port, 0, 65535);
  for (const value of values["allowed-origin"] ?? []) {
    const origin = normalizeOrigin(value);
    if (origin === undefined) usageError(`--allowed-origin needs exactly scheme://host[:port] (http or https, no path), got "${value}"`);
    options.allowedOrigins.push(origin);
  }
  if (values["max-concurrency"] !== undefined) options.maxConcurrency = wholeNumber("--max-concurrency", values["max-concurrency"], 1, 4096);
  if (values.auth !== undefined) {
    if (values.auth !== "none" && values.auth !== "bearer" && values.auth !== "oauth") usageError(`--auth must be none, bearer or oauth, got "${values.auth}"`);
    options.auth = values.auth;
  }
  // In the order given, once each.
  const httpOnlyGiven = [...new Set(tokens.flatMap((t) => (t.kind === "option" && HTTP_ONLY.has(t.name) ? [`--${t.name}`] : [])))];
  if (options.transport === "stdio" && httpOnlyGiven.length > 0) {
    usageError(`${httpOnlyGiven.join(", ")} only apply to --transport streamable-http`);
  }
  if (options.transport === "streamable-http" && !isLoopbackAddress(options.bind) && !options.allowNonLoopback) {
    usageError(
      options.auth === "none"
        ? `refusing to bind the non-loopback address ${options.bind} without authentication. ` +
            "Pass --auth bearer or --auth oauth (or put authentication in a reverse proxy), pass --allow-non-loopback, and put TLS in front of it"
        : `refusing to bind the non-loopback address ${options.bind}: tokens must not cross a network in clear. ` +
            "Put TLS in front of it (a reverse proxy) and pass --allow-non-loopback",
    );
  }
  return options;
}

/**
 * What the start line says about the networked tools: which upstream services they reach (and where), or
 * that CHEMATIC_OFFLINE keeps them off. Networked tools are those marked openWorldHint.
 */
function networkFields(app: App): Record<string, unknown> {
  const networked = app.server.registry.tools().filter((t) => t.annotations.openWorldHint && !t.testOnly);
  if (networked.length === 0) return { networked: [] };
  if (app.config.chembl.offline) return { networked: [], offline: true };
  const services: string[] = [];
  const fields: Record<string, unknown> = {};
  if (networked.some((t) => t.name.startsWith("chembl_"))) {
    services.push("ChEMBL");
    fields.chembl_api = app.config.chembl.apiBaseUrl;
  }
  if (networked.some((t) => t.name === "name_to_smiles")) {
    services.push("PubChem");
    fields.pubchem_api = process.env.PUBCHEM_API_BASE_URL?.trim() || PUBCHEM_DEFAULT_BASE_URL;
  }
  for (const t of networked) if (!t.name.startsWith("chembl_") && t.name !== "name_to_smiles") services.push(t.name);
  return { networked: services, ...fields };
}

/** How long SIGTERM or SIGINT on stdio waits for the calls in flight. */
const STDIO_DRAIN_MS = 10_000;

async function serve(args: string[]): Promise<number> {
  const options = parseServeArgs(args);
  if (options.transport === "streamable-http") return serveStreamableHttp(options);
  const app = createApp();
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    // The client went away (EPIPE): nobody is left to answer.
    app.logger.debug(`stdout closed: ${e.code ?? e.message}`);
    process.exit(0);
  });
  app.logger.info(`${PACKAGE.name} ${PACKAGE.version} serving MCP over stdio`, {
    version: PACKAGE.version,
    transport: "stdio",
    workers: app.pool.size,
    ...networkFields(app),
  });
  const transport = serveStdio(endpointOf(app.server, app.logger));
  // SIGTERM and SIGINT end the session as stdin EOF does: no new requests, the calls in flight answered
  // (for up to 10 s), then exit 0.
  const stop = (signal: string) => {
    app.logger.info(`${signal}: finishing the requests in flight`);
    void transport.close(STDIO_DRAIN_MS);
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  // A host or terminal closing sends SIGHUP, whose default is to exit mid-call with no answer. Over stdio the
  // session ends when stdin ends (the host closing its pipe), so SIGHUP only says so in the log.
  process.on("SIGHUP", () => app.logger.notice("SIGHUP: ignored on stdio; the session ends when stdin ends"));
  await transport.done;
  await app.close();
  return 0;
}

/**
 * The authenticator `--auth` asks for, built before anything starts: a token file that cannot be used, or an
 * OAuth setting that is wrong, is a ConfigError naming the variable (exit 2); an issuer whose metadata cannot
 * be fetched or used stops start-up too (exit 1, naming CHEMATIC_OAUTH_ISSUER).
 */
async function authenticatorFor(mode: ServeOptions["auth"]): Promise<BearerAuthenticator | OAuthAuthenticator | undefined> {
  if (mode === "none") return undefined;
  if (mode === "bearer") {
    const path = process.env[TOKENS_FILE_VARIABLE]?.trim();
    if (!path) throw new ConfigError(`${TOKENS_FILE_VARIABLE} is required with --auth bearer (a file of lines '<label> sha256:<hex>')`);
    try {
      return new BearerAuthenticator(resolvePath(path));
    } catch (e) {
      if (e instanceof TokenFileError) throw new ConfigError(`${TOKENS_FILE_VARIABLE} (${path}) cannot be used: ${e.message}`);
      throw e;
    }
  }
  const { loadOAuthConfig, OAuthAuthenticator: OAuth } = await import("./domain/auth/oauth.js");
  return OAuth.create(loadOAuthConfig(process.env), { env: process.env });
}

/** What the start line says about authentication. */
function authSummary(auth: BearerAuthenticator | OAuthAuthenticator | undefined): { text: string; fields: Record<string, unknown> } {
  if (auth === undefined) return { text: "no authentication", fields: { auth: "none" } };
  if (auth instanceof BearerAuthenticator) return { text: `bearer tokens: ${auth.size}`, fields: { auth: "bearer", tokens: auth.size } };
  return {
    text: `OAuth: issuer ${auth.config.issuer}`,
    fields: { auth: "oauth", issuer: auth.config.issuer, audience: auth.config.audience, jwks_uri: auth.jwksUri, scopes: auth.config.scopes },
  };
}

async function serveStreamableHttp(options: ServeOptions): Promise<number> {
  let auth: BearerAuthenticator | OAuthAuthenticator | undefined;
  try {
    auth = await authenticatorFor(options.auth);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    process.stderr.write(`chematic-mcp: CHEMATIC_OAUTH_ISSUER cannot be used: ${(e as Error).message}
`);
    return 1;
  }
  const app = createApp();
  let transport;
  try {
    transport = await serveHttp(endpointOf(app.server, app.logger), {
      host: options.bind,
      port: options.port,
      allowedOrigins: options.allowedOrigins,
      maxConcurrency: options.maxConcurrency,
      ...(auth ? { auth } : {}),
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    process.stderr.write(`chematic-mcp: cannot listen on ${options.bind} port ${options.port}: ${err.code ?? ""} ${err.message}\n`);
    await app.close();
    return 1;
  }
  // Before the start line: whoever reads that line to know the server is up may signal it at once.
  if (auth instanceof BearerAuthenticator) {
    const bearer = auth;
    // SIGHUP re-reads the token file; a file that does not parse leaves the tokens in force.
    process.on("SIGHUP", () => {
      const reloaded = bearer.reload();
      if (reloaded.ok) app.logger.notice(`SIGHUP: ${TOKENS_FILE_VARIABLE} re-read, ${reloaded.tokens} tokens in force`, { tokens: reloaded.tokens });
      else app.logger.error(`SIGHUP: ${TOKENS_FILE_VARIABLE} not used (${reloaded.reason}); the ${bearer.size} tokens read before stay in force`);
    });
  } else {
    // Node's default for SIGHUP is to exit: a `systemctl reload` (ExecReload=kill -HUP) copied from the bearer
    // set-up would end the replica and its canvases. Nothing is re-read in this mode; say so and keep serving.
    process.on("SIGHUP", () => app.logger.notice(`SIGHUP: nothing to re-read with --auth ${options.auth}; still serving`));
  }
  // Always written, whatever the log level: it names the URL (with --port 0, the port picked).
  const summary = authSummary(auth);
  app.logger.notice(
    `Streamable HTTP (MCP ${MODERN_VERSION}; legacy ${REFERENCE_VERSION} to ${LATEST_LEGACY_VERSION}, stateless) listening on ${transport.url} (${summary.text})`,
    {
      version: PACKAGE.version,
      transport: "streamable-http",
      address: transport.url,
      workers: app.pool.size,
      max_concurrency: options.maxConcurrency,
      allowed_origins: options.allowedOrigins,
      replica: getCanvasManager().origin.replica,
      ...summary.fields,
      ...networkFields(app),
    },
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  app.logger.info("shutting down: finishing the requests in flight");
  await transport.close();
  await app.close();
  return 0;
}

async function printTools(): Promise<number> {
  const app = createApp(process.env, { workers: 1 }, { lazyWorkers: true });
  try {
    const rows = app.server.registry.tools().map((t) => `| \`${t.name}\` | ${t.title} | ${firstSentence(t.description).replace(/\|/g, "\\|")} |`);
    process.stdout.write(["| tool | title | what it does |", "|---|---|---|", ...rows].join("\n") + "\n");
    return 0;
  } finally {
    await app.close();
  }
}

/** Where `call --out FILE` writes a picture: FILE, then FILE-2.png, FILE-3.png, ... for further images. */
function outPath(file: string, index: number, ext: string): string {
  if (index === 0) return file;
  const stem = extname(file) ? file.slice(0, -extname(file).length) : file;
  return `${stem}-${index + 1}${ext}`;
}

/**
 * The pictures of one answer, to write to --out: its image blocks (depict's PNG), else an SVG it answers as
 * markup (depict's format svg). The printed result keeps everything else (an SVG's markup replaced by the
 * file's path).
 */
function picturesOf(
  value: Record<string, unknown>,
  extra: readonly ContentBlock[],
): { files: Array<{ data: Buffer; mimeType: string }>; printed: Record<string, unknown> } {
  const images = extra.filter((b): b is { type: "image"; data: string; mimeType: string } => b.type === "image");
  if (images.length > 0) return { files: images.map((b) => ({ data: Buffer.from(b.data, "base64"), mimeType: b.mimeType })), printed: value };
  if (typeof value.svg === "string" && value.mime_type === "image/svg+xml") {
    const { svg, ...rest } = value;
    return { files: [{ data: Buffer.from(svg, "utf8"), mimeType: "image/svg+xml" }], printed: rest };
  }
  return { files: [], printed: value };
}

async function callOnce(args: string[]): Promise<number> {
  // The tool, its arguments and --out in any order (parseArgs takes an option before or after the positionals).
  let parsed;
  try {
    parsed = parseArgs({ args, options: { out: { type: "string" } }, strict: true, allowPositionals: true });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") usageError("--out needs a file name");
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") usageError(`unknown call option ${/'(-[^' ]*)/.exec(err.message)?.[1] ?? err.message}`);
    throw e;
  }
  const [name, json = "{}", ...rest] = parsed.positionals;
  if (!name || rest.length > 0) usageError("call takes a tool name and one JSON object of arguments (and --out <file>)");
  const out = parsed.values.out;
  if (out !== undefined && out.trim() === "") usageError("--out needs a file name");
  let toolArgs: unknown;
  try {
    toolArgs = JSON.parse(json);
  } catch (e) {
    usageError(`the arguments are not valid JSON: ${(e as Error).message}`);
  }
  const app = createApp(process.env, { workers: 1 }, { lazyWorkers: true });
  try {
    // The server's own call path (the one tools/call takes), without a JSON-RPC round trip: the result,
    // or the error as a 2026-07-28 client would read it in structuredContent.
    let outcome;
    try {
      outcome = await app.server.runTool(name, toolArgs, { signal: new AbortController().signal, clientCapabilities: {} });
    } catch (e) {
      // A name the server does not know at all is a usage error; a switched-off tool answers TOOL_DISABLED below.
      if (e instanceof ToolCallRefused && e.message.startsWith("Unknown tool")) usageError(`unknown tool "${name}"; run 'chematic-mcp tools' for the list`);
      if (e instanceof ToolCallRefused || e instanceof RpcError) {
        process.stderr.write(`chematic-mcp: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
    if (!outcome.ok) {
      process.stderr.write(`${JSON.stringify({ error: outcome.error.toPayload() }, null, 2)}\n`);
      return 1;
    }
    const { files, printed } = picturesOf(outcome.value, outcome.extra ?? []);
    if (out === undefined) {
      process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
      const images = (outcome.extra ?? []).filter((b) => b.type === "image").length;
      if (images > 0)
        process.stderr.write(`chematic-mcp: the answer's ${images === 1 ? "image was" : `${images} images were`} left out; pass --out <file> to save it\n`);
      return 0;
    }
    if (files.length === 0) {
      process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
      process.stderr.write(`chematic-mcp: ${name} answered no picture; ${out} was not written\n`);
      return 1;
    }
    const written: Array<{ path: string; mime_type: string; bytes: number }> = [];
    for (const [i, f] of files.entries()) {
      const path = resolvePath(outPath(out, i, f.mimeType === "image/svg+xml" ? ".svg" : ".png"));
      try {
        writeFileSync(path, f.data);
      } catch (e) {
        // A folder, a missing folder or no permission: one line saying which, the rest of the answer still printed.
        process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
        const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        process.stderr.write(`chematic-mcp: cannot write ${path}: ${reason}; pass --out a file path in a folder that exists and is writable\n`);
        return 1;
      }
      written.push({ path, mime_type: f.mimeType, bytes: f.data.length });
    }
    // The markup of an SVG answer now lives in the file: the printed result says where.
    const shown = printed === outcome.value ? printed : { ...printed, svg_file: written[0]!.path };
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    for (const w of written) process.stderr.write(`chematic-mcp: wrote ${w.mime_type} (${w.bytes} bytes) to ${w.path}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

async function doctor(args: string[]): Promise<number> {
  const { values } = parseStrict(args, { json: { type: "boolean" }, "timeout-ms": { type: "string" } }, "doctor option");
  const json = values.json === true;
  const timeoutMs = values["timeout-ms"] === undefined ? DEFAULT_DOCTOR_TIMEOUT_MS : wholeNumber("--timeout-ms", values["timeout-ms"], 100, 120_000);
  const report = await runDoctor({ env: process.env, timeoutMs });
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.ok ? 0 : 1;
}

/**
 * Builds (or checks) the CHEMBL_SQLITE dump's lookup sidecar and its structure index (similarity and
 * substructure searches) ahead of the first call; an index already up to date is kept.
 */
async function chemblIndex(args: string[]): Promise<number> {
  const { values } = parseStrict(args, { sqlite: { type: "string" } }, "chembl index option");
  const path = values.sqlite ?? process.env.CHEMBL_SQLITE?.trim();
  if (!path) usageError("chembl index needs the dump: set CHEMBL_SQLITE or pass --sqlite <path>");
  const { SqliteSource, sidecarCacheDir } = await import("./domain/chembl/sqlite/source.js");
  const { ToolError } = await import("./domain/errors.js");
  const { StructureIndexError, buildStructureIndex } = await import("./domain/chembl/structures/build.js");
  const { Progress, countUnits } = await import("./domain/chembl/progress.js");
  const source = new SqliteSource(resolvePath(path), process.env, undefined, (m) => process.stderr.write(`${m}\n`));
  // Ctrl-C stops the build's threads and removes its temporary files.
  const interrupted = new AbortController();
  const onSignal = () => interrupted.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const info = await source.open();
    process.stderr.write(`${info.path}: ${info.release ?? "no release"}; lookup index ${info.sidecar ?? "none (no writable place for it)"}\n`);
    const tty = process.stderr.isTTY === true;
    let progress: InstanceType<typeof Progress> | undefined;
    const workers = Number(process.env.CHEMATIC_WORKERS);
    const built = await buildStructureIndex({
      dump: info.path,
      release: info.release,
      cacheDir: sidecarCacheDir(process.env),
      ...(Number.isInteger(workers) && workers > 0 ? { workers } : {}),
      signal: interrupted.signal,
      onProgress: (done, total) => {
        if (!progress) {
          process.stderr.write(`building the structure index (ECFP4 and pattern fingerprints) of ${total.toLocaleString("en-US")} structures\n`);
          progress = new Progress((text) => process.stderr.write(text), tty, total, 0, countUnits("structures"));
        }
        progress.update(done, done >= total);
      },
      onStep: (message) => process.stderr.write(`${message}\n`),
    });
    const mb = (built.size_bytes / 1e6).toFixed(1);
    process.stderr.write(
      built.reused
        ? `structure index ${built.path} is up to date (${built.count.toLocaleString("en-US")} structures, ${mb} MB)\n`
        : `structure index ${built.path}: ${built.count.toLocaleString("en-US")} structures, ${mb} MB, built in ${built.seconds.toFixed(1)} s` +
            ` (${Math.round((built.count + built.skipped) / Math.max(built.seconds, 0.001)).toLocaleString("en-US")} structures/s)\n`,
    );
    if (built.skipped > 0) {
      process.stderr.write(
        `${built.skipped.toLocaleString("en-US")} structures left out (no SMILES, or RDKit cannot parse it)${built.skipped_examples.length > 0 ? ", e.g.:" : ""}\n`,
      );
      for (const s of built.skipped_examples.slice(0, 5)) process.stderr.write(`  ${s.chembl_id}: ${s.reason}\n`);
    }
    return info.sidecar ? 0 : 1;
  } catch (e) {
    if (e instanceof ToolError) {
      process.stderr.write(`chematic-mcp: ${e.message}\n  fix: ${e.hint}\n`);
      return 1;
    }
    if (e instanceof StructureIndexError) {
      process.stderr.write(`chematic-mcp: ${e.message}\n  fix: ${e.fix}\n`);
      return interrupted.signal.aborted ? 130 : 1;
    }
    throw e;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await source.close();
  }
}

async function chembl(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "index") return chemblIndex(rest);
  if (sub !== "download") usageError(`chembl takes a subcommand: download or index (got ${sub === undefined ? "none" : `"${sub}"`})`);
  const { values } = parseStrict(rest, { release: { type: "string" }, dir: { type: "string" } }, "chembl download option");
  const release = values.release === undefined ? undefined : wholeNumber("--release", values.release, 1, 10_000);
  const dir = resolvePath(values.dir ?? ".");
  const { DownloadError, downloadChembl } = await import("./domain/chembl/download.js");
  try {
    const result = await downloadChembl({
      ...(release !== undefined ? { release } : {}),
      dir,
      ...(process.env.CHEMBL_DOWNLOAD_BASE_URL?.trim() ? { baseUrl: process.env.CHEMBL_DOWNLOAD_BASE_URL.trim() } : {}),
      env: process.env,
      write: (text) => process.stderr.write(text),
      tty: process.stderr.isTTY === true,
    });
    process.stderr.write(`ChEMBL ${result.release} is ready. Set this in the server's environment:\n`);
    process.stdout.write(`CHEMBL_SQLITE=${result.database}\n`);
    return 0;
  } catch (e) {
    if (e instanceof DownloadError) {
      process.stderr.write(`chematic-mcp: ${e.message}\n  fix: ${e.fix}\n`);
      return 1;
    }
    throw e;
  }
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h") {
    process.stdout.write(HELP);
    return 0;
  }
  if (first === "--version" || first === "-V" || first === "-v") {
    process.stdout.write(`${PACKAGE.version}\n`);
    return 0;
  }
  if (first === "tools") {
    if (rest.length > 0) usageError("tools takes no arguments");
    return printTools();
  }
  if (first === "call") return callOnce(rest);
  if (first === "doctor") return doctor(rest);
  if (first === "chembl") return chembl(rest);
  return serve(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`chematic-mcp: ${e.message}\n\n${e instanceof UsageError ? `${USAGE}\nEnvironment variables: chematic-mcp --help\n` : ""}`);
      process.exit(2);
    }
    process.stderr.write(`chematic-mcp: fatal: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
