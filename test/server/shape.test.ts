/**
 * server/shape.ts: how each wire version carries one tool outcome (the table in the module comment),
 * the ToolError remembered behind a failure, and the extra content blocks taken out of a raw result.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { EXTRA_CONTENT_KEY, type ContentBlock } from "../../src/contract/tool.js";
import { LEGACY_TOOL_ERROR, RpcError } from "../../src/protocol/jsonrpc.js";
import { META_SERVER_INFO, type ProtocolVersion } from "../../src/protocol/eras.js";
import { serverInfoMeta, shapeOutcome, splitExtraContent, toolErrorOf, toolFailure, toolSuccess } from "../../src/server/shape.js";

const info = { name: "chematic-test", version: "9.9.9" };
const value = { atoms: 6, smiles: "c1ccccc1" };
const text = (v: unknown) => ({ type: "text", text: JSON.stringify(v) });
const image: ContentBlock = { type: "image", data: "iVBOR", mimeType: "image/png" };
const error = () => new ToolError("INVALID_SMILES", "bad SMILES at 3", { position: 3 });

const ALL: ProtocolVersion[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

describe("serverInfoMeta", () => {
  test("carries name and version only, under the serverInfo key", () => {
    assert.deepEqual(serverInfoMeta({ name: "n", version: "v", extra: 1 } as { name: string; version: string }), {
      [META_SERVER_INFO]: { name: "n", version: "v" },
    });
    assert.equal(META_SERVER_INFO, "io.modelcontextprotocol/serverInfo");
  });
});

describe("toolSuccess per wire version", () => {
  test("2024-11-05 and 2025-03-26: the text JSON only", () => {
    for (const v of ["2024-11-05", "2025-03-26"] as const) assert.deepEqual(toolSuccess(v, value, info), { content: [text(value)] });
  });

  test("2025-06-18 and 2025-11-25: text JSON and structuredContent", () => {
    for (const v of ["2025-06-18", "2025-11-25"] as const) {
      assert.deepEqual(toolSuccess(v, value, info), { content: [text(value)], structuredContent: value });
    }
  });

  test("2026-07-28: resultType, text JSON, structuredContent and _meta serverInfo", () => {
    const r = toolSuccess("2026-07-28", value, info);
    assert.deepEqual(Object.keys(r), ["resultType", "content", "structuredContent", "_meta"]);
    assert.deepEqual(r, { resultType: "complete", content: [text(value)], structuredContent: value, _meta: serverInfoMeta(info) });
  });

  test("blocks replace the text block; extra blocks follow it, in every version", () => {
    const blocks: ContentBlock[] = [{ type: "text", text: "markdown" }];
    for (const v of ALL) {
      assert.deepEqual(toolSuccess(v, value, info, undefined, [image]).content, [text(value), image]);
      assert.deepEqual(toolSuccess(v, value, info, blocks, [image]).content, [...blocks, image]);
      assert.deepEqual(toolSuccess(v, value, info, blocks).content, blocks);
    }
    assert.deepEqual(toolSuccess("2025-06-18", value, info, blocks).structuredContent, value, "structuredContent is unchanged by blocks");
  });

  test("a success result has no ToolError behind it", () => {
    for (const v of ALL) assert.equal(toolErrorOf(toolSuccess(v, value, info)), undefined);
  });
});

describe("toolFailure per wire version", () => {
  test("2024-11-05 throws RpcError -32000 with the error's message, its ToolError remembered", () => {
    const e = error();
    let thrown: unknown;
    assert.throws(
      () => toolFailure("2024-11-05", e, info),
      (x: unknown) => {
        thrown = x;
        return true;
      },
    );
    assert.ok(thrown instanceof RpcError);
    assert.equal(thrown.code, LEGACY_TOOL_ERROR);
    assert.equal(thrown.code, -32000);
    assert.equal(thrown.message, "bad SMILES at 3");
    assert.equal(thrown.data, undefined);
    assert.equal(toolErrorOf(thrown), e);
  });

  test("2025-03-26, 2025-06-18, 2025-11-25: isError and the text JSON of {error}, no structuredContent", () => {
    for (const v of ["2025-03-26", "2025-06-18", "2025-11-25"] as const) {
      const e = error();
      const r = toolFailure(v, e, info);
      assert.deepEqual(r, { content: [text({ error: e.toPayload() })], isError: true });
      assert.equal(toolErrorOf(r), e);
    }
  });

  test("2026-07-28: resultType, text JSON, structuredContent.error, isError and _meta", () => {
    const e = error();
    const r = toolFailure("2026-07-28", e, info);
    const payload = { error: { code: "INVALID_SMILES", message: "bad SMILES at 3", hint: e.hint, details: { position: 3 } } };
    assert.deepEqual(Object.keys(r), ["resultType", "content", "structuredContent", "isError", "_meta"]);
    assert.deepEqual(r, { resultType: "complete", content: [text(payload)], structuredContent: payload, isError: true, _meta: serverInfoMeta(info) });
    assert.equal(toolErrorOf(r), e);
  });

  test("toolErrorOf knows nothing of other objects", () => {
    assert.equal(toolErrorOf({ isError: true }), undefined);
    assert.equal(toolErrorOf(new RpcError(-32000, "x")), undefined);
  });
});

describe("shapeOutcome", () => {
  test("a success goes through toolSuccess with its blocks and extra", () => {
    const blocks: ContentBlock[] = [{ type: "text", text: "md" }];
    for (const v of ALL) {
      assert.deepEqual(shapeOutcome(v, { ok: true, value, extra: [image] }, info), toolSuccess(v, value, info, undefined, [image]));
      assert.deepEqual(shapeOutcome(v, { ok: true, value, blocks, extra: [] }, info), toolSuccess(v, value, info, blocks));
    }
  });

  test("a failure goes through toolFailure (2024-11-05 throws)", () => {
    const e = error();
    assert.throws(
      () => shapeOutcome("2024-11-05", { ok: false, error: e }, info),
      (x: unknown) => x instanceof RpcError && x.code === -32000 && toolErrorOf(x) === e,
    );
    for (const v of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const) {
      const r = shapeOutcome(v, { ok: false, error: e }, info);
      assert.deepEqual(r, toolFailure(v, e, info));
      assert.equal(r.isError, true);
      assert.equal(toolErrorOf(r), e);
    }
  });
});

describe("splitExtraContent", () => {
  test("without the key the raw value is passed through, with no extra", () => {
    const raw = { a: 1 };
    const split = splitExtraContent(raw);
    assert.equal(split?.value, raw);
    assert.deepEqual(split?.extra, []);
    for (const other of ["text", 3, null, [1, 2]]) assert.deepEqual(splitExtraContent(other), { value: other, extra: [] });
  });

  test("valid blocks are taken out of the value", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: "t" },
      image,
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "chembl://x", text: "body" } },
    ];
    assert.deepEqual(splitExtraContent({ a: 1, [EXTRA_CONTENT_KEY]: blocks }), { value: { a: 1 }, extra: blocks });
    assert.deepEqual(splitExtraContent({ [EXTRA_CONTENT_KEY]: [] }), { value: {}, extra: [] });
  });

  test("a malformed extra value is null", () => {
    const bad: unknown[] = [
      "not a list",
      { type: "text", text: "not in a list" },
      [{ type: "text" }],
      [{ type: "text", text: 1 }],
      [{ type: "image", data: "x" }],
      [{ type: "audio", mimeType: "audio/wav" }],
      [{ type: "resource", resource: { text: "no uri" } }],
      [{ type: "resource" }],
      [{ type: "video", data: "x", mimeType: "video/mp4" }],
      [null],
      [image, "x"],
    ];
    for (const extra of bad) assert.equal(splitExtraContent({ a: 1, [EXTRA_CONTENT_KEY]: extra }), null, JSON.stringify(extra));
    assert.equal(splitExtraContent({ [EXTRA_CONTENT_KEY]: undefined }), null, "a present key with undefined is malformed too");
  });
});
