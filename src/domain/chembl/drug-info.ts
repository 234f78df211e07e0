/**
 * Drug information: a molecule with its family (the parent's salts, hydrates, isotopologues, each with
 * its own phase and flags), and the parent's mechanisms, indications and warnings. Each section reports
 * whether it was read completely; a section that fails is marked failed (absent, not empty) rather than
 * failing the whole answer.
 */
import { ToolError } from "../errors.js";
import { ID_LOOKUP_CAP, lookupRows } from "./batch.js";
import {
  INDICATION_FIELDS,
  MECHANISM_FIELDS,
  MOLECULE_FIELDS,
  WARNING_FIELDS,
  normalizeIndication,
  normalizeMechanism,
  normalizeMolecule,
  normalizeWarning,
} from "./normalise.js";
import { toFlag, toText } from "./coerce.js";
import { HAS_MOLECULE_ID, type Call, type ChemblRequests, type Json, type Param } from "./request.js";
import type { Indication, Mechanism, MoleculeRow, Source, Warning } from "./types.js";

/** Forms of one parent read for drug info (salts, hydrates, isotopologues). */
const MAX_FAMILY_FORMS = 100;
/** Rows of one drug section (mechanisms, indications, warnings) read before it reports truncated. */
const MAX_SECTION_ROWS = 2000;

type SectionStatus = "complete" | "truncated" | "failed";

export interface Section<T> {
  items: T[];
  status: SectionStatus;
  total_count: number | null;
  /** The error code when status is failed (the section's data is then absent, not empty). */
  error_code: string | null;
}

export interface FamilyForm {
  molecule_chembl_id: string | null;
  pref_name: string | null;
  is_parent: boolean | null;
  max_phase: number | null;
  first_approval: number | null;
  withdrawn_flag: boolean | null;
  black_box_warning: boolean | null;
}

export interface DrugInfo {
  molecule: MoleculeRow;
  parent_chembl_id: string;
  family: Section<FamilyForm>;
  mechanisms: Section<Mechanism>;
  indications: Section<Indication>;
  warnings: Section<Warning>;
  withdrawn: boolean | null;
  black_box_warning: boolean | null;
  source: Source;
}

/** A molecule's drug information: the molecule, its family's forms and the parent's mechanisms, indications and warnings. */
export async function drugInfo(requests: ChemblRequests, id: string, call: Call): Promise<Omit<DrugInfo, "source">> {
  const body = await requests.fetchJson(
    `molecule/${encodeURIComponent(id)}`,
    [["only", MOLECULE_FIELDS.join(",")]],
    { what: `molecule ${id}`, notFoundMeansMissing: true },
    call,
    HAS_MOLECULE_ID,
  );
  const molecule = normalizeMolecule(body);
  const parent = molecule.parent_chembl_id ?? molecule.molecule_chembl_id ?? id;
  const byParent: Param = ["parent_molecule_chembl_id", parent];
  const section = async <T>(
    path: string,
    key: string,
    fields: readonly string[],
    order: string,
    what: string,
    normalise: (r: Json) => T,
  ): Promise<Section<T>> => {
    try {
      const all = await requests.listAll(path, key, [byParent, ["only", fields.join(",")], ["order_by", order]], { what }, call, MAX_SECTION_ROWS);
      return { items: all.rows.map((r) => normalise(r)), status: all.complete ? "complete" : "truncated", total_count: all.total, error_code: null };
    } catch (e) {
      if (e instanceof ToolError && e.code !== "OFFLINE") return { items: [], status: "failed", total_count: null, error_code: e.code };
      throw e;
    }
  };
  const [family, mechanisms, indications, warnings] = await Promise.all([
    readFamily(requests, parent, call),
    section<Mechanism>("mechanism", "mechanisms", MECHANISM_FIELDS, "mec_id", "drug mechanisms", normalizeMechanism),
    section<Indication>("drug_indication", "drug_indications", INDICATION_FIELDS, "drugind_id", "drug indications", normalizeIndication),
    section<Warning>("drug_warning", "drug_warnings", WARNING_FIELDS, "warning_id", "drug warnings", normalizeWarning),
  ]);
  await nameMechanismTargets(requests, mechanisms.items, call);
  const flags = familyFlags(molecule, family, warnings);
  return { molecule, parent_chembl_id: parent, family, mechanisms, indications, warnings, ...flags };
}

