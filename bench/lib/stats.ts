/** Small statistics and formatting helpers shared by the benchmark and the soak. */

/** The p-th percentile (nearest rank) of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function sortedCopy(values: readonly number[]): number[] {
  return Array.from(Float64Array.from(values).sort());
}

const MiB = 2 ** 20;

export function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1);
}

/** A number for a table: fixed decimals, thousands unseparated (easy to paste into a spreadsheet). */
export function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

export function ratio(numerator: number, denominator: number): string {
  return denominator > 0 && Number.isFinite(numerator) ? (numerator / denominator).toFixed(2) : "n/a";
}

/** A markdown table from a header row and body rows; columns after the first are right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const align = header.map((_, i) => (i === 0 ? "---" : "---:"));
  return [header, align, ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}
