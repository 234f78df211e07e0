/**
 * The layer rule fires: a fixture import that runs the wrong way is linted with the project's own ESLint
 * configuration (eslint.config.js, which includes eslint.layers.js) under a path in the layer it would
 * break, and must be reported; the same import from a layer allowed to make it must not.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** no-restricted-imports messages for `code` linted as if it were the file at `path` (relative to the root). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  // The type-aware rules need a file the TypeScript project knows; the layer rule needs only the path.
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
    ruleFilter: ({ ruleId }) => ruleId === "no-restricted-imports",
  });
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

const WRONG_WAY: Array<[string, string, RegExp]> = [
  ["src/domain/chem/fixture.ts", 'import type { ChemTool } from "../../contract/tool.js";', /domain may not import contract\//],
  ["src/domain/chembl/fixture.ts", 'import { allTools } from "../../tools/index.js";', /domain may not import tools\//],
  ["src/domain/fixture.ts", 'import { McpServer } from "../server/server.js";', /domain may not import server\//],
  ["src/contract/fixture.ts", 'import { allTools } from "../tools/index.js";', /contract may not import tools\//],
  ["src/tools/fixture.ts", 'import { RpcError } from "../protocol/jsonrpc.js";', /tools may not import protocol\//],
  ["src/tools/fixture.ts", 'import { McpServer } from "../server/server.js";', /tools may not import server\//],
  ["src/resources/fixture.ts", 'import { allTools } from "../tools/index.js";', /resources may not import tools\//],
  ["src/prompts/fixture.ts", 'import { allTools } from "../tools/index.js";', /prompts may not import tools\//],
  ["src/protocol/fixture.ts", 'import { McpServer } from "../server/server.js";', /protocol may not import server\//],
  ["src/server/fixture.ts", 'import { serveStdio } from "../transport/stdio.js";', /server may not import transport\//],
  ["src/transport/fixture.ts", 'import { allTools } from "../tools/index.js";', /transport may not import tools\//],
  ["src/server/fixture.ts", 'import { createApp } from "../app.js";', /may not import an entry point/],
  ["src/config.ts", 'import { ToolError } from "./domain/errors.js";', /a leaf module may not import domain\//],
];

for (const [path, code, message] of WRONG_WAY) {
  test(`a wrong-way import fails the lint: ${path}: ${code}`, async () => {
    const errors = await layerErrors(path, code);
    assert.equal(errors.length, 1, `expected one layer error, got ${JSON.stringify(errors)}`);
    assert.match(errors[0]!, message);
  });
}

const RIGHT_WAY: Array<[string, string]> = [
  ["src/tools/fixture.ts", 'import type { ChemTool } from "../contract/tool.js";'],
  ["src/tools/fixture.ts", 'import { ToolError } from "../domain/errors.js";'],
  ["src/server/fixture.ts", 'import { allTools } from "../tools/index.js";'],
  ["src/transport/fixture.ts", 'import { endpointOf } from "../server/transport.js";'],
  [
    "src/domain/chem/fixture.ts",
    'import { withMol } from "./rdkit.js";\nimport { ToolError } from "../errors.js";\nimport { PACKAGE } from "../../version.js";',
  ],
  ["src/contract/fixture.ts", 'import type { ErrorCode } from "../domain/errors.js";'],
  ["src/cli.ts", 'import { serveStdio } from "./transport/stdio.js";'],
];

for (const [path, code] of RIGHT_WAY) {
  test(`an import that runs the right way passes: ${path}: ${code.split("\n")[0]}`, async () => {
    assert.deepEqual(await layerErrors(path, code), []);
  });
}
