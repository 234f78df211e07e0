/**
 * stdio transport: newline-delimited JSON-RPC. Frames are cut on raw bytes (so invalid UTF-8 is caught by
 * the codec, not mangled here), bounded at MAX_REQUEST_BYTES: an over-long line is answered with -32600,
 * with its own id when its first bytes name one (so the caller's pending call ends), and skipped up to its
 * newline, and the server keeps serving. Requests run concurrently; each response
 * is written as one whole line. At stdin EOF the server finishes what is in flight, then exits 0.
 */
import type { Readable, Writable } from "node:stream";
import { ID_PREFIX_BYTES, oversizeResponse, serializeResponse } from "../protocol/jsonrpc.js";
import { MAX_REQUEST_BYTES } from "../contract/limits.js";
import type { OutboundMessage } from "../server/connection.js";
import type { Endpoint, Transport } from "../server/transport.js";

export interface StdioOptions {
  input?: Readable;
  output?: Writable;
}

/**
 * Splits a byte stream into lines of at most `maxBytes`; over-long lines are reported with their first
 * ID_PREFIX_BYTES (where the id is), not buffered.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOverflow: (head: Buffer) => void,
  ) {}

  /** The first bytes of the line read so far (copied: the parts are dropped). */
  private head(extra?: Buffer): Buffer {
    const all = extra ? [...this.parts, extra] : this.parts;
    return Buffer.from(Buffer.concat(all).subarray(0, ID_PREFIX_BYTES));
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      if (!this.skipping) {
        const piece = chunk.subarray(start, end);
        if (this.size + piece.length > this.maxBytes + 1) {
          // +1 tolerates a trailing \r on a line of exactly maxBytes.
          const head = this.head(this.size < ID_PREFIX_BYTES ? piece.subarray(0, ID_PREFIX_BYTES - this.size) : undefined);
          this.parts = [];
          this.size = 0;
          this.skipping = true;
          this.onOverflow(head);
        } else {
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (nl < 0) break;
      if (!this.skipping) this.emit();
      this.skipping = false;
      this.parts = [];
      this.size = 0;
      start = nl + 1;
    }
  }

  /** At end of input, a final line without a newline still counts. */
  end(): void {
    if (!this.skipping && this.size > 0) this.emit();
    this.parts = [];
    this.size = 0;
  }

  private emit(): void {
    let line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length > this.maxBytes) {
      this.onOverflow(Buffer.from(line.subarray(0, ID_PREFIX_BYTES)));
      return;
    }
    // Blank lines between messages are tolerated.
    if (line.length === 0 || line.every((b) => b === 0x20 || b === 0x09)) return;
    this.onLine(line);
  }
}

/**
 * Serves one connection over a pair of streams. `done` resolves after EOF once every answer is written;
 * `close` stops reading (as EOF does) and waits up to graceMs for the calls in flight.
 */
export function serveStdio(endpoint: Endpoint, options: StdioOptions = {}): Transport {
  const connection = endpoint.open();
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const write = (line: string) => {
    output.write(`${line}\n`);
  };
  const notify = (message: OutboundMessage) => write(JSON.stringify(message));
  // Every frame's whole path (handling and writing its answer), so EOF can wait for all of them.
  const outstanding = new Set<Promise<void>>();
  const splitter = new LineSplitter(
    MAX_REQUEST_BYTES,
    (line) => {
      const work = connection.handleFrame(line, notify).then((response) => {
        if (response !== null) write(response);
      });
      outstanding.add(work);
      void work.finally(() => outstanding.delete(work));
    },
    (head) => {
      const { response, rawId } = oversizeResponse(head);
      write(serializeResponse(response, rawId));
    },
  );
  let ended = false;
  let graceUntil = Infinity;
  let closeInput: (graceMs: number) => void = () => {};
  const done = new Promise<void>((resolve) => {
    const finish = async () => {
      if (ended) return;
      ended = true;
      splitter.end();
      while (outstanding.size > 0 && Date.now() < graceUntil) {
        const left = graceUntil - Date.now();
        await Promise.race([Promise.allSettled([...outstanding]), ...(Number.isFinite(left) ? [new Promise((r) => setTimeout(r, left).unref())] : [])]);
      }
      // Resolve once everything queued on stdout has been flushed.
      output.write("", () => resolve());
    };
    input.on("data", (chunk: Buffer | string) => {
      if (!ended) splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    });
    input.on("end", () => void finish());
    input.on("error", () => void finish());
    closeInput = (graceMs: number) => {
      graceUntil = Date.now() + graceMs;
      input.pause();
      void finish();
    };
  });
  return {
    done,
    close(graceMs = 10_000) {
      closeInput(graceMs);
      return done;
    },
  };
}
