/**
 * protocol/meta.ts: the one era decision (classifyEra), the 2026-07-28 `_meta` checks in the order the
 * conformance suite expects (parseClientMeta), and the small readers around them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HEADER_MISMATCH, INVALID_PARAMS, RpcError, UNSUPPORTED_PROTOCOL_VERSION } from "../../src/protocol/jsonrpc.js";
import { classifyEra, metaOf, negotiateLegacyVersion, parseClientMeta, progressTokenOf } from "../../src/protocol/meta.js";
import {
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  MODERN_VERSION,
} from "../../src/protocol/eras.js";

const modernMeta = (extra: Record<string, unknown> = {}) => ({
  _meta: { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_CAPABILITIES]: {}, ...extra },
});

function rpcErrorOf(thrower: () => unknown): RpcError {
  try {
    thrower();
  } catch (e) {
    assert.ok(e instanceof RpcError, `expected an RpcError, got ${String(e)}`);
    return e;
  }
  return assert.fail("expected a throw");
}

describe("classifyEra without a hint (stdio): the body alone decides", () => {
  test("server/discover is modern, even without _meta", () => {
    assert.deepEqual(classifyEra("server/discover", undefined), { era: "modern" });
  });

  test("any io.modelcontextprotocol/ key in _meta makes a body modern", () => {
    assert.deepEqual(classifyEra("tools/list", modernMeta()), { era: "modern" });
    assert.deepEqual(classifyEra("tools/call", { _meta: { [META_LOG_LEVEL]: "debug" } }), { era: "modern" });
  });

  test("initialize, no _meta, or _meta with other keys only is legacy", () => {
    assert.deepEqual(classifyEra("initialize", { protocolVersion: "2025-06-18" }), { era: "legacy" });
    assert.deepEqual(classifyEra("tools/list", undefined), { era: "legacy" });
    assert.deepEqual(classifyEra("tools/call", { _meta: { progressToken: 1 } }), { era: "legacy" });
    assert.deepEqual(classifyEra("tools/call", { _meta: "not an object" }), { era: "legacy" });
  });
});

describe("classifyEra with a version hint (HTTP)", () => {
  test("a legacy body takes its version from the hint", () => {
    for (const v of LEGACY_VERSIONS) assert.deepEqual(classifyEra("tools/list", undefined, { value: v }), { era: "legacy", legacyVersion: v });
  });

  test("an absent hint value gives defaultLegacy, or no version when none is given", () => {
    assert.deepEqual(classifyEra("tools/list", undefined, {}, "2025-03-26"), { era: "legacy", legacyVersion: "2025-03-26" });
    assert.deepEqual(classifyEra("tools/list", undefined, {}), { era: "legacy" });
  });

  test("a modern hint over a body without _meta is a modern request", () => {
    assert.deepEqual(classifyEra("tools/list", undefined, { value: MODERN_VERSION }, "2025-03-26"), { era: "modern" });
  });

  test("a modern body stays modern whatever the hint says", () => {
    assert.deepEqual(classifyEra("tools/list", modernMeta(), { value: "2024-11-05" }), { era: "modern" });
    assert.deepEqual(classifyEra("server/discover", undefined, { error: "repeated" }), { era: "modern" });
  });

  test("an unusable hint (repeated, not ASCII) is -32020", () => {
    const e = classifyEra("tools/list", undefined, { error: "repeated header" });
    assert.ok(e instanceof RpcError);
    assert.equal(e.code, HEADER_MISMATCH);
    assert.match(e.message, /repeated header/);
  });

  test("an unknown version is -32022 with every served version and the one requested", () => {
    const e = classifyEra("tools/list", undefined, { value: "2099-01-01" }, "2025-03-26");
    assert.ok(e instanceof RpcError);
    assert.equal(e.code, UNSUPPORTED_PROTOCOL_VERSION);
    assert.deepEqual(e.data, { supported: [MODERN_VERSION], requested: "2099-01-01" }, "the same list as a refused _meta version");
  });
});

describe("parseClientMeta", () => {
  test("a minimal valid _meta", () => {
    assert.deepEqual(parseClientMeta(modernMeta()), { protocolVersion: MODERN_VERSION, clientCapabilities: {} });
  });

  test("_meta that is not an object is -32602", () => {
    for (const bad of ["x", [], null, 3]) {
      const e = rpcErrorOf(() => parseClientMeta({ _meta: bad }));
      assert.equal(e.code, INVALID_PARAMS);
      assert.match(e.message, /_meta must be an object/);
    }
  });

  test("a missing or empty protocolVersion is -32602 (before capabilities are looked at)", () => {
    for (const params of [undefined, {}, { _meta: {} }, { _meta: { [META_PROTOCOL_VERSION]: "" } }, { _meta: { [META_PROTOCOL_VERSION]: 5 } }]) {
      const e = rpcErrorOf(() => parseClientMeta(params));
      assert.equal(e.code, INVALID_PARAMS);
      assert.ok(e.message.includes(META_PROTOCOL_VERSION));
    }
  });

  test("an unsupported version is -32022 naming the modern versions only (as a refused hint does), before capabilities", () => {
    const e = rpcErrorOf(() => parseClientMeta({ _meta: { [META_PROTOCOL_VERSION]: "2025-11-25" } }));
    assert.equal(e.code, UNSUPPORTED_PROTOCOL_VERSION);
    assert.deepEqual(e.data, { supported: [MODERN_VERSION], requested: "2025-11-25" });
  });

  test("capabilities missing or not an object is -32602, before clientInfo", () => {
    for (const caps of [undefined, "x", [], null]) {
      const e = rpcErrorOf(() =>
        parseClientMeta({ _meta: { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_CAPABILITIES]: caps, [META_CLIENT_INFO]: 1 } }),
      );
      assert.equal(e.code, INVALID_PARAMS);
      assert.ok(e.message.includes(META_CLIENT_CAPABILITIES));
    }
  });

  test("clientInfo, when present, needs string name and version (-32602)", () => {
    for (const info of [null, "x", { name: "c" }, { name: "c", version: 1 }, { version: "1" }]) {
      const e = rpcErrorOf(() => parseClientMeta(modernMeta({ [META_CLIENT_INFO]: info })));
      assert.equal(e.code, INVALID_PARAMS);
      assert.ok(e.message.includes(META_CLIENT_INFO));
    }
    const ok = parseClientMeta(modernMeta({ [META_CLIENT_INFO]: { name: "c", version: "1", extra: true } }));
    assert.deepEqual(ok.clientInfo, { name: "c", version: "1" });
  });

  test("unknown keys and capability extensions are tolerated; logLevel and progressToken are picked up", () => {
    const meta = parseClientMeta(
      modernMeta({
        [META_CLIENT_CAPABILITIES]: { sampling: {}, "x-vendor/ext": { on: true } },
        [META_LOG_LEVEL]: "debug",
        "io.modelcontextprotocol/future": 1,
        "vendor/key": "v",
        progressToken: "tok",
      }),
    );
    assert.deepEqual(meta, {
      protocolVersion: MODERN_VERSION,
      clientCapabilities: { sampling: {}, "x-vendor/ext": { on: true } },
      logLevel: "debug",
      progressToken: "tok",
    });
  });

  test("a non-string logLevel and an unusable progressToken are left out", () => {
    const meta = parseClientMeta(modernMeta({ [META_LOG_LEVEL]: 3, progressToken: { no: 1 } }));
    assert.deepEqual(meta, { protocolVersion: MODERN_VERSION, clientCapabilities: {} });
  });
});

describe("progressTokenOf", () => {
  test("a string or finite number token", () => {
    assert.equal(progressTokenOf({ _meta: { progressToken: "a" } }), "a");
    assert.equal(progressTokenOf({ _meta: { progressToken: 0 } }), 0);
    assert.equal(progressTokenOf({ _meta: { progressToken: -2.5 } }), -2.5);
  });

  test("anything else is undefined", () => {
    assert.equal(progressTokenOf(undefined), undefined);
    assert.equal(progressTokenOf({}), undefined);
    assert.equal(progressTokenOf({ progressToken: "top-level" }), undefined);
    for (const t of [Infinity, NaN, null, true, {}, ["a"]]) assert.equal(progressTokenOf({ _meta: { progressToken: t } }), undefined);
    assert.equal(progressTokenOf({ _meta: [] }), undefined);
  });
});

describe("negotiateLegacyVersion", () => {
  test("a version this server speaks is echoed", () => {
    for (const v of LEGACY_VERSIONS) assert.equal(negotiateLegacyVersion(v), v);
  });

  test("anything else gets the latest legacy version", () => {
    assert.equal(LATEST_LEGACY_VERSION, "2025-11-25");
    for (const v of [undefined, null, 20241105, "2099-01-01", MODERN_VERSION, ""]) assert.equal(negotiateLegacyVersion(v), LATEST_LEGACY_VERSION);
  });
});

describe("metaOf", () => {
  test("the _meta object, or undefined when absent or not an object", () => {
    const meta = { a: 1 };
    assert.equal(metaOf({ _meta: meta }), meta);
    assert.equal(metaOf(undefined), undefined);
    assert.equal(metaOf({}), undefined);
    for (const bad of [null, [], "x", 1]) assert.equal(metaOf({ _meta: bad }), undefined);
  });
});