/** The parent's forms (salts, hydrates, isotopologues) with their own phase and flags. */
async function readFamily(requests: ChemblRequests, parent: string, call: Call): Promise<Section<FamilyForm>> {
  try {
    const forms = await requests.listPage(
      "molecule_form",
      "molecule_forms",
      [
        ["parent_chembl_id", parent],
        ["only", "molecule_chembl_id,parent_chembl_id,is_parent"],
        ["limit", String(MAX_FAMILY_FORMS)],
        ["offset", "0"],
      ],
      { what: "the molecule's forms" },
      call,
    );
    const ids = [...new Set([parent, ...forms.rows.map((f) => toText(f.molecule_chembl_id)).filter((x): x is string => x !== null)])];
    const looked = await lookupRows(
      requests,
      "molecule",
      "molecules",
      "molecule_chembl_id",
      ids.slice(0, ID_LOOKUP_CAP),
      MOLECULE_FIELDS,
      "the molecule's forms",
      call,
    );
    const items = looked.map((r): FamilyForm => {
      const m = normalizeMolecule(r);
      const form = forms.rows.find((f) => toText(f.molecule_chembl_id) === m.molecule_chembl_id);
      return {
        molecule_chembl_id: m.molecule_chembl_id,
        pref_name: m.pref_name,
        is_parent: form ? toFlag(form.is_parent) : m.molecule_chembl_id === parent,
        max_phase: m.max_phase,
        first_approval: m.first_approval,
        withdrawn_flag: m.withdrawn_flag,
        black_box_warning: m.black_box_warning,
      };
    });
    const complete = forms.total === null || forms.total <= MAX_FAMILY_FORMS;
    return { items, status: complete ? "complete" : "truncated", total_count: forms.total, error_code: null };
  } catch (e) {
    if (e instanceof ToolError && e.code !== "OFFLINE") return { items: [], status: "failed", total_count: null, error_code: e.code };
    throw e;
  }
}

/** Best effort: the mechanisms' target names, one `__in` request. */
async function nameMechanismTargets(requests: ChemblRequests, mechanisms: Mechanism[], call: Call): Promise<void> {
  const ids = [...new Set(mechanisms.map((m) => m.target_chembl_id).filter((x): x is string => x !== null))].slice(0, ID_LOOKUP_CAP);
  if (ids.length === 0) return;
  try {
    const rows = await lookupRows(
      requests,
      "target",
      "targets",
      "target_chembl_id",
      ids,
      ["target_chembl_id", "pref_name", "target_type"],
      "mechanism targets",
      call,
    );
    const byId = new Map(rows.map((r) => [toText(r.target_chembl_id), r]));
    for (const m of mechanisms) {
      const t = byId.get(m.target_chembl_id);
      if (t) {
        m.target_pref_name = toText(t.pref_name);
        m.target_type = toText(t.target_type);
      }
    }
  } catch (e) {
    if (!(e instanceof ToolError)) throw e;
    // The names are a convenience; the mechanisms stand without them.
  }
}

/**
 * Withdrawn and black-box status read across the family: true when any form is flagged or ChEMBL holds a
 * warning of that type; false only when every source was read and none says so; otherwise null.
 */
function familyFlags(
  molecule: MoleculeRow,
  family: Section<FamilyForm>,
  warnings: Section<Warning>,
): { withdrawn: boolean | null; black_box_warning: boolean | null } {
  const decide = (own: boolean | null, forms: Array<boolean | null>, warningType: RegExp): boolean | null => {
    const values = [own, ...forms];
    const fromWarnings = warnings.items.some((w) => w.warning_type !== null && warningType.test(w.warning_type));
    if (values.includes(true) || fromWarnings) return true;
    const allRead = family.status === "complete" && warnings.status === "complete";
    return allRead && values.every((v) => v === false) ? false : null;
  };
  return {
    withdrawn: decide(
      molecule.withdrawn_flag,
      family.items.map((f) => f.withdrawn_flag),
      /withdrawn/i,
    ),
    black_box_warning: decide(
      molecule.black_box_warning,
      family.items.map((f) => f.black_box_warning),
      /black\s*box/i,
    ),
  };
}
