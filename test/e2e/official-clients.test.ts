/**
 * The official MCP clients against the real server over stdio: the v1 SDK (legacy initialize, 2025-11-25)
 * and the v2 client pinned to 2026-07-28. Both list tools and call them, and list and get prompts; both validate
 * our results with their own schemas (zod, and ajv for structuredContent against outputSchema).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { CLI_PATH } from "../helpers/server-process.js";

const env = { ...process.env, CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "warn" } as Record<string, string>;

test("@modelcontextprotocol/sdk 1.x (legacy initialize) lists and calls tools", async () => {
  const client = new LegacyClient({ name: "legacy-test", version: "1.0.0" });
  await client.connect(new LegacyStdio({ command: process.execPath, args: [CLI_PATH], env, stderr: "pipe" }));
  try {
    assert.equal(client.getServerVersion()?.name, "chematic-mcp");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("parse_smiles") && names.includes("canonical_smiles"));
    const result = await client.callTool({ name: "canonical_smiles", arguments: { smiles: "OCC" } });
    assert.deepEqual((result.structuredContent as { canonical: string }).canonical, "CCO");
    // A list answer and a fields-trimmed one: the client validates both against the $defs/$ref output schema.
    const list = await client.callTool({ name: "calc_properties", arguments: { smiles_list: ["CCO", "C1CC", "c1ccccc1"], fields: ["mw"] } });
    assert.notEqual(list.isError, true);
    const listed = list.structuredContent as { results: Array<{ result?: { mw: number }; error?: { code: string } }>; summary: { failed: number } };
    assert.equal(listed.results[0]!.result!.mw, 46.069);
    assert.equal(listed.results[1]!.error!.code, "INVALID_SMILES");
    assert.equal(listed.summary.failed, 1);
    const failed = await client.callTool({ name: "parse_smiles", arguments: { smiles: "C1CC" } });
    assert.equal(failed.isError, true);
    const text = (failed.content as Array<{ type: string; text: string }>)[0]!.text;
    assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, "INVALID_SMILES");
    // Prompts: listed with their arguments, rendered as text; a missing argument is the client's McpError -32602.
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => p.name),
      ["chembl_guide", "hit_triage", "triage_hit_list", "profile_molecule", "compare_series"],
    );
    const profile = await client.getPrompt({ name: "profile_molecule", arguments: { smiles: "CCO" } });
    assert.equal(profile.messages[0]!.content.type, "text");
    await assert.rejects(client.getPrompt({ name: "profile_molecule", arguments: {} }), (e: unknown) => (e as { code?: number }).code === -32602);
  } finally {
    await client.close();
  }
});

test("@modelcontextprotocol/client 2.x (2026-07-28) discovers, lists and calls tools", async () => {
  const client = new ModernClient({ name: "modern-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernStdio({ command: process.execPath, args: [CLI_PATH], env, stderr: "pipe" }));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    const { tools } = await client.listTools();
    const parse = tools.find((t) => t.name === "parse_smiles");
    assert.ok(parse?.outputSchema && parse.annotations?.readOnlyHint === true && parse.title);
    const result = await client.callTool({ name: "parse_smiles", arguments: { smiles: "c1ccccc1O" } });
    assert.equal((result.structuredContent as { atoms: number }).atoms, 7);
    const list = await client.callTool({ name: "sa_score", arguments: { smiles_list: ["CCO", "C1CC"] } });
    const listed = list.structuredContent as { results: Array<{ result?: { sa_score: number }; error?: { code: string } }> };
    assert.equal(typeof listed.results[0]!.result!.sa_score, "number");
    assert.equal(listed.results[1]!.error!.code, "INVALID_SMILES");
    const failed = await client.callTool({ name: "parse_smiles", arguments: { smiles: "c1cc" } });
    assert.equal(failed.isError, true);
    assert.equal((failed.structuredContent as { error: { code: string } }).error.code, "INVALID_SMILES");
    const { prompts } = await client.listPrompts();
    assert.ok(
      prompts.some((p) => p.name === "hit_triage" && p.title === "Hit triage for a target" && p.arguments?.some((a) => a.name === "target" && a.required)),
    );
    const triage = await client.getPrompt({ name: "hit_triage", arguments: { target: "CHEMBL203" } });
    const content = triage.messages[0]!.content;
    assert.ok(content.type === "text" && content.text.includes('"target_chembl_id":"CHEMBL203"'));
    await assert.rejects(client.getPrompt({ name: "hit_triage", arguments: {} }), (e: unknown) => (e as { code?: number }).code === -32602);
  } finally {
    await client.close();
  }
});

test("@modelcontextprotocol/client 2.x in auto mode negotiates the modern era over stdio", async () => {
  const client = new ModernClient({ name: "auto-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new ModernStdio({ command: process.execPath, args: [CLI_PATH], env, stderr: "pipe" }));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    const result = await client.callTool({ name: "canonical_smiles", arguments: { smiles: "C(C)O" } });
    assert.equal((result.structuredContent as { canonical: string }).canonical, "CCO");
  } finally {
    await client.close();
  }
});
