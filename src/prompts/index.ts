/**
 * The prompts, in the order prompts/list shows them: the chembl-guide skill, then the four workflows. Each is
 * listed only when the server lists the tools it requires (CHEMATIC_TOOLSETS may leave a set out).
 */
import type { Prompt } from "../contract/prompt.js";
import { chemblGuidePrompt } from "./chembl_guide.js";
import { hitTriagePrompt } from "./hit_triage.js";
import { profileMoleculePrompt } from "./profile_molecule.js";
import { compareSeriesPrompt } from "./compare_series.js";
import { triageHitListPrompt } from "./triage_hit_list.js";

/** Every shipped prompt; `skillText` is the chembl-guide SKILL.md as read at start-up. */
export function allPrompts(skillText: string): Prompt[] {
  return [chemblGuidePrompt(skillText), hitTriagePrompt, triageHitListPrompt, profileMoleculePrompt, compareSeriesPrompt];
}
