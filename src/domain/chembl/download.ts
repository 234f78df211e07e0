/**
 * `chematic-mcp chembl download`: fetches the official ChEMBL SQLite release (chembl_NN_sqlite.tar.gz) from
 * ChEMBL's download site, checks it against the release's published checksums.txt (sha256), unpacks it
 * and names the CHEMBL_SQLITE line to use.
 *
 *  - the release: --release N, else the one the `latest/` folder's checksums.txt names;
 *  - free disk space is checked first (what is left to download plus the unpacked database, estimated at
 *    UNPACK_FACTOR times the archive: a release is about 5 GB compressed and over 20 GB unpacked);
 *  - the archive downloads to <name>.part; an interrupted run leaves it, and the next run resumes it with a
 *    Range request (a server that ignores Range starts over); the hash covers the bytes already there;
 *  - a checksum mismatch deletes the partial file (the next run starts clean) and fails;
 *  - progress (progress.ts): on a terminal one line rewritten in place (percent, size, rate, ETA); otherwise
 *    a plain line every 10 %;
 *  - proxies: HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as every other request.
 */
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { join } from "node:path";
import { outboundDispatcher } from "../net/dispatcher.js";
import { httpRequest, USER_AGENT } from "../net/http-client.js";
import { proxyFor } from "../net/proxy.js";
import { Progress, gb } from "./progress.js";

const CHEMBL_DOWNLOAD_DEFAULT_BASE_URL = "https://ftp.ebi.ac.uk/pub/databases/chembl/ChEMBLdb";
/** Unpacked size over archive size, for the disk-space check (chembl_33: 4.6 GB archive, about 22 GB unpacked). */
const UNPACK_FACTOR = 5;

export class DownloadError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

export interface DownloadOptions {
  release?: number;
  dir: string;
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Progress and messages (stderr in the CLI). */
  write: (text: string) => void;
  /** A terminal: progress rewrites one line. */
  tty: boolean;
  /** Free bytes in a folder (tests stub it). */
  freeBytes?: (dir: string) => Promise<number>;
  signal?: AbortSignal;
}

export interface DownloadResult {
  release: number;
  archive: string;
  database: string;
  bytes: number;
  resumed_from: number;
}

async function defaultFreeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return Number(s.bavail) * Number(s.bsize);
}

/** The sha256 and release of the SQLite archive a checksums.txt lists ("<sha256>  chembl_NN_sqlite.tar.gz"). */
export function parseChecksums(text: string, release?: number): { release: number; name: string; sha256: string } | null {
  for (const line of text.split(/\r?\n/)) {
    const m = /^([0-9a-f]{64})\s+\*?(chembl_(\d+)_sqlite\.tar\.gz)\s*$/i.exec(line.trim());
    if (m && (release === undefined || Number(m[3]) === release)) return { release: Number(m[3]), name: m[2]!, sha256: m[1]!.toLowerCase() };
  }
  return null;
}

async function hashFile(path: string, hash: ReturnType<typeof createHash>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", resolve)
      .on("error", reject);
  });
}

function findDatabase(dir: string, name: RegExp): string | null {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findDatabase(p, name);
      if (found) return found;
    } else if (name.test(entry.name)) return p;
  }
  return null;
}

