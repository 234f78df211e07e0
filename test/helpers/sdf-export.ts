/**
 * An exported SDF read back by native RDKit (scripts/oracle-sdf-readback.py), and what each record's data items
 * should hold: every non-NULL cell of its row as text (numbers as JavaScript writes them, lists as JSON), with the
 * blank lines a value cannot keep in an SDF dropped and a line starting with $$$$ indented.
 */
import { oracleOutput } from "./oracle.js";

export interface ReadBackRecord {
  title: string | null;
  atoms: number | null;
  /** The molecule read back, as native RDKit writes it. */
  smiles: string | null;
  /** The SMILES the record was drawn from, as native RDKit writes it (null when it has none or native cannot read it). */
  expected: string | null;
  props: Record<string, string> | null;
}

export async function readBackSdf(path: string, smiles: ReadonlyArray<string | null>, columns: readonly string[]): Promise<ReadBackRecord[]> {
  const out = await oracleOutput({ script: "oracle-sdf-readback.py" }, { input: JSON.stringify({ path, smiles, columns }), timeoutMs: 600_000 });
  return JSON.parse(out) as ReadBackRecord[];
}

/** A cell as the file holds it: null for NULL (no item). */
export function cellAsText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The data items a row's record should carry: every non-NULL column, as an SDF value can hold it. */
export function expectedDataItems(row: Record<string, unknown>, columns: readonly string[]): Record<string, string> {
  const items: Record<string, string> = {};
  for (const c of columns) {
    const v = cellAsText(row[c]);
    if (v === null) continue;
    items[c] = v
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "")
      .map((l) => (l.startsWith("$$$$") ? ` ${l}` : l))
      .join("\n");
  }
  return items;
}
