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
    spillDeadlineMs: 45_000,
    maxPageSize: 1000,
    defaultLimit: 25,
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
    CHEMBL_SPILL_DEADLINE_MS: "120000",
    CHEMBL_MAX_PAGE_SIZE: "250",
    CHEMBL_DEFAULT_LIMIT: "7",
  });
  assert.deepEqual(c, {
    apiBaseUrl: "http://127.0.0.1:8080/chembl/api/data",
    requestTimeoutMs: 500,
    deadlineMs: 2000,
    maxConcurrentPages: 2,
    offline: true,
    spillDeadlineMs: 120_000,
    maxPageSize: 250,
    defaultLimit: 7,
  });
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
    ["CHEMBL_MAX_CONCURRENT_PAGES", "7"],
    ["CHEMBL_SPILL_DEADLINE_MS", "9999"],
    ["CHEMBL_SPILL_DEADLINE_MS", "600001"],
    ["CHEMBL_SPILL_DEADLINE_MS", "45s"],
    ["CHEMBL_MAX_PAGE_SIZE", "0"],
    ["CHEMBL_MAX_PAGE_SIZE", "1001"],
    ["CHEMBL_MAX_PAGE_SIZE", "-5"],
    ["CHEMBL_DEFAULT_LIMIT", "0"],
    ["CHEMBL_DEFAULT_LIMIT", "101"],
    ["CHEMBL_DEFAULT_LIMIT", "many"],
  ] as const) {
    assert.throws(
      () => loadChemblConfig({ [name]: value }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith(name) && !e.message.includes("\n"),
      `${name}=${value}`,
    );
  }
});

test("the ranges' ends are accepted: spill deadline 10 s to 600 s, page size 1 to 1000, default limit 1 to 100, concurrent pages 1 to 6", () => {
  for (const [name, value, key, expected] of [
    ["CHEMBL_SPILL_DEADLINE_MS", "10000", "spillDeadlineMs", 10_000],
    ["CHEMBL_SPILL_DEADLINE_MS", "600000", "spillDeadlineMs", 600_000],
    ["CHEMBL_MAX_PAGE_SIZE", "1", "maxPageSize", 1],
    ["CHEMBL_MAX_PAGE_SIZE", "1000", "maxPageSize", 1000],
    ["CHEMBL_DEFAULT_LIMIT", "1", "defaultLimit", 1],
    ["CHEMBL_DEFAULT_LIMIT", "100", "defaultLimit", 100],
    ["CHEMBL_MAX_CONCURRENT_PAGES", "6", "maxConcurrentPages", 6],
  ] as const) {
    assert.equal(loadChemblConfig({ [name]: value })[key], expected, `${name}=${value}`);
  }
});
