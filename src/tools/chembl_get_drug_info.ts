import { ToolError } from "../domain/errors.js";
import { chemblIdProperty, optionalChemblId } from "./chembl-inputs.js";
import { mdCells, mdColumns, mdFields, mdInline, mdRefsCell, mdSource, mdSparseTable, type FieldValue } from "./chembl-markdown.js";
import {
  CHEMBL_ANNOTATIONS,
  CHEMBL_BUDGET_MS,
  CHEMBL_ERRORS,
  LIMITED_SECTION_STATUS_SCHEMA,
  SOURCE_SCHEMA,
  compactSource,
  type CompactSource,
  dropEmpty,
  rowObj,
  arr,
  markdownContent,
  nbool,
  nint,
  nnum,
  nstr,
  recordSchema,
} from "./chembl-common.js";
import { callOptions, getChemblService, type ChemblService, type FamilyForm, type Section } from "../domain/chembl/service.js";
import { INDICATION } from "../domain/chembl/records/indication.js";
import { MECHANISM } from "../domain/chembl/records/mechanism.js";
import { WARNING } from "../domain/chembl/records/warning.js";
import type { Indication, Mechanism, Warning } from "../domain/chembl/types.js";
import type { ServiceTool } from "../contract/tool.js";

interface Args {
  molecule_chembl_id: string;
  limit?: number;
}

interface SectionStatus {
  status: Section<unknown>["status"];
  total_count: number | null;
  error_code: string | null;
  /** Records read but left out by the call's limit. */
  omitted?: number;
}

/** Records a section answers by default, and at most: aspirin's 157 indications made a 53 KB answer. */
export const DRUG_INFO_DEFAULT_LIMIT = 25;
const DRUG_INFO_MAX_LIMIT = 500;

export interface DrugInfoResult {
  molecule_chembl_id: string;
  pref_name: string | null;
  molecule_type: string | null;
  parent_chembl_id: string;
  max_phase: number | null;
  first_approval: number | null;
  withdrawn: boolean | null;
  black_box_warning: boolean | null;
  /** Absent when the section failed (family_status.status "failed"): missing, not empty. */
  family?: Array<Partial<FamilyForm>>;
  family_status: SectionStatus;
  /** Absent when the section failed (mechanisms_status.status "failed"): missing, not empty. */
  mechanisms?: Array<Partial<Mechanism>>;
  mechanisms_status: SectionStatus;
  /** Absent when the section failed (indications_status.status "failed"): missing, not empty. */
  indications?: Array<Partial<Indication>>;
  indications_status: SectionStatus;
  /** Absent when the section failed (warnings_status.status "failed"): missing, not empty. */
  warnings?: Array<Partial<Warning>>;
  warnings_status: SectionStatus;
  notice: string | null;
  source: CompactSource;
  [k: string]: unknown;
}

function statusOf(s: Section<unknown>): SectionStatus {
  return { status: s.status, total_count: s.total_count, error_code: s.error_code };
}

/** A section and its status: a failed section's items are absent (not an empty list that reads as "none"). */
function section<K extends string, T extends object>(
  name: K,
  s: Section<T>,
  limit = Number.POSITIVE_INFINITY,
): Record<K, Array<Partial<T>>> & Record<`${K}_status`, SectionStatus> {
  const out: Record<string, unknown> = {};
  const status: SectionStatus = statusOf(s);
  // Items leave out their null fields and empty reference lists (absent reads as null / none).
  if (s.status !== "failed") {
    out[name] = s.items.slice(0, limit).map((item) => dropEmpty(item));
    if (s.items.length > limit) status.omitted = s.items.length - limit;
  }
  out[`${name}_status`] = status;
  return out as Record<K, Array<Partial<T>>> & Record<`${K}_status`, SectionStatus>;
}

/** A section's status after its heading: complete or truncated with the record count, or failed (not read: absent, not empty). */
function renderStatus(name: string, s: SectionStatus): string {
  if (s.status === "failed") return ` (failed: ${s.error_code ?? "unknown"}): ${name} absent: not read (not empty)`;
  const omitted = s.omitted ? `; ${s.omitted} more read but not shown: ask with a higher limit` : "";
  return ` (${s.status}, total_count ${s.total_count ?? "unknown"}${omitted})`;
}

