/** The chembl section of the configuration: defaults, bounds, strict booleans, one line naming the variable. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CHEMBL_DEFAULT_BASE_URL, ConfigError, loadChemblConfig, loadConfig } from "../../../src/config.js";

test("defaults", () => {
  assert.deepEqual(loadChemblConfig({}), {
    apiBaseUrl: CHEMBL_DEFAULT_BASE_URL,
    requestTimeoutMs: 30_000,
    deadlineMs: 45_000,
    maxConcurrentPages: 4,
    offline: false,
  });
  assert.equal(loadConfig({}).chembl.deadlineMs, 45_000);
});

test("values are read and the base URL loses its trailing slash", () => {
  const c = loadChemblConfig({
    CHEMBL_API_BASE_URL: "http://127.0.0.1:8080/chembl/api/data/",
    CHEMBL_REQUEST_TIMEOUT_MS: "500",
    CHEMBL_DEADLINE_MS: "2000",
    CHEMBL_MAX_CONCURRENT_PAGES: "2",
    CHEMATIC_OFFLINE: "yes",
  });
  assert.deepEqual(c, { apiBaseUrl: "http://127.0.0.1:8080/chembl/api/data", requestTimeoutMs: 500, deadlineMs: 2000, maxConcurrentPages: 2, offline: true });
});

test("booleans parse strictly: false is false, anything unknown stops start-up", () => {
  assert.equal(loadChemblConfig({ CHEMATIC_OFFLINE: "false" }).offline, false);
  assert.equal(loadChemblConfig({ CHEMATIC_OFFLINE: "0" }).offline, false);
  assert.equal(loadChemblConfig({ CHEMATIC_OFFLINE: "" }).offline, false);
  assert.throws(
    () => loadChemblConfig({ CHEMATIC_OFFLINE: "maybe" }),
    (e: Error) => e instanceof ConfigError && /^CHEMATIC_OFFLINE /.test(e.message),
  );
});

test("a bad value names its variable in one line", () => {
  for (const [name, value] of [
    ["CHEMBL_API_BASE_URL", "ftp://example.org"],
    ["CHEMBL_API_BASE_URL", "not a url"],
    ["CHEMBL_API_BASE_URL", "https://user:pw@example.org/api"],
    ["CHEMBL_REQUEST_TIMEOUT_MS", "30s"],
    ["CHEMBL_REQUEST_TIMEOUT_MS", "10"],
    ["CHEMBL_DEADLINE_MS", "60000"],
    ["CHEMBL_MAX_CONCURRENT_PAGES", "0"],
    ["CHEMBL_MAX_CONCURRENT_PAGES", "17"],
  ] as const) {
    assert.throws(
      () => loadChemblConfig({ [name]: value }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith(name) && !e.message.includes("\n"),
      `${name}=${value}`,
    );
  }
});