/** Downloads, checks and unpacks one release; throws DownloadError with what to do. */
export async function downloadChembl(options: DownloadOptions): Promise<DownloadResult> {
  const env = options.env ?? process.env;
  const base = (options.baseUrl ?? CHEMBL_DOWNLOAD_DEFAULT_BASE_URL).replace(/\/+$/, "");
  const folder = options.release !== undefined ? `${base}/releases/chembl_${options.release}` : `${base}/latest`;
  const freeBytes = options.freeBytes ?? defaultFreeBytes;
  mkdirSync(options.dir, { recursive: true });

  // 1. The published checksum (and, without --release, which release is the latest).
  const sums = await httpRequest(`${folder}/checksums.txt`, { method: "GET", timeoutMs: 30_000, env, maxBytes: 1024 * 1024 }).catch((e: Error) => {
    throw new DownloadError(
      `cannot read ${folder}/checksums.txt: ${e.message}`,
      "Check the network (and HTTPS_PROXY), the release number, or CHEMBL_DOWNLOAD_BASE_URL.",
    );
  });
  if (sums.status !== 200)
    throw new DownloadError(
      `${folder}/checksums.txt answered HTTP ${sums.status}`,
      options.release !== undefined ? `Check that ChEMBL release ${options.release} exists.` : "Check CHEMBL_DOWNLOAD_BASE_URL.",
    );
  const listed = parseChecksums(sums.body.toString("utf8"), options.release);
  if (!listed) throw new DownloadError(`${folder}/checksums.txt lists no chembl_NN_sqlite.tar.gz`, "Pass --release N for a release that ships a SQLite dump.");
  const url = new URL(`${folder}/${listed.name}`);
  const archive = join(options.dir, listed.name);
  const part = `${archive}.part`;
  const have = existsSync(part) ? statSync(part).size : 0;

  // 2. The archive, resumed from what a previous run left.
  const hash = createHash("sha256");
  const dispatcher = await outboundDispatcher(proxyFor(url, env));
  const response = await dispatcher
    .request({
      origin: url.origin,
      path: url.pathname,
      method: "GET",
      headers: { "user-agent": USER_AGENT, ...(have > 0 ? { range: `bytes=${have}-` } : {}) },
      ...(options.signal ? { signal: options.signal } : {}),
    })
    .catch((e: Error) => {
      throw new DownloadError(`cannot download ${url.href}: ${e.message}`, "Check the network (and HTTPS_PROXY), then run the command again: it resumes.");
    });
  const status = response.statusCode;
  if (status !== 200 && status !== 206) {
    await response.body.dump().catch(() => {});
    throw new DownloadError(`${url.href} answered HTTP ${status}`, "Retry later, or check the release number.");
  }
  const resumed = status === 206 && have > 0;
  const length = Number(response.headers["content-length"]);
  const range = /\/(\d+)\s*$/.exec(String(response.headers["content-range"] ?? ""));
  const total = range ? Number(range[1]) : resumed ? have + length : length;
  const from = resumed ? have : 0;
  const free = await freeBytes(options.dir);
  const needed = (Number.isFinite(total) ? total - from : 0) + (Number.isFinite(total) ? total * UNPACK_FACTOR : 0);
  if (Number.isFinite(total) && free < needed) {
    await response.body.dump().catch(() => {});
    throw new DownloadError(
      `not enough disk space in ${options.dir}: ${gb(free)} free, about ${gb(needed)} needed (${gb(total - from)} to download, about ${gb(total * UNPACK_FACTOR)} unpacked)`,
      "Free some space or pass --dir on a larger disk.",
    );
  }
  if (resumed) {
    options.write(`resuming ${listed.name} at ${gb(have)}\n`);
    await hashFile(part, hash);
  } else {
    options.write(`downloading ${url.href} (${Number.isFinite(total) ? gb(total) : "size unknown"})\n`);
  }
  const progress = new Progress(options.write, options.tty, Number.isFinite(total) ? total : 0, from);
  let done = from;
  const out = createWriteStream(part, { flags: resumed ? "a" : "w" });
  try {
    await new Promise<void>((resolve, reject) => {
      response.body.on("data", (chunk: Buffer) => {
        hash.update(chunk);
        done += chunk.length;
        if (!out.write(chunk)) {
          response.body.pause();
          out.once("drain", () => response.body.resume());
        }
        progress.update(done);
      });
      response.body.on("end", resolve);
      response.body.on("error", reject);
      out.on("error", reject);
    });
  } catch (e) {
    await new Promise<void>((r) => out.end(r));
    if (options.tty) options.write("\n");
    throw new DownloadError(
      `the download stopped at ${gb(done)} of ${gb(total)}: ${(e as Error).message}`,
      `Run the same command again: it resumes from ${part}.`,
    );
  }
  await new Promise<void>((r) => out.end(r));
  progress.update(done, true);
  if (Number.isFinite(total) && done !== total)
    throw new DownloadError(`the download stopped at ${gb(done)} of ${gb(total)}`, `Run the same command again: it resumes from ${part}.`);

  // 3. The checksum, then the archive unpacked.
  const sha = hash.digest("hex");
  if (sha !== listed.sha256) {
    rmSync(part, { force: true });
    throw new DownloadError(
      `${listed.name} does not match its published checksum (sha256 ${sha}, expected ${listed.sha256}); the partial file was deleted`,
      "Run the command again to download it afresh; if it fails again, the mirror or a proxy is altering the file.",
    );
  }
  renameSync(part, archive);
  options.write(`checksum ok (sha256 ${sha}); unpacking\n`);
  await new Promise<void>((resolve, reject) =>
    execFile("tar", ["-xzf", archive, "-C", options.dir], (e, _out, stderr) =>
      e
        ? reject(new DownloadError(`unpacking ${archive} failed: ${stderr || e.message}`, "Check the free space, or unpack it by hand with tar -xzf."))
        : resolve(),
    ),
  );
  const database = findDatabase(options.dir, new RegExp(`^chembl_${listed.release}\\.db$`));
  if (!database) throw new DownloadError(`${archive} holds no chembl_${listed.release}.db`, "Unpack it by hand and point CHEMBL_SQLITE at the .db file.");
  return { release: listed.release, archive, database, bytes: done, resumed_from: from };
}
