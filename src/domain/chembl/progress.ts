/**
 * A progress line for long commands (the release download, the structure index build): on a terminal one
 * line rewritten in place at most every 200 ms (a bar, percent, amount, rate, ETA); otherwise a plain line
 * every 10 %. What is counted (bytes, structures) is the caller's: `units` writes amounts and rates.
 */

export interface ProgressUnits {
  /** "1.20 GB of 4.60 GB", "120,000 of 2,400,000 structures". */
  amount(done: number, total: number): string;
  /** "12.3 MB/s", "2,100 structures/s". */
  rate(perSecond: number): string;
}

export function gb(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

const BYTE_UNITS: ProgressUnits = {
  amount: (done, total) => `${gb(done)} of ${gb(total)}`,
  rate: (perSecond) => `${(perSecond / 1e6).toFixed(1)} MB/s`,
};

/** Counted things, e.g. countUnits("structures"). */
export function countUnits(noun: string): ProgressUnits {
  const n = (x: number) => Math.round(x).toLocaleString("en-US");
  return { amount: (done, total) => `${n(done)} of ${n(total)} ${noun}`, rate: (perSecond) => `${n(perSecond)} ${noun}/s` };
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  return seconds < 120 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

export class Progress {
  private lastDraw = 0;
  private lastDecile = -1;
  private readonly started = Date.now();

  constructor(
    private readonly write: (s: string) => void,
    private readonly tty: boolean,
    private readonly total: number,
    /** Where this run started counting (a resumed download): the rate counts from here. */
    private readonly from: number,
    private readonly units: ProgressUnits = BYTE_UNITS,
  ) {}

  update(done: number, final = false): void {
    const now = Date.now();
    const fraction = this.total > 0 ? done / this.total : 0;
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const rate = (done - this.from) / seconds;
    const eta = rate > 0 ? (this.total - done) / rate : Infinity;
    const line = `${(fraction * 100).toFixed(1).padStart(5)} %  ${this.units.amount(done, this.total)}  ${this.units.rate(rate)}  ETA ${duration(eta)}`;
    if (this.tty) {
      if (!final && now - this.lastDraw < 200) return;
      this.lastDraw = now;
      const width = 30;
      const filled = Math.round(Math.min(1, fraction) * width);
      this.write(`\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${line}${final ? "\n" : ""}`);
    } else {
      const decile = Math.floor(fraction * 10);
      if (decile === this.lastDecile && !final) return;
      this.lastDecile = decile;
      this.write(`${line}\n`);
    }
  }
}
