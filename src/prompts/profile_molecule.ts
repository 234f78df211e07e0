/**
 * profile_molecule: one molecule's profile, built around molecule_context_pack (identifiers, properties, QED, SA
 * score, Lipinski, PAINS and Brenk alerts, ADMET estimates with the BOILED-Egg, on the standardised parent, in one
 * call), then only what the pack lacks: the other published rule sets, what ChEMBL records of it (those steps only
 * when the server lists the ChEMBL tools), and a PNG picture.
 */
import type { Prompt } from "../contract/prompt.js";
import { plan, toolsOf, userText, type Step } from "./steps.js";

/** The pack's parent SMILES, which the steps after it take. */
const PARENT = "<the pack's identifiers.smiles>";

function steps(smiles: string): Step[] {
  return [
    {
      tool: "molecule_context_pack",
      args: { smiles, parent: true },
      text:
        "identifiers, properties, QED, synthetic accessibility, Lipinski, PAINS and Brenk alerts, ADMET estimates (ESOL, GI and BBB by the " +
        "BOILED-Egg, hERG, CYP3A4, AMES) of the standardised parent, in one call; parent_smiles and warnings say what standardising changed. " +
        "If it answers INVALID_SMILES, stop and report the position and reason (fix the SMILES, or resolve a name with `name_to_smiles`).",
    },
    {
      tool: "druglikeness_filters",
      args: { smiles, parent: true },
      text: "what the pack lacks: the other published rule sets (Veber, Egan, Ghose, Muegge, the rule of three), each with the values it read.",
    },
    {
      tool: "chembl_search_molecules",
      args: { smiles: PARENT, search_type: "exact" },
      text: "is it in ChEMBL? Take molecule_chembl_id; with no hit, a similarity search (search_type similarity) finds the nearest recorded analogues.",
    },
    {
      tool: "chembl_get_drug_info",
      args: { molecule_chembl_id: "<molecule_chembl_id>" },
      text: "only if ChEMBL has it: max phase, approval, withdrawal and black-box warnings, mechanisms and indications.",
    },
    {
      tool: "chembl_get_bioactivities",
      args: { molecule_chembl_id: "<molecule_chembl_id>", limit: 25 },
      text: "only if ChEMBL has it: its most potent measured targets (pchembl_value, standard_type, target).",
    },
    { tool: "depict", args: { smiles: PARENT, format: "png" }, text: "a PNG picture of it." },
  ];
}

export const profileMoleculePrompt: Prompt = {
  name: "profile_molecule",
  title: "Profile one molecule",
  description:
    "A medicinal chemist's profile of one molecule: the context pack (properties, QED, alerts, ADMET estimates, on the standardised parent) " +
    "in one call, the other rule sets, what ChEMBL records of it and a PNG picture.",
  arguments: [
    {
      name: "smiles",
      description: "The molecule as SMILES (or CXSMILES). For a name, resolve it first with name_to_smiles.",
      required: true,
      maxLength: 4_000,
    },
  ],
  requires: ["molecule_context_pack"],
  chains: toolsOf(steps("")),
  render(ctx) {
    const smiles = ctx.args.smiles!;
    return userText(
      [
        `Profile this molecule: ${smiles}`,
        "",
        "Call these tools (each takes the arguments shown; replace a <placeholder> with the value an earlier answer gave):",
        plan(steps(smiles), ctx),
        "",
        "Then write the profile: a short table of the values (units given), the rules and alerts it fails and why each matters, " +
          "what ChEMBL records of it, and one paragraph on its strengths and liabilities as a lead. The ADMET values are rule-based estimates: say so. " +
          "Quote numbers as the tools answered them; do not compute any yourself.",
      ].join("\n"),
    );
  },
};
