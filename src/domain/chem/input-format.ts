/**
 * What a molecule string is: SMILES, a molblock or CXSMILES, told apart by one unambiguous mark each, so
 * one argument (`smiles`, each `smiles_list` entry) takes all three and RDKit builds the same molecule
 * graph from any of them (parseSmiles in rdkit.ts).
 *
 * - molblock (MDL V2000 or V3000): the text has a line `M  END` (the CTAB's end, which no SMILES contains:
 *   a SMILES has no line breaks).
 * - CXSMILES: a SMILES, whitespace, then a `|...|` block (ChemAxon's extensions: coordinates, enhanced
 *   stereo, labels). A SMILES followed by a plain name ("CCO ethanol") stays SMILES, as RDKit reads it.
 * - anything else is SMILES. An InChI (`InChI=...`) is recognised only to say it is not readable here.
 */

export type InputFormat = "smiles" | "molblock" | "cxsmiles";

const MOLBLOCK_END = /^M {2}END[ \t]*\r?$/m;
const CXSMILES = /^\s*\S+[ \t]+\|[^|\n]*\|/;

/** The format of a molecule string (see the module comment). */
export function inputFormatOf(text: string): InputFormat {
  if (MOLBLOCK_END.test(text)) return "molblock";
  if (CXSMILES.test(text)) return "cxsmiles";
  return "smiles";
}

/** Whether the string is an InChI (RDKit MinimalLib cannot read InChI; name_to_smiles resolves it through PubChem). */
export function isInchi(text: string): boolean {
  return /^\s*InChI=/.test(text);
}

/** `M  END` lines in the text: more than one means several records (an SDF), which `smiles` does not take. */
export function molblockEnds(text: string): number {
  return text.match(/^M {2}END[ \t]*\r?$/gm)?.length ?? 0;
}

/** Atoms a molblock declares in its counts line (V2000 line 4, or V3000 `M  V30 COUNTS`); undefined when unreadable. */
export function molblockAtomCount(text: string): number | undefined {
  const v3 = /^M {2}V30 COUNTS\s+(\d+)/m.exec(text);
  if (v3) return Number.parseInt(v3[1]!, 10);
  const counts = text.split(/\r?\n/)[3];
  if (counts === undefined) return undefined;
  const n = Number.parseInt(counts.slice(0, 3), 10);
  return Number.isFinite(n) ? n : undefined;
}

/** The title (first line) of a molblock, trimmed; "" when it has none. */
export function molblockTitle(text: string): string {
  return (text.split(/\r?\n/)[0] ?? "").trim();
}

/** One record of an SDF: its molblock (up to its M  END line), title and data items. */
export interface SdfRecord {
  /** The record's molblock, or undefined when it has no M  END line (then `problem` says so). */
  molblock?: string;
  title: string;
  /** The data items (`> <TAG>` and the value lines under it), when the record has any. */
  properties?: Record<string, string>;
  problem?: string;
}

/**
 * The records of an SDF text (separated by `$$$$` lines; text after the last one is a record only when it
 * is not blank). Data items are read after each M  END: a `>` line naming `<TAG>`, then value lines up to a
 * blank line (several lines are joined by "\n"); a later item with the same tag replaces the earlier one.
 */
export function splitSdf(text: string): SdfRecord[] {
  const records: SdfRecord[] = [];
  let lines: string[] = [];
  const finish = () => {
    const end = lines.findIndex((l) => /^M {2}END\s*$/.test(l));
    const title = (lines[0] ?? "").trim();
    if (end < 0) {
      records.push({ title, problem: "the record has no M  END line (an SDF record is a molblock, then its data items, then $$$$)" });
      return;
    }
    const record: SdfRecord = { molblock: `${lines.slice(0, end + 1).join("\n")}\n`, title };
    const properties: Record<string, string> = {};
    let found = false;
    for (let i = end + 1; i < lines.length; i++) {
      const tag = /^>.*<([^>]*)>/.exec(lines[i]!);
      if (!tag) continue;
      const value: string[] = [];
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== "") value.push(lines[++i]!);
      properties[tag[1]!] = value.join("\n");
      found = true;
    }
    if (found) record.properties = properties;
    records.push(record);
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\$\$\$\$\s*$/.test(line)) {
      finish();
      lines = [];
    } else lines.push(line);
  }
  if (lines.some((l) => l.trim() !== "")) finish();
  return records;
}
