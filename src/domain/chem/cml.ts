/**
 * A small Chemical Markup Language (CML, http://www.xml-cml.org/schema) writer for one molecule, from MolJSON.
 *
 *  <molecule xmlns="http://www.xml-cml.org/schema" id="m1">
 *    <atomArray>  <atom id="a1" elementType="C" formalCharge="0" hydrogenCount="3" [isotopeNumber] [spinMultiplicity] [x2 y2]>
 *                   [<atomParity atomRefs4="a2 a3 a4 a5">1</atomParity>]
 *    <bondArray>  <bond id="b1" atomRefs2="a1 a2" order="S|D|T"> [<bondStereo atomRefs4="a1 a2 a3 a4">C|T</bondStereo>]
 *
 * Choices:
 *  - Bond orders are Kekulé (S, D, T), never "A": a reader then needs no kekulisation of its own.
 *  - hydrogenCount is the total hydrogen count of the atom (implicit plus explicit H atoms bonded to it), as the
 *    CML schema defines it.
 *  - atomParity is the sign of the chiral volume of the four referenced atoms (CML schema): +1 when, looking
 *    from the first, the other three turn clockwise (SMILES @@), -1 for anticlockwise (SMILES @). An implicit
 *    hydrogen or a lone pair is referenced by the centre atom itself, in the last position (the MolJSON convention).
 *  - bondStereo C/T refers to atomRefs4 = [a, begin, end, d], MolJSON's reference atoms.
 *  - With 2D coordinates, the wedge (W) and hash (H) bonds of RDKit's depiction of the same layout are written as
 *    well, the narrow end first in atomRefs2, because readers that see 2D coordinates (Open Babel among them)
 *    derive tetrahedral stereo from wedges and ignore atomParity.
 *  - Dummy atoms ("*") are written with elementType "R". Dative bonds have no CML order and are written "S".
 * Checked against Open Babel's CML reader in test/domain/chem/cml.openbabel.test.ts.
 */
import type { MolJson } from "./moljson.js";

const CML_NAMESPACE = "http://www.xml-cml.org/schema";

export interface CmlOptions {
  /** The molecule's id attribute (default "m1"); must be an XML name. */
  id?: string;
  /** 2D coordinates per atom (Å-like depiction units), written as x2/y2. */
  coords2d?: ReadonlyArray<readonly [number, number]> | null;
  /** Wedged bonds of that 2D layout, by bond index: the narrow-end atom and W (wedge) or H (hash). */
  wedges?: ReadonlyMap<number, { begin: number; kind: "W" | "H" }>;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function formatCoordinate(v: number): string {
  const r = Math.round(v * 10_000) / 10_000;
  return (Object.is(r, -0) ? 0 : r).toFixed(4);
}

const ORDER: Record<number, string> = { 1: "S", 2: "D", 3: "T" };

/** CML text of one molecule. The MolJSON must be validated (or come from molToMolJson). */
export function molJsonToCml(m: MolJson, options: CmlOptions = {}): string {
  const id = options.id ?? "m1";
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(id)) throw new Error(`CML molecule id must be an XML name, got ${JSON.stringify(id)}`);
  const coords = options.coords2d ?? null;
  if (coords && coords.length !== m.atoms.length) throw new Error(`CML writer: ${coords.length} coordinates for ${m.atoms.length} atoms`);

  const explicitH = new Array<number>(m.atoms.length).fill(0);
  for (const b of m.bonds) {
    const [i, j] = b.atoms;
    if (m.atoms[j]!.element === "H") explicitH[i]!++;
    if (m.atoms[i]!.element === "H") explicitH[j]!++;
  }
  const atomId = (i: number) => `a${i + 1}`;

  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', `<molecule xmlns="${CML_NAMESPACE}" id="${escapeAttribute(id)}">`];
  lines.push(" <atomArray>");
  m.atoms.forEach((a, i) => {
    const attrs = [
      `id="${atomId(i)}"`,
      `elementType="${escapeAttribute(a.element === "*" ? "R" : a.element)}"`,
      `formalCharge="${a.charge}"`,
      `hydrogenCount="${a.implicit_hydrogens + explicitH[i]!}"`,
    ];
    if (a.isotope !== null) attrs.push(`isotopeNumber="${a.isotope}"`);
    if (a.radical_electrons) attrs.push(`spinMultiplicity="${a.radical_electrons + 1}"`);
    if (coords) attrs.push(`x2="${formatCoordinate(coords[i]![0])}"`, `y2="${formatCoordinate(coords[i]![1])}"`);
    if (a.chirality) {
      const refs = a.chirality.neighbors.map(atomId);
      if (refs.length === 3) refs.push(atomId(i));
      lines.push(`  <atom ${attrs.join(" ")}>`);
      lines.push(`   <atomParity atomRefs4="${refs.join(" ")}">${a.chirality.winding === "cw" ? 1 : -1}</atomParity>`);
      lines.push("  </atom>");
    } else {
      lines.push(`  <atom ${attrs.join(" ")}/>`);
    }
  });
  lines.push(" </atomArray>");
  if (m.bonds.length > 0) {
    lines.push(" <bondArray>");
    m.bonds.forEach((b, k) => {
      const order = ORDER[b.order];
      if (order === undefined) throw new Error(`CML writer: bond ${k} has no Kekulé order (${b.order})`);
      const wedge = coords ? options.wedges?.get(k) : undefined;
      const [first, second] = wedge && wedge.begin === b.atoms[1] ? [b.atoms[1], b.atoms[0]] : b.atoms;
      const attrs = `id="b${k + 1}" atomRefs2="${atomId(first)} ${atomId(second)}" order="${order}"`;
      if (wedge && (wedge.begin === b.atoms[0] || wedge.begin === b.atoms[1])) {
        lines.push(`  <bond ${attrs}>`);
        lines.push(`   <bondStereo>${wedge.kind}</bondStereo>`);
        lines.push("  </bond>");
      } else if (b.stereo) {
        const refs = [b.stereo.atoms[0], b.atoms[0], b.atoms[1], b.stereo.atoms[1]].map(atomId).join(" ");
        lines.push(`  <bond ${attrs}>`);
        lines.push(`   <bondStereo atomRefs4="${refs}">${b.stereo.config === "cis" ? "C" : "T"}</bondStereo>`);
        lines.push("  </bond>");
      } else {
        lines.push(`  <bond ${attrs}/>`);
      }
    });
    lines.push(" </bondArray>");
  }
  lines.push("</molecule>");
  return lines.join("\n") + "\n";
}
