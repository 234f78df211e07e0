/**
 * `chematic-mcp chembl download` (issue 18, item 4) against a local fake of ChEMBL's download site serving a
 * small chembl_99_sqlite.tar.gz with its checksums.txt: the latest release is found and unpacked and the
 * CHEMBL_SQLITE line printed; an interrupted download leaves its .part and the next run resumes it with a
 * Range request; a checksum mismatch fails and deletes the partial file; too little disk space fails before
 * anything is written; progress is plain lines when not on a terminal.
 */
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DownloadError, downloadChembl, parseChecksums } from "../../../src/domain/chembl/download.js";
import { CLI_PATH } from "../../helpers/server-process.js";

let work: string;
let tarball: Buffer;
let database: Buffer;
let server: Server;
let base: string;
let mode: "ok" | "cut" | "corrupt" = "ok";
const ranges: Array<string | undefined> = [];

before(async () => {
  work = mkdtempSync(join(tmpdir(), "chembl-download-"));
  const src = join(work, "src");
  mkdirSync(join(src, "chembl_99", "chembl_99_sqlite"), { recursive: true });
  database = randomBytes(3 * 1024 * 1024); // incompressible: the archive stays about this size
  writeFileSync(join(src, "chembl_99", "chembl_99_sqlite", "chembl_99.db"), database);
  execFileSync("tar", ["-czf", join(work, "chembl_99_sqlite.tar.gz"), "-C", src, "chembl_99"]);
  tarball = readFileSync(join(work, "chembl_99_sqlite.tar.gz"));
  const sha = createHash("sha256").update(tarball).digest("hex");
  const checksums = `${"0".repeat(64)}  chembl_99_chemreps.txt.gz\n${sha}  chembl_99_sqlite.tar.gz\n`;
  server = createServer((req, res) => {
    const url = req.url ?? "";
    if (url === "/pub/latest/checksums.txt" || url === "/pub/releases/chembl_99/checksums.txt") return res.writeHead(200).end(checksums);
    if (url !== "/pub/releases/chembl_99/chembl_99_sqlite.tar.gz" && url !== "/pub/latest/chembl_99_sqlite.tar.gz") return res.writeHead(404).end();
    ranges.push(req.headers.range);
    let body = tarball;
    if (mode === "corrupt") {
      body = Buffer.from(tarball);
      const i = body.length >> 1;
      body[i] = body[i]! ^ 0xff;
    }
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const start = m ? Number(m[1]) : 0;
    const headers = { "content-type": "application/gzip", "content-length": String(body.length - start) };
    if (m) res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${body.length - 1}/${body.length}` });
    else res.writeHead(200, headers);
    if (mode === "cut") {
      // Half the bytes, then the connection drops.
      res.write(body.subarray(start, start + ((body.length - start) >> 1)), () => res.socket?.destroy());
      return;
    }
    res.end(body.subarray(start));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/pub`;
});
after(() => {
  server.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  mode = "ok";
  ranges.length = 0;
});

function fresh(name: string): string {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}

test("checksums.txt: the SQLite archive's sha256 and release", () => {
  const sha = "a".repeat(64);
  assert.deepEqual(parseChecksums(`${"b".repeat(64)}  chembl_36_chemreps.txt.gz\n${sha}  chembl_36_sqlite.tar.gz\n`), {
    release: 36,
    name: "chembl_36_sqlite.tar.gz",
    sha256: sha,
  });
  assert.equal(parseChecksums(`${sha}  chembl_36_sqlite.tar.gz`, 35), null);
});

test("download: the latest release is fetched, checked, unpacked, with plain progress lines off a terminal", async () => {
  const dir = fresh("latest");
  const lines: string[] = [];
  const r = await downloadChembl({ dir, baseUrl: base, env: {}, write: (s) => lines.push(s), tty: false });
  assert.equal(r.release, 99);
  assert.equal(r.resumed_from, 0);
  assert.ok(readFileSync(r.database).equals(database), "the unpacked database is the one packed");
  assert.equal(existsSync(`${r.archive}.part`), false);
  const text = lines.join("");
  assert.match(text, /100\.0 %/);
  assert.match(text, /MB\/s {2}ETA/);
  assert.match(text, /checksum ok/);
  assert.doesNotMatch(text, /\r/, "no carriage returns off a terminal");
});

test("download: a terminal gets one progress line rewritten in place", async () => {
  const dir = fresh("tty");
  const lines: string[] = [];
  await downloadChembl({ release: 99, dir, baseUrl: base, env: {}, write: (s) => lines.push(s), tty: true });
  assert.match(lines.join(""), /\r\[#+\] 100\.0 %/);
});

test("download: an interruption leaves the partial file and the next run resumes it with a Range request", async () => {
  const dir = fresh("resume");
  mode = "cut";
  await assert.rejects(downloadChembl({ release: 99, dir, baseUrl: base, env: {}, write: () => {}, tty: false }), (e: unknown) => {
    assert.ok(e instanceof DownloadError, String(e));
    assert.match(e.message, /stopped at/);
    assert.match(e.fix, /resumes/);
    return true;
  });
  const part = join(dir, "chembl_99_sqlite.tar.gz.part");
  const have = statSync(part).size;
  assert.ok(have > 0 && have < tarball.length, `${have} of ${tarball.length} bytes kept`);
  mode = "ok";
  const lines: string[] = [];
  const r = await downloadChembl({ release: 99, dir, baseUrl: base, env: {}, write: (s) => lines.push(s), tty: false });
  assert.equal(ranges.at(-1), `bytes=${have}-`);
  assert.equal(r.resumed_from, have);
  assert.match(lines.join(""), /resuming/);
  assert.ok(readFileSync(r.database).equals(database));
});

test("download: a checksum mismatch fails and deletes the partial file", async () => {
  const dir = fresh("corrupt");
  mode = "corrupt";
  await assert.rejects(downloadChembl({ release: 99, dir, baseUrl: base, env: {}, write: () => {}, tty: false }), (e: unknown) => {
    assert.ok(e instanceof DownloadError);
    assert.match(e.message, /does not match its published checksum/);
    return true;
  });
  assert.equal(existsSync(join(dir, "chembl_99_sqlite.tar.gz.part")), false);
  assert.equal(existsSync(join(dir, "chembl_99_sqlite.tar.gz")), false);
});

test("download: too little free space fails before writing anything", async () => {
  const dir = fresh("full");
  await assert.rejects(
    downloadChembl({ release: 99, dir, baseUrl: base, env: {}, write: () => {}, tty: false, freeBytes: () => Promise.resolve(1_000_000) }),
    (e: unknown) => e instanceof DownloadError && /not enough disk space/.test(e.message) && /--dir/.test(e.fix),
  );
  assert.equal(existsSync(join(dir, "chembl_99_sqlite.tar.gz.part")), false);
});

test("download: an unknown release says so", async () => {
  await assert.rejects(
    downloadChembl({ release: 12, dir: fresh("unknown"), baseUrl: base, env: {}, write: () => {}, tty: false }),
    (e: unknown) => e instanceof DownloadError && /HTTP 404/.test(e.message) && /release 12/.test(e.fix),
  );
});

test("chematic-mcp chembl download prints the CHEMBL_SQLITE line on stdout", async () => {
  const dir = fresh("cli");
  const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [CLI_PATH, "chembl", "download", "--release", "99", "--dir", dir],
      { env: { ...process.env, CHEMBL_DOWNLOAD_BASE_URL: base }, timeout: 60_000 },
      (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    ),
  );
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, `CHEMBL_SQLITE=${join(dir, "chembl_99", "chembl_99_sqlite", "chembl_99.db")}\n`);
  assert.match(out.stderr, /ChEMBL 99 is ready/);
});
