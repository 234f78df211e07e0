/**
 * The tools/list answer, byte for byte, in every protocol version this server speaks: what a host turns into a
 * model's function definitions. A refactoring that is meant to keep behaviour keeps these bytes (issue 38's
 * acceptance); a change meant to alter the list re-records the snapshot (`GOLDEN_RECORD=1 node --test
 * build/test/golden/`), and the wire goldens beside it show what changed. The snapshot holds each answer's size
 * and SHA-256 (the answers themselves are in the wire goldens); a failing run writes the answer it got to the
 * temporary directory so the difference can be read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MODERN_META, ServerProcess } from "../helpers/server-process.js";

const SNAPSHOT = fileURLToPath(new URL("../../../test/golden/tools-list.json", import.meta.url));
const RECORD = process.env.GOLDEN_RECORD === "1";
const VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

interface Snapshot {
  bytes: number;
  sha256: string;
}

/** The raw tools/list line the server writes for one version, over stdio, with the default environment. */
async function toolsListLine(version: (typeof VERSIONS)[number]): Promise<string> {
  const server = new ServerProcess({ CHEMATIC_WORKERS: "1", CHEMATIC_LOG_LEVEL: "error" });
  try {
    if (version === "2026-07-28") {
      await server.request(1, "tools/list", { _meta: MODERN_META });
    } else {
      await server.request(0, "initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "snapshot", version: "1" } });
      server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await server.request(1, "tools/list");
    }
    const line = server.lines.find((l) => l.startsWith('{"jsonrpc":"2.0","id":1,') || l.includes('"id":1,"result"'));
    assert.ok(line, "a tools/list answer");
    return line;
  } finally {
    await server.close();
  }
}

test("tools/list bytes equal the snapshot in every protocol version", async () => {
  const got: Record<string, Snapshot> = {};
  for (const version of VERSIONS) {
    const line = await toolsListLine(version);
    got[version] = { bytes: Buffer.byteLength(line), sha256: createHash("sha256").update(line).digest("hex") };
    if (!RECORD) {
      const want = (JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Record<string, Snapshot>)[version];
      if (JSON.stringify(want) !== JSON.stringify(got[version])) {
        const file = join(tmpdir(), `tools-list-${version}.json`);
        writeFileSync(file, line);
        assert.fail(`tools/list ${version} changed: ${JSON.stringify(got[version])} against ${JSON.stringify(want)}; the answer is in ${file}`);
      }
    }
  }
  if (RECORD) writeFileSync(SNAPSHOT, `${JSON.stringify(got, null, 2)}\n`);
});
