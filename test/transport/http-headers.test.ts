/** The header rules of the HTTP transport, one function at a time. */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  acceptAdmits,
  decodeMirroredValue,
  isAllowedOrigin,
  isHeaderSafe,
  isJsonContentType,
  isLoopbackAddress,
  isLoopbackHost,
  normalizeOrigin,
} from "../../src/transport/http-headers.js";
import { statusFor } from "../../src/transport/http.js";

test("Accept: exact, wildcard and q=0 ranges; no header admits everything", () => {
  assert.equal(acceptAdmits(undefined, "application/json"), true);
  assert.equal(acceptAdmits("application/json, text/event-stream", "application/json"), true);
  assert.equal(acceptAdmits("application/json, text/event-stream", "text/event-stream"), true);
  assert.equal(acceptAdmits("application/*", "application/json"), true);
  assert.equal(acceptAdmits("*/*", "application/json"), true);
  assert.equal(acceptAdmits("text/html", "application/json"), false);
  assert.equal(acceptAdmits("text/event-stream", "application/json"), false);
  assert.equal(acceptAdmits("application/json;q=0, */*", "application/json"), false, "the most specific range decides");
  assert.equal(acceptAdmits("Application/JSON; q=0.5", "application/json"), true);
  assert.equal(acceptAdmits("application/json", "text/event-stream"), false);
});

test("Content-Type: application/json, with charset utf-8 at most", () => {
  assert.equal(isJsonContentType("application/json"), true);
  assert.equal(isJsonContentType("application/json; charset=utf-8"), true);
  assert.equal(isJsonContentType('Application/JSON; Charset="UTF-8"'), true);
  assert.equal(isJsonContentType("application/json; charset=latin1"), false);
  assert.equal(isJsonContentType("text/plain"), false);
  assert.equal(isJsonContentType("application/jsonp"), false);
  assert.equal(isJsonContentType(undefined), false);
});

test("Host: loopback names and addresses, with or without a port; rebound names are not", () => {
  for (const host of ["localhost", "localhost:3000", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:3000", "127.1.2.3:80", "[::1]", "[::1]:3000"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of [
    "evil.example",
    "evil.example:3000",
    "localhost.evil.example",
    "localhost@evil.example",
    "127.0.0.1.nip.io",
    "10.0.0.1",
    "[::2]",
    "",
    "localhost/x",
    "0.0.0.0:3000",
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
  assert.equal(isLoopbackAddress("127.0.0.1"), true);
  assert.equal(isLoopbackAddress("::1"), true);
  assert.equal(isLoopbackAddress("0.0.0.0"), false);
  assert.equal(isLoopbackAddress("::"), false);
  assert.equal(isLoopbackAddress("192.168.1.2"), false);
});

test("Origin: exact scheme://host[:port], loopback or listed", () => {
  assert.equal(normalizeOrigin("https://app.example.com"), "https://app.example.com");
  assert.equal(normalizeOrigin("https://App.Example.com:443"), "https://app.example.com");
  assert.equal(normalizeOrigin("http://app.example.com:8080"), "http://app.example.com:8080");
  for (const bad of [
    "null",
    "app.example.com",
    "https://app.example.com/",
    "https://app.example.com/x",
    "ftp://a.example",
    "https://u:p@a.example",
    "https://a.example?x",
    "*",
  ]) {
    assert.equal(normalizeOrigin(bad), undefined, bad);
  }
  const allowed = new Set(["https://app.example.com"]);
  assert.equal(isAllowedOrigin("https://app.example.com", allowed), true);
  assert.equal(isAllowedOrigin("http://app.example.com", allowed), false, "the scheme is part of the origin");
  assert.equal(isAllowedOrigin("https://app.example.com:8443", allowed), false, "so is the port");
  assert.equal(isAllowedOrigin("http://localhost:5173", allowed), true);
  assert.equal(isAllowedOrigin("http://127.0.0.1", allowed), true);
  assert.equal(isAllowedOrigin("https://[::1]:1", allowed), true);
  assert.equal(isAllowedOrigin("https://evil.example", allowed), false);
  assert.equal(isAllowedOrigin("null", allowed), false);
});

test("mirrored values: trimmed, the =?base64?...?= form decoded strictly", () => {
  assert.equal(decodeMirroredValue("parse_smiles"), "parse_smiles");
  assert.equal(decodeMirroredValue("  parse_smiles \t"), "parse_smiles");
  assert.equal(decodeMirroredValue("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, 世界");
  assert.equal(decodeMirroredValue(" =?base64?IHBhZGRlZCA=?= "), " padded ");
  assert.equal(decodeMirroredValue("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), "=?base64?literal?=");
  assert.equal(decodeMirroredValue("=?base64?not base64?="), undefined);
  assert.equal(decodeMirroredValue("=?base64?abc?="), undefined, "length not a multiple of 4");
  assert.equal(decodeMirroredValue("=?base64?//79?="), undefined, "not UTF-8");
  assert.equal(decodeMirroredValue("=?BASE64?YQ==?="), "=?BASE64?YQ==?=", "the markers are case-sensitive");
  // Only a value with both markers is the Base64 form; one missing either is a literal (conformance SEP-2243 cases).
  assert.equal(decodeMirroredValue("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
  assert.equal(decodeMirroredValue("SGVsbG8=?="), "SGVsbG8=?=");
  assert.equal(decodeMirroredValue("=?base64??="), "");
  assert.equal(isHeaderSafe("a b\tc~"), true);
  assert.equal(isHeaderSafe("é"), false);
  assert.equal(isHeaderSafe("a\u0000"), false);
});

test("JSON-RPC error codes map to HTTP statuses per era", () => {
  assert.equal(statusFor("modern", undefined), 200);
  for (const code of [-32700, -32600, -32602, -32020, -32021, -32022]) assert.equal(statusFor("modern", code), 400, String(code));
  assert.equal(statusFor("modern", -32601), 404);
  assert.equal(statusFor("modern", -32603), 200, "-32603 keeps its body: 200");
  assert.equal(statusFor("legacy", -32700), 400);
  assert.equal(statusFor("legacy", -32600), 400);
  for (const code of [-32601, -32602, -32603, -32000]) assert.equal(statusFor("legacy", code), 200, `legacy ${code} travels in a 200, as 2025 servers answer`);
});
