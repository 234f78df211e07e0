/**
 * molecule_context_pack: one molecule's identifiers, properties, drug-likeness, structural alerts, ADMET
 * estimates and representations, assembled from the same domain functions the single tools use (so every
 * value equals what those tools answer), and rendered as JSON, markdown or a prompt paragraph.
 */
import { computeAdmet, type AdmetPayload } from "./admet.js";
import { screenAlerts } from "./alerts.js";
import { rawProperties } from "./properties.js";
import { round, type RDKit, type RDKitMol } from "./rdkit.js";
import { computeRepresentations } from "./representations.js";
import { computeSaScore } from "./sascore.js";
import type { MolJson } from "./moljson.js";

export const CONTEXT_FORMATS = ["json", "markdown", "prompt"] as const;
export type ContextFormat = (typeof CONTEXT_FORMATS)[number];

export interface ContextPack {
  identifiers: { smiles: string; inchi: string | null; inchikey: string | null; formula: string; mw: number; exact_mass: number };
  properties: { logp: number; tpsa: number; hbd: number; hba: number; rotatable_bonds: number; heavy_atoms: number; qed: number; sa_score: number };
  drug_likeness: {
    lipinski_passes: boolean;
    lipinski_violations: number;
    qed: number;
    pains_passes: boolean;
    brenk_passes: boolean;
    pains_alerts: string[];
    brenk_alerts: string[];
  };
  admet: Pick<
    AdmetPayload,
    | "bbb_score"
    | "bbb_passes"
    | "gi_absorbed"
    | "herg_risk"
    | "cyp3a4_risk"
    | "ames_risk"
    | "esol_logs"
    | "esol_class"
    | "clearance_class"
    | "ionization_class"
    | "disclaimer"
  >;
  representations: { canonical_smiles: string; moljson: MolJson | null };
  notes: string[];
}

export function buildContextPack(rdkit: RDKit, mol: RDKitMol): ContextPack {
  const raw = rawProperties(rdkit, mol);
  const d = raw.descriptors;
  const sa = computeSaScore(rdkit, mol, d);
  const pains = screenAlerts(rdkit, mol, "pains").map((h) => h.name);
  const brenk = screenAlerts(rdkit, mol, "brenk").map((h) => h.name);
  const admet = computeAdmet(rdkit, mol);
  const reps = computeRepresentations(rdkit, mol, new Set(["canonical_smiles", "inchi", "inchikey", "moljson"] as const));
  // Lipinski 1997 with the paper's counts (NH+OH donors, N+O acceptors), as lipinski_check.
  const violations = [d.amw > 500, d.CrippenClogP > 5, d.lipinskiHBD > 5, d.lipinskiHBA > 10].filter(Boolean).length;
  const canonical = reps.values.canonical_smiles ?? mol.get_smiles();
  return {
    identifiers: {
      smiles: canonical,
      inchi: reps.values.inchi ?? null,
      inchikey: reps.values.inchikey ?? null,
      formula: raw.formula,
      mw: round(d.amw, 3),
      exact_mass: round(d.exactmw, 4),
    },
    properties: {
      logp: round(d.CrippenClogP, 3),
      tpsa: round(d.tpsa, 2),
      hbd: d.NumHBD,
      hba: d.NumHBA,
      rotatable_bonds: d.NumRotatableBonds,
      heavy_atoms: d.NumHeavyAtoms,
      qed: round(raw.qed, 3),
      sa_score: round(sa.score, 3),
    },
    drug_likeness: {
      lipinski_passes: violations === 0,
      lipinski_violations: violations,
      qed: round(raw.qed, 3),
      pains_passes: pains.length === 0,
      brenk_passes: brenk.length === 0,
      pains_alerts: pains,
      brenk_alerts: brenk,
    },
    admet: {
      bbb_score: admet.bbb_score,
      bbb_passes: admet.bbb_passes,
      gi_absorbed: admet.gi_absorbed,
      herg_risk: admet.herg_risk,
      cyp3a4_risk: admet.cyp3a4_risk,
      ames_risk: admet.ames_risk,
      esol_logs: admet.esol_logs,
      esol_class: admet.esol_class,
      clearance_class: admet.clearance_class,
      ionization_class: admet.ionization_class,
      disclaimer: admet.disclaimer,
    },
    representations: { canonical_smiles: canonical, moljson: reps.values.moljson ?? null },
    notes: reps.notes,
  };
}

/** What a rendered text says about the input before the values: the parent used, a salt or mixture computed as one. */
export interface InputNotes {
  parent_smiles?: string;
  warnings?: ReadonlyArray<{
    code: string;
    message: string;
    fragment_count?: number;
    fragments?: ReadonlyArray<{ smiles: string; heavy_atoms: number; count?: number }>;
  }>;
}

const code = (smiles: string) => `\`${smiles.replace(/`/g, "")}\``;

