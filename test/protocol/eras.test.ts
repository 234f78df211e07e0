/**
 * protocol/eras.ts: the one table of protocol versions. Its derived lists and defaults, the facts an era's versions
 * must share (HTTP and the Connection ask them by era), and its `_meta` keys against what meta.ts reads.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_LEGACY_HTTP_VERSION,
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  META_CLIENT_CAPABILITIES,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_VERSION,
  PROTOCOL_VERSIONS,
  REFERENCE_VERSION,
  SUPPORTED_MODERN_VERSIONS,
  features,
  httpErrorStatus,
  isLegacyVersion,
  isModernVersion,
  lifecycleMethods,
  mirroredHeaders,
  readsMeta,
  writesMeta,
  type Era,
  type ProtocolVersion,
} from "../../src/protocol/eras.js";
import { parseClientMeta, progressTokenOf } from "../../src/protocol/meta.js";

const ALL = Object.keys(PROTOCOL_VERSIONS) as ProtocolVersion[];

describe("the versions", () => {
  test("newest first, each era's list in table order", () => {
    assert.deepEqual(ALL, [...ALL].sort().reverse());
    assert.deepEqual(SUPPORTED_MODERN_VERSIONS, ["2026-07-28"]);
    assert.deepEqual(LEGACY_VERSIONS, ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
  });

  test("the named versions", () => {
    assert.equal(MODERN_VERSION, "2026-07-28");
    assert.equal(LATEST_LEGACY_VERSION, "2025-11-25");
    assert.equal(REFERENCE_VERSION, LEGACY_VERSIONS.at(-1), "the reference's version is the oldest");
    assert.equal(DEFAULT_LEGACY_HTTP_VERSION, "2025-03-26", "what the 2025-06-18 transport says to assume without the header");
  });

  test("isLegacyVersion and isModernVersion", () => {
    for (const v of ALL) {
      assert.equal(isLegacyVersion(v), features(v).era === "legacy", v);
      assert.equal(isModernVersion(v), features(v).era === "modern", v);
    }
    for (const v of [undefined, null, 20241105, "2099-01-01", ""]) assert.ok(!isLegacyVersion(v) && !isModernVersion(v), String(v));
  });
});

describe("what an era's versions share", () => {
  // HTTP's status and header rules and the lifecycle methods are asked by era (a caller knows the era, not the
  // version), so every version of an era must agree on them.
  for (const era of ["legacy", "modern"] as Era[]) {
    test(era, () => {
      for (const v of ALL.filter((v) => features(v).era === era)) {
        const f = features(v);
        assert.deepEqual(f.lifecycleMethods, lifecycleMethods(era), v);
        assert.equal(f.http.mirroredHeaders, mirroredHeaders(era), v);
        for (const code of [-32700, -32600, -32601, -32602, -32603, -32000, -32020, -32021, -32022]) {
          assert.equal(f.http.errorStatus[code] ?? 200, httpErrorStatus(era, code), `${v} ${code}`);
        }
      }
    });
  }

  test("the lifecycle methods", () => {
    assert.deepEqual(lifecycleMethods("legacy"), ["initialize", "ping"]);
    assert.deepEqual(lifecycleMethods("modern"), ["server/discover"]);
  });
});

describe("the _meta keys", () => {
  /** The string keys read from `_meta` while `read` runs. */
  function keysRead(read: (params: { _meta: object }) => unknown, meta: object): string[] {
    const seen = new Set<string>();
    const _meta = new Proxy(meta, {
      get(target, key, receiver) {
        if (typeof key === "string") seen.add(key);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    read({ _meta });
    return [...seen].sort();
  }

  test("a modern request's are the ones parseClientMeta reads", () => {
    const read = keysRead(parseClientMeta, { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_CAPABILITIES]: {} });
    assert.deepEqual(read, [...features(MODERN_VERSION).meta.reads].sort());
  });

  test("a legacy request's are the progress token's", () => {
    for (const v of LEGACY_VERSIONS) assert.deepEqual(keysRead(progressTokenOf, {}), [...features(v).meta.reads].sort(), v);
  });

  test("readsMeta and writesMeta", () => {
    assert.ok(readsMeta(MODERN_VERSION, META_CLIENT_CAPABILITIES));
    assert.ok(writesMeta(MODERN_VERSION, META_SERVER_INFO));
    for (const v of LEGACY_VERSIONS) assert.ok(!readsMeta(v, META_CLIENT_CAPABILITIES) && !writesMeta(v, META_SERVER_INFO), v);
  });
});
