/**
 * The comparison server for the benchmark (dev only, never shipped): the official SDK v2 server,
 * @modelcontextprotocol/server, serving the same chemistry tools over stdio. It registers every chemistry
 * tool this project registers, under the same names with the same JSON Schemas (input and output), and its
 * handlers call the same domain code (each tool's run) in-process on its one thread, with one RDKit loaded
 * at start: the architecture the SDK naturally leads to. Tool failures become isError results carrying
 * the same {error} payload ours does.
 *
 *   node build/bench/sdk-server.js      (CHEMATIC_TEST_TOOLS=1 adds test_memory, as on our server)
 */
import { McpServer, fromJsonSchema, type CallToolResult } from "@modelcontextprotocol/server";
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

serveStdio(createServer, { onerror: (e) => process.stderr.write(`sdk-comparison: ${e.message}\n`) });