function inputLines(notes: InputNotes, smiles: (s: string) => string): string[] {
  const lines: string[] = [];
  if (notes.parent_smiles !== undefined) lines.push(`Computed on the standardised parent of the input (parent: true): ${smiles(notes.parent_smiles)}.`);
  for (const w of notes.warnings ?? []) {
    if (w.fragments === undefined) {
      lines.push(`Warning ${w.code}: ${w.message}`);
      continue;
    }
    const listed = w.fragments
      .map((f) => `${f.count ? `${f.count} x ` : ""}${smiles(f.smiles)} (${f.heavy_atoms} heavy atom${f.heavy_atoms === 1 ? "" : "s"})`)
      .join(", ");
    lines.push(
      `Warning ${w.code}: ${w.fragment_count} disconnected fragments (${listed}), every value is for all of them together as one molecule; ` +
        `send parent: true for the standardised parent, or one fragment.`,
    );
  }
  return lines;
}

/** Text from the molecule (formula, names of alerts) rendered inert in markdown: no links, emphasis or HTML. */
function inert(text: string): string {
  return text.replace(/[\\`*_{}[\]<>()#+!|~]/g, (c) => `\\${c}`);
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

export function renderMarkdown(p: ContextPack, notes: InputNotes = {}): string {
  const list = (names: string[]) => (names.length === 0 ? "none" : names.map(inert).join(", "));
  const input = inputLines(notes, code);
  return [
    `# Molecule context`,
    ``,
    ...(input.length > 0 ? [`## Input`, ...input.map((l) => `- ${l}`), ``] : []),
    `## Identifiers`,
    `- SMILES: ${code(p.identifiers.smiles)}`,
    `- Formula: ${inert(p.identifiers.formula)}; MW ${p.identifiers.mw}; exact mass ${p.identifiers.exact_mass}`,
    `- InChIKey: ${p.identifiers.inchikey ?? "n/a"}`,
    ``,
    `## Properties`,
    `| logP | TPSA | HBD | HBA | rot. bonds | heavy atoms | QED | SA score |`,
    `|---:|---:|---:|---:|---:|---:|---:|---:|`,
    `| ${p.properties.logp} | ${p.properties.tpsa} | ${p.properties.hbd} | ${p.properties.hba} | ${p.properties.rotatable_bonds} | ${p.properties.heavy_atoms} | ${p.properties.qed} | ${p.properties.sa_score} |`,
    ``,
    `## Drug-likeness and alerts`,
    `- Lipinski rule of five: ${p.drug_likeness.lipinski_passes ? "passes" : `${p.drug_likeness.lipinski_violations} violation(s)`}`,
    `- PAINS: ${list(p.drug_likeness.pains_alerts)}`,
    `- Brenk: ${list(p.drug_likeness.brenk_alerts)}`,
    ``,
    `## ADMET (rule-based estimates)`,
    `- GI absorption (BOILED-Egg): ${yesNo(p.admet.gi_absorbed)}; BBB (BOILED-Egg yolk): ${yesNo(p.admet.bbb_passes)}; Clark logBB ${p.admet.bbb_score}`,
    `- ESOL logS ${p.admet.esol_logs} (${inert(p.admet.esol_class)}); ionisation: ${inert(p.admet.ionization_class)}; clearance: ${inert(p.admet.clearance_class)}`,
    `- hERG risk ${p.admet.herg_risk}; CYP3A4 risk ${p.admet.cyp3a4_risk}; AMES toxicophore ${p.admet.ames_risk ? "present" : "absent"}`,
    `- ${inert(p.admet.disclaimer)}`,
  ].join("\n");
}

export function renderPrompt(p: ContextPack, notes: InputNotes = {}): string {
  const alerts = [...p.drug_likeness.pains_alerts.map((a) => `PAINS ${a}`), ...p.drug_likeness.brenk_alerts.map((a) => `Brenk ${a}`)];
  return [
    ...inputLines(notes, (s) => s),
    `Molecule ${p.identifiers.smiles} (${p.identifiers.formula}, MW ${p.identifiers.mw}${p.identifiers.inchikey ? `, InChIKey ${p.identifiers.inchikey}` : ""}).`,
    `Crippen logP ${p.properties.logp}, TPSA ${p.properties.tpsa}, ${p.properties.hbd} H-bond donors, ${p.properties.hba} acceptors, ${p.properties.rotatable_bonds} rotatable bonds, ${p.properties.heavy_atoms} heavy atoms.`,
    `QED ${p.properties.qed}; synthetic accessibility ${p.properties.sa_score} (1 easy to 10 hard); Lipinski ${p.drug_likeness.lipinski_passes ? "passes" : `fails (${p.drug_likeness.lipinski_violations} violations)`}.`,
    alerts.length > 0 ? `Structural alerts: ${alerts.join("; ")}.` : `No PAINS or Brenk alerts.`,
    `Rule-based ADMET estimates (not measurements): GI absorption ${yesNo(p.admet.gi_absorbed)}, BBB penetration ${yesNo(p.admet.bbb_passes)}, ESOL logS ${p.admet.esol_logs}, hERG risk ${p.admet.herg_risk}, CYP3A4 risk ${p.admet.cyp3a4_risk}, AMES toxicophore ${p.admet.ames_risk ? "present" : "absent"}.`,
  ].join(" ");
}