/** Indications with the furthest phase first (approved ones kept by a limit), then by name, as ChEMBL's order breaks ties. */
function byPhase(items: readonly Indication[]): Indication[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => (b.item.max_phase_for_ind ?? -1) - (a.item.max_phase_for_ind ?? -1) || a.i - b.i)
    .map((e) => e.item);
}

/** A section as a heading with its status and a table of its records (the columns any record fills, in `order`). */
function renderSection(
  title: string,
  name: string,
  s: SectionStatus,
  order: string[],
  rows: Array<Record<string, FieldValue | undefined>> | undefined,
): string[] {
  const head = `**${title}**${renderStatus(name, s)}`;
  if (s.status === "failed") return ["", head];
  return ["", head, mdSparseTable(order, rows ?? [])];
}

function renderDrugInfo(r: DrugInfoResult): string {
  const lines = [
    "**ChEMBL drug information**",
    mdFields([
      ["molecule_chembl_id", r.molecule_chembl_id],
      ["pref_name", r.pref_name],
      ["molecule_type", r.molecule_type],
      ["parent_chembl_id", r.parent_chembl_id],
    ]),
    mdFields([
      ["max_phase", r.max_phase],
      ["first_approval", r.first_approval],
      ["withdrawn", r.withdrawn],
      ["black_box_warning", r.black_box_warning],
    ]),
  ];
  if (r.notice) lines.push(`- notice: ${mdInline(r.notice)}`);
  lines.push(
    ...renderSection(
      "Family (the parent and its forms)",
      "family",
      r.family_status,
      ["molecule_chembl_id", "pref_name", "is_parent", "max_phase", "first_approval", "withdrawn_flag", "black_box_warning"],
      r.family,
    ),
    // Each record's references go in one cell.
    ...renderSection(
      "Mechanisms",
      "mechanisms",
      r.mechanisms_status,
      mdColumns(MECHANISM),
      r.mechanisms?.map((m) => mdCells(MECHANISM, m, { refs: mdRefsCell })),
    ),
    ...renderSection(
      "Indications",
      "indications",
      r.indications_status,
      mdColumns(INDICATION),
      r.indications?.map((i) => mdCells(INDICATION, i, { refs: mdRefsCell })),
    ),
    ...renderSection(
      "Warnings",
      "warnings",
      r.warnings_status,
      mdColumns(WARNING),
      r.warnings?.map((w) => mdCells(WARNING, w, { refs: mdRefsCell })),
    ),
  );
  lines.push("", mdSource(r.source));
  return lines.join("\n");
}

const FAMILY_FORM_SCHEMA = rowObj("One form of the family.", {
  molecule_chembl_id: nstr("The form's ChEMBL ID."),
  pref_name: nstr("Its name."),
  is_parent: nbool("Whether it is the parent."),
  max_phase: nnum("Its own max_phase."),
  first_approval: nint("Its own first approval year."),
  withdrawn_flag: nbool("Its withdrawn flag."),
  black_box_warning: nbool("Its black-box warning flag."),
});

