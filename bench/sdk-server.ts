/**
 * The comparison server for the benchmark (dev only, never shipped): the official SDK v2 server,
 * @modelcontextprotocol/server, serving the same chemistry tools over stdio. It registers every chemistry
 * tool this project registers, under the same names with the same JSON Schemas (input and output), and its
 * handlers call the same domain code (each tool's run) in-process on its one thread, with one RDKit loaded
 * at start: the architecture the SDK naturally leads to. Tool failures become isError results carrying
 * the same {error} payload ours does.
 *
 *   node build/bench/sdk-server.js      (CHEMATIC_TEST_TOOLS=1 adds test_memory, as on our server)
 *   node build/bench/sdk-server.js --http   (the SDK's createMcpHandler behind node:http on a free port; prints
 *                                            "listening on http://127.0.0.1:PORT/mcp" on stderr)
 */
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { McpServer, createMcpHandler, fromJsonSchema, type CallToolResult } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { loadRDKit } from "../src/domain/chem/rdkit.js";
import { ToolError } from "../src/domain/errors.js";
import { splitExtraContent } from "../src/server/shape.js";
import { allTools } from "../src/tools/index.js";
import type { ChemTool } from "../src/contract/tool.js";

const rdkit = await loadRDKit();
const chemTools = allTools(process.env).filter((t): t is ChemTool => t.kind === "chem");

function toolResult(tool: ChemTool, args: Record<string, unknown>): CallToolResult {
  try {
    const split = splitExtraContent(tool.run(args, { rdkit, progress: () => {} }));
    if (split === null) throw new Error(`${tool.name} returned malformed extra content`);
    const value = split.value as Record<string, unknown>;
    return { content: [{ type: "text", text: JSON.stringify(value) }, ...split.extra], structuredContent: value };
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    const payload = { error: e.toPayload() };
    return { content: [{ type: "text", text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
  }
}

function createServer(): McpServer {
  const server = new McpServer({ name: "sdk-comparison", version: "1.0.0" }, { capabilities: { tools: {} } });
  for (const tool of chemTools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema),
        outputSchema: fromJsonSchema<Record<string, unknown>>(tool.outputSchema),
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>) => toolResult(tool, args),
    );
  }
  return server;
}

const onerror = (e: Error) => process.stderr.write(`sdk-comparison: ${e.message}\n`);

async function body(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

if (process.argv.includes("--http")) {
  // The SDK's HTTP entry is web-standard (Request -> Response); node:http needs this much of an adapter.
  const handler = createMcpHandler(createServer, { onerror, responseMode: "json" });
  const http = createHttpServer((req, res) => {
    void (async () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const payload = req.method === "POST" ? await body(req) : undefined;
      const response = await handler.fetch(
        new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method: req.method, headers, body: payload }),
      );
      const out = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(out);
    })().catch((e: unknown) => {
      onerror(e as Error);
      res.writeHead(500).end();
    });
  });
  http.listen(0, "127.0.0.1", () => {
    const address = http.address();
    const port = typeof address === "object" && address ? address.port : 0;
    process.stderr.write(`sdk-comparison listening on http://127.0.0.1:${port}/mcp\n`);
  });
  process.on("SIGTERM", () => http.close(() => process.exit(0)));
} else serveStdio(createServer, { onerror });
