#!/usr/bin/env node
/**
 * chematic-mcp command line. With no arguments it serves MCP over stdio.
 *   chematic-mcp [--transport stdio]      serve stdio (default)
 *   chematic-mcp tools                    print the tool table
 *   chematic-mcp call <tool> '<json>'     run one tool, print its structured result (exit 1 on a tool error)
 *   chematic-mcp --help | --version
 * Usage errors go to stderr with exit status 2. Nothing but protocol is ever written to stdout while serving.
 */
import { createApp } from "./app.js";
import { ConfigError } from "./config.js";
import { MODERN_VERSION } from "./protocol/meta.js";
import { Connection } from "./server/connection.js";
import { serveStdio } from "./transport/stdio.js";
import { PACKAGE } from "./version.js";

const USAGE = `Usage:
  chematic-mcp [--transport stdio]        Serve MCP over stdio (default)
  chematic-mcp tools                      Print the tool table
  chematic-mcp call <tool> '<json-args>'  Run one tool and print its structured result
  chematic-mcp --help | --version

Environment: CHEMATIC_WORKERS, CHEMATIC_MAX_QUEUE, CHEMATIC_LOG_LEVEL, CHEMATIC_LOG_FORMAT (see README).
`;

class UsageError extends Error {}

function usageError(message: string): never {
  throw new UsageError(message);
}

async function serve(args: string[]): Promise<number> {
  let transport = "stdio";
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    if (flag === "--transport") {
      const value = inline ?? args[++i];
      if (value === undefined) usageError("--transport needs a value (stdio)");
      transport = value;
    } else {
      usageError(`unknown option ${a}`);
    }
  }
  if (transport !== "stdio") usageError(`unknown transport "${transport}" (expected stdio)`);
  const app = createApp();
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    // The client went away (EPIPE): nobody is left to answer.
    app.logger.debug(`stdout closed: ${e.code ?? e.message}`);
    process.exit(0);
  });
  app.logger.info(`${PACKAGE.name} ${PACKAGE.version} serving MCP over stdio`, { workers: app.pool.size, transport: "stdio" });
  const connection = new Connection(app.server, { logger: app.logger });
  await serveStdio(connection);
  await app.close();
  return 0;
}

async function printTools(): Promise<number> {
  const app = createApp(process.env, { workers: 1 });
  try {
    const rows = app.server.registry.tools().map((t) => `| \`${t.name}\` | ${t.title} | ${t.description.split(". ")[0]!.replace(/\|/g, "\\|")}. |`);
    process.stdout.write(["| tool | title | what it does |", "|---|---|---|", ...rows].join("\n") + "\n");
    return 0;
  } finally {
    await app.close();
  }
}

async function callOnce(args: string[]): Promise<number> {
  const [name, json = "{}", ...rest] = args;
  if (!name || rest.length > 0) usageError("call takes a tool name and one JSON object of arguments");
  let toolArgs: unknown;
  try {
    toolArgs = JSON.parse(json);
  } catch (e) {
    usageError(`the arguments are not valid JSON: ${(e as Error).message}`);
  }
  const app = createApp(process.env, { workers: 1 });
  try {
    if (!app.server.registry.get(name)) usageError(`unknown tool "${name}"; run 'chematic-mcp tools' for the list`);
    const request = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        _meta: { "io.modelcontextprotocol/protocolVersion": MODERN_VERSION, "io.modelcontextprotocol/clientCapabilities": {} },
        name,
        arguments: toolArgs,
      },
    };
    const connection = new Connection(app.server, { logger: app.logger });
    const line = await connection.handleFrame(Buffer.from(JSON.stringify(request)));
    const response = JSON.parse(line ?? "null") as { result?: { structuredContent?: unknown; isError?: boolean }; error?: { message: string } };
    if (response.error) {
      process.stderr.write(`chematic-mcp: ${response.error.message}\n`);
      return 1;
    }
    const result = response.result!;
    if (result.isError) {
      process.stderr.write(`${JSON.stringify(result.structuredContent, null, 2)}\n`);
      return 1;
    }
    process.stdout.write(`${JSON.stringify(result.structuredContent, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (first === "--version" || first === "-V") {
    process.stdout.write(`${PACKAGE.version}\n`);
    return 0;
  }
  if (first === "tools") {
    if (rest.length > 0) usageError("tools takes no arguments");
    return printTools();
  }
  if (first === "call") return callOnce(rest);
  return serve(argv);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`chematic-mcp: ${e.message}\n\n${e instanceof UsageError ? USAGE : ""}`);
      process.exit(2);
    }
    process.stderr.write(`chematic-mcp: fatal: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
