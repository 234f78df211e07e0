/**
 * Canvas IDs: minting and reading them. An ID names the replica that holds the canvas and the run of that
 * replica (cv_<replica>_<run><random>), so a load balancer can route a canvas call by its Mcp-Param-Canvas-Id
 * header, and a replica that restarted, or that received another replica's canvas, says so instead of
 * "unknown". Over HTTP the ID is the only key: 143 random bits.
 */
import { randomBytes } from "node:crypto";

/** Characters of a canvas ID after the replica: the run of the replica process, then the random part. */
const RUN_CHARS = 4;
const RANDOM_CHARS = 24;
/** cv_, the replica, _, then 28 base-62 characters (the replica's run, then 24 random ones: 143 bits). */
export const CANVAS_ID_PATTERN = `^cv_[a-z0-9]{1,16}_[A-Za-z0-9]{${RUN_CHARS + RANDOM_CHARS}}$`;
const CANVAS_ID_RE = /^cv_([a-z0-9]{1,16})_([A-Za-z0-9]{4})([A-Za-z0-9]{24})$/;
/** The longest canvas ID (the schemas' maxLength allows surrounding whitespace too). */
export const CANVAS_ID_MAX_LENGTH = 3 + 16 + 1 + RUN_CHARS + RANDOM_CHARS;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `n` uniformly random base-62 characters (bytes past 247 are dropped, so no character is favoured). */
function randomBase62(n: number): string {
  let out = "";
  while (out.length < n) {
    for (const b of randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += BASE62[b % 62];
    }
  }
  return out;
}

/** A replica name for a process given none: 6 random lower-case letters and digits (a new one each start). */
export function randomReplicaId(): string {
  let out = "";
  while (out.length < 6) {
    for (const b of randomBytes(12)) if (b < 252 && out.length < 6) out += BASE62[b % 36]!.toLowerCase();
  }
  return out;
}

/** What one replica run puts in its canvas IDs: the replica's name and a random tag of this run. */
export interface CanvasIdOrigin {
  replica: string;
  run: string;
}

export function newRunTag(): string {
  return randomBase62(RUN_CHARS);
}

/** A new canvas ID minted by `origin` (a fresh tag and a random replica name unless given). */
export function newCanvasId(origin: CanvasIdOrigin = { replica: randomReplicaId(), run: newRunTag() }): string {
  return `cv_${origin.replica}_${origin.run}${randomBase62(RANDOM_CHARS)}`;
}

export function isCanvasId(id: string): boolean {
  return CANVAS_ID_RE.test(id);
}

/** The replica and run a canvas ID names, or undefined for a malformed ID. */
export function canvasIdOrigin(id: string): CanvasIdOrigin | undefined {
  const m = CANVAS_ID_RE.exec(id);
  return m ? { replica: m[1]!, run: m[2]! } : undefined;
}