export function createChemblGetDrugInfoTool(service: () => ChemblService = getChemblService): ServiceTool<Args, DrugInfoResult> {
  return {
    kind: "service",
    toolset: "chembl",
    name: "chembl_get_drug_info",
    title: "ChEMBL: drug information",
    description:
      "Drug pharmacology of a molecule across its family: mechanisms of action with targets, clinical indications with phases, withdrawal and black-box warnings, max_phase and first approval.",
    annotations: CHEMBL_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        molecule_chembl_id: chemblIdProperty("The molecule (CHEMBL25)."),
        limit: { type: "integer", minimum: 1, maximum: DRUG_INFO_MAX_LIMIT, description: `Most records per section (default ${DRUG_INFO_DEFAULT_LIMIT}).` },
      },
      required: ["molecule_chembl_id"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        molecule_chembl_id: { type: "string", description: "The molecule asked about." },
        pref_name: nstr("Its name."),
        molecule_type: nstr("Small molecule, Protein, Antibody, ..."),
        parent_chembl_id: { type: "string", description: "The family parent the sections were read across." },
        max_phase: nnum("The queried form's own max phase (4 approved, kept after a withdrawal)."),
        first_approval: nint("The queried form's own first approval year."),
        withdrawn: nbool(
          "True when any form is flagged withdrawn or ChEMBL holds a Withdrawn warning; false only when everything was read and none says so; else null.",
        ),
        black_box_warning: nbool("The same rule for black-box warnings."),
        family: arr("The parent and its forms, each with its own phase and flags; absent when family_status says failed.", FAMILY_FORM_SCHEMA),
        family_status: LIMITED_SECTION_STATUS_SCHEMA("the family"),
        mechanisms: arr("Mechanisms of action across the family; absent when mechanisms_status says failed.", recordSchema(MECHANISM)),
        mechanisms_status: LIMITED_SECTION_STATUS_SCHEMA("the mechanisms"),
        indications: arr("Indications across the family, the furthest phase first; absent when indications_status says failed.", recordSchema(INDICATION)),
        indications_status: LIMITED_SECTION_STATUS_SCHEMA("the indications"),
        warnings: arr("Warnings across the family; absent when warnings_status says failed.", recordSchema(WARNING)),
        warnings_status: LIMITED_SECTION_STATUS_SCHEMA("the warnings"),
        notice: nstr("Guidance (failed sections, withdrawal caveat), or null."),
        source: SOURCE_SCHEMA,
      },
      required: [
        "molecule_chembl_id",
        "pref_name",
        "molecule_type",
        "parent_chembl_id",
        "max_phase",
        "first_approval",
        "withdrawn",
        "black_box_warning",
        "family_status",
        "mechanisms_status",
        "indications_status",
        "warnings_status",
        "notice",
        "source",
      ],
      additionalProperties: false,
    },
    errors: ["NOT_FOUND", ...CHEMBL_ERRORS],
    budgetMs: CHEMBL_BUDGET_MS,
    content: markdownContent(renderDrugInfo),
    async run(args, ctx) {
      service().assertOnline();
      const id = optionalChemblId(args.molecule_chembl_id);
      if (!id) throw new ToolError("INVALID_ARGUMENTS", "molecule_chembl_id is required", { path: "/molecule_chembl_id" });
      const info = await service().drugInfo(id, callOptions(ctx));
      const limit = args.limit ?? DRUG_INFO_DEFAULT_LIMIT;
      const notices: string[] = [];
      const failed = (
        [
          ["family", info.family],
          ["mechanisms", info.mechanisms],
          ["indications", info.indications],
          ["warnings", info.warnings],
        ] as const
      ).filter(([, s]) => s.status === "failed");
      if (failed.length > 0)
        notices.push(`Could not read ${failed.map(([n, s]) => `${n} (${s.error_code})`).join(", ")}: those sections are missing, not empty; retry later.`);
      if (info.withdrawn === true && info.molecule.max_phase === 4) notices.push("Withdrawn: max_phase 4 records a past approval, not current marketing.");
      if (info.parent_chembl_id !== id)
        notices.push(`${id} is a form of ${info.parent_chembl_id}; mechanisms, indications and warnings were read across that family.`);
      return {
        molecule_chembl_id: info.molecule.molecule_chembl_id ?? id,
        pref_name: info.molecule.pref_name,
        molecule_type: info.molecule.molecule_type,
        parent_chembl_id: info.parent_chembl_id,
        max_phase: info.molecule.max_phase,
        first_approval: info.molecule.first_approval,
        withdrawn: info.withdrawn,
        black_box_warning: info.black_box_warning,
        ...section("family", info.family, limit),
        ...section("mechanisms", info.mechanisms, limit),
        ...section("indications", { ...info.indications, items: byPhase(info.indications.items) }, limit),
        ...section("warnings", info.warnings, limit),
        notice: notices.length > 0 ? notices.join(" ") : null,
        source: compactSource(info.source),
      };
    },
  };
}

export const chemblGetDrugInfoTool = createChemblGetDrugInfoTool();
