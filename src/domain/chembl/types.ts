/**
 * Flat domain types of ChEMBL records, as the tools answer them: each the type its declaration (records/)
 * describes. Every field upstream may leave out is nullable: null means ChEMBL did not say, never zero or false.
 */
import type { ACTIVITY } from "./records/activity.js";
import type { ASSAY } from "./records/assay.js";
import type { DOCUMENT } from "./records/document.js";
import type { INDICATION } from "./records/indication.js";
import type { MECHANISM } from "./records/mechanism.js";
import type { MOLECULE } from "./records/molecule.js";
import type { RecordOf } from "./records/record.js";
import type { TARGET, TARGET_COMPONENT } from "./records/target.js";
import type { WARNING } from "./records/warning.js";

/** Where an answer came from: every ChEMBL answer carries it (CC BY-SA 3.0 requires the attribution). */
export interface Source {
  /** The SQLite dump's file name when the offline source (CHEMBL_SQLITE) answered; absent for the web API. */
  dump?: string;
  database: "ChEMBL";
  /** The release the API reported on its status endpoint, e.g. "ChEMBL_36"; null when the status call failed. */
  release: string | null;
  release_date: string | null;
  license: "CC BY-SA 3.0";
  license_url: string;
  attribution: string;
}

export type MoleculeRow = RecordOf<typeof MOLECULE>;
export type TargetRow = RecordOf<typeof TARGET>;
export type TargetComponent = RecordOf<typeof TARGET_COMPONENT>;
export type Activity = RecordOf<typeof ACTIVITY>;
export type Assay = RecordOf<typeof ASSAY>;
export type ChemblDocument = RecordOf<typeof DOCUMENT>;
export type Mechanism = RecordOf<typeof MECHANISM>;
export type Indication = RecordOf<typeof INDICATION>;
export type Warning = RecordOf<typeof WARNING>;
