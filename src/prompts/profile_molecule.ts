/**
 * profile_molecule: one molecule's profile, computed locally and looked up in ChEMBL: structure check and
 * standardisation, properties and rule sets, ADMET estimates and structural alerts, synthetic accessibility,
 * a picture, and what ChEMBL knows of it (the ChEMBL steps only when the server lists those tools).
 */
import type { Prompt } from "../contract/prompt.js";
import { plan, toolsOf, userText, type Step } from "./steps.js";

function steps(smiles: string): Step[] {
  return [
    {
      tool: "parse_smiles",
      args: { smiles },
      text: "check that it parses; if not, stop and report the position and reason the error gives (fix the SMILES, or resolve a name with `name_to_smiles`).",
    },
    {
      tool: "standardize",
      args: { smiles },
      text: "strip salts and solvents, neutralise and keep the parent; profile the standardized SMILES from here on (say so if it differs from the input).",
    },
    { tool: "calc_properties", args: { smiles: "<standardized SMILES>" }, text: "molecular weight, cLogP, TPSA, donors, acceptors, rotatable bonds, QED." },
    { tool: "lipinski_check", args: { smiles: "<standardized SMILES>" }, text: "the rule of five and which rules it breaks." },
    {
      tool: "druglikeness_filters",
      args: { smiles: "<standardized SMILES>" },
      text: "six published drug-likeness rule sets (Lipinski, Veber, Egan, Ghose, Muegge, ...), each with the values it read.",
    },
    {
      tool: "admet_profile",
      args: { smiles: "<standardized SMILES>" },
      text: "rule-based ADMET estimates (ESOL solubility, GI and BBB, hERG and CYP3A4 risk, AMES toxicophores), each naming its method; they are estimates, say so.",
    },
    { tool: "boiled_egg", args: { smiles: "<standardized SMILES>" }, text: "gastrointestinal absorption and brain penetration (BOILED-Egg)." },
    { tool: "pains_check", args: { smiles: "<standardized SMILES>" }, text: "PAINS alerts (assay interference)." },
    { tool: "brenk_check", args: { smiles: "<standardized SMILES>" }, text: "Brenk structural alerts (unwanted groups)." },
    { tool: "sa_score", args: { smiles: "<standardized SMILES>" }, text: "synthetic accessibility, 1 (easy) to 10 (hard)." },
    {
      tool: "chembl_search_molecules",
      args: { smiles: "<standardized SMILES>", search_type: "exact" },
      text: "is it in ChEMBL? Take molecule_chembl_id and parent_chembl_id; with no hit, a similarity search (search_type similarity) finds the nearest recorded analogues.",
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
    { tool: "depict", args: { smiles: "<standardized SMILES>", format: "png" }, text: "a picture of it." },
  ];
}

export const profileMoleculePrompt: Prompt = {
  name: "profile_molecule",
  title: "Profile one molecule",
  description:
    "A medicinal chemist's profile of one molecule: structure check and standardisation, properties, rule sets, ADMET estimates, " +
    "structural alerts, synthetic accessibility, a picture and what ChEMBL records of it, chaining the tools in order.",
  arguments: [
    {
      name: "smiles",
      description: "The molecule as SMILES (or CXSMILES). For a name, resolve it first with name_to_smiles.",
      required: true,
      maxLength: 4_000,
    },
  ],
  requires: ["parse_smiles", "calc_properties"],
  chains: toolsOf(steps("")),
  render(ctx) {
    const smiles = ctx.args.smiles!;
    return userText(
      [
        `Profile this molecule: ${smiles}`,
        "",
        "Call these tools in order (each takes the arguments shown; replace a <placeholder> with the value an earlier answer gave):",
        plan(steps(smiles), ctx),
        "",
        "Then write the profile: a short table of the values (units given), the rules and alerts it fails and why each matters, " +
          "what ChEMBL records of it, and one paragraph on its strengths and liabilities as a lead. Quote numbers as the tools answered them; do not compute any yourself.",
      ].join("\n"),
    );
  },
};
