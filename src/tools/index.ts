/**
 * The tool registry: every tool module, in the order tools/list shows them (the reference's 20 tools in its
 * order, then depiction and standardisation, then ChEMBL). Static for the life of the process (tools/list
 * is cacheable for 24 h, public scope); test-only tools join when CHEMATIC_TEST_TOOLS is on.
 */
import { ConfigError, dataframeDropEnabled, parseBoolean } from "../config.js";
import { TOOLSETS, type AnyTool, type ChemTool, type Toolset } from "../contract/tool.js";
import { nameToSmilesTool } from "./name_to_smiles.js";
import { parseSmilesTool } from "./parse_smiles.js";
import { canonicalSmilesTool } from "./canonical_smiles.js";
import { calcPropertiesTool } from "./calc_properties.js";
import { lipinskiCheckTool } from "./lipinski_check.js";
import { saScoreTool } from "./sa_score.js";
import { painsCheckTool } from "./pains_check.js";
import { brenkCheckTool } from "./brenk_check.js";
import { admetProfileTool } from "./admet_profile.js";
import { boiledEggTool } from "./boiled_egg.js";
import { ecfp4Tool } from "./ecfp4.js";
import { tanimotoTool } from "./tanimoto.js";
import { smartsMatchTool } from "./smarts_match.js";
import { findMcsTool } from "./find_mcs.js";
import { generate3dTool } from "./generate_3d.js";
import { retrosynthesisTool } from "./retrosynthesis.js";
import { smilesToMoljsonTool } from "./smiles_to_moljson.js";
import { moljsonToSmilesTool } from "./moljson_to_smiles.js";
import { representationRouterTool } from "./representation_router.js";
import { moleculeContextPackTool } from "./molecule_context_pack.js";
import { depictTool } from "./depict.js";
import { standardizeTool } from "./standardize.js";
import { chemblSearchMoleculesTool } from "./chembl_search_molecules.js";
import { chemblSearchTargetsTool } from "./chembl_search_targets.js";
import { chemblGetBioactivitiesTool } from "./chembl_get_bioactivities.js";
import { chemblGetDrugInfoTool } from "./chembl_get_drug_info.js";
import { chemblGetAssayTool } from "./chembl_get_assay.js";
import { chemblGetDocumentsTool } from "./chembl_get_documents.js";
import { chemblDataframeQueryTool } from "./chembl_dataframe_query.js";
import { chemblDataframeDescribeTool } from "./chembl_dataframe_describe.js";
import { chemblDataframeDropTool } from "./chembl_dataframe_drop.js";
import { canvasImportRecordTool, canvasImportTool } from "./canvas_import.js";
import { canvasExportMolblockTool, canvasExportTool } from "./canvas_export.js";
import { chemblStructureScanTool } from "./chembl_structure_scan.js";
import { canvasAnnotateRowTool, canvasAnnotateTool } from "./canvas_annotate.js";
import { plotEggPointTool, plotFingerprintTool, plotTool, plotViewTool } from "./plot.js";
// Issue 16 (medicinal chemistry set): scaffolds, clustering, diversity.
import { murckoScaffoldTool } from "./murcko_scaffold.js";
import { clusterMoleculesTool } from "./cluster_molecules.js";
import { pickDiverseTool } from "./pick_diverse.js";
import { rgroupDecomposeTool } from "./rgroup_decompose.js";
import { matchedPairsTool } from "./matched_pairs.js";
// Issue 16, medicinal chemistry (reactions, rule sets, stereoisomers).
import { druglikenessFiltersTool } from "./druglikeness_filters.js";
import { enumerateReactionTool } from "./enumerate_reaction.js";
import { enumerateStereoisomersTool } from "./enumerate_stereoisomers.js";
import { moleculeTablePageTool, moleculeTableWorkTool } from "./molecule_table_page.js";
import { withInputFormat } from "./common.js";
import { testCrashTool, testMemoryTool, testSleepTool } from "./testing.js";

const DECLARED_TOOLS: readonly AnyTool[] = [
  nameToSmilesTool,
  parseSmilesTool,
  canonicalSmilesTool,
  calcPropertiesTool,
  lipinskiCheckTool,
  saScoreTool,
  painsCheckTool,
  brenkCheckTool,
  admetProfileTool,
  boiledEggTool,
  ecfp4Tool,
  tanimotoTool,
  smartsMatchTool,
  findMcsTool,
  generate3dTool,
  retrosynthesisTool,
  smilesToMoljsonTool,
  moljsonToSmilesTool,
  representationRouterTool,
  moleculeContextPackTool,
  depictTool,
  standardizeTool,
  chemblSearchMoleculesTool,
  chemblSearchTargetsTool,
  chemblGetBioactivitiesTool,
  chemblGetDrugInfoTool,
  chemblGetAssayTool,
  chemblGetDocumentsTool,
  chemblDataframeQueryTool,
  chemblDataframeDescribeTool,
  canvasImportTool,
  canvasExportTool,
  canvasAnnotateTool,
  // Issue 33: plots as images.
  plotTool,
  // Issue 16: scaffolds, clustering, diversity.
  murckoScaffoldTool,
  clusterMoleculesTool,
  pickDiverseTool,
  // Issue 16 (medicinal chemistry): R groups and matched pairs.
  rgroupDecomposeTool,
  matchedPairsTool,
  // Issue 16, medicinal chemistry (reactions, rule sets, stereoisomers).
  druglikenessFiltersTool,
  enumerateReactionTool,
  enumerateStereoisomersTool,
  // Issue 33: the molecule table app's own tool (listed only to clients that declare MCP Apps).
  moleculeTablePageTool,
  plotViewTool,
];

/**
 * Chemistry tools the workers run for service tools but the registry does not list (no tools/list entry,
 * no tools/call): canvas_annotate's per-row computation, canvas_import's per-record standardisation, plot's per-molecule coordinates and fingerprints, and the offline ChEMBL structure search's scan
 * steps (ChemRunner.runList).
 */
const WORKER_ONLY_TOOLS: readonly ChemTool[] = [
  canvasAnnotateRowTool as unknown as ChemTool,
  canvasImportRecordTool as unknown as ChemTool,
  canvasExportMolblockTool as unknown as ChemTool,
  chemblStructureScanTool as unknown as ChemTool,
  moleculeTableWorkTool as unknown as ChemTool,
  plotEggPointTool as unknown as ChemTool,
  plotFingerprintTool as unknown as ChemTool,
];

/** Every per-molecule chemistry tool names a molblock or CXSMILES input in its results (withInputFormat). */
const PRODUCTION_TOOLS: readonly AnyTool[] = DECLARED_TOOLS.map((tool) => (tool.kind === "chem" ? withInputFormat(tool) : tool));

const TEST_TOOLS: readonly AnyTool[] = [testSleepTool, testCrashTool, testMemoryTool];

export function testToolsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return parseBoolean("CHEMATIC_TEST_TOOLS", env.CHEMATIC_TEST_TOOLS, false);
}

/**
 * The registered tools. chembl_dataframe_drop exists only when CHEMBL_DATAFRAME_DROP_ENABLED is true: the
 * app passes the start-up config's canvas.dropEnabled; without it the variable is read from `env`.
 */
export function allTools(env: NodeJS.ProcessEnv = process.env, options: { dataframeDrop?: boolean } = {}): AnyTool[] {
  const drop = options.dataframeDrop ?? dataframeDropEnabled(env);
  const production = drop ? [...PRODUCTION_TOOLS, chemblDataframeDropTool] : [...PRODUCTION_TOOLS];
  return testToolsEnabled(env) ? [...production, ...TEST_TOOLS] : production;
}

export function chemToolsByName(env: NodeJS.ProcessEnv = process.env): Map<string, ChemTool> {
  const map = new Map<string, ChemTool>();
  for (const tool of allTools(env)) if (tool.kind === "chem") map.set(tool.name, tool as ChemTool);
  for (const tool of WORKER_ONLY_TOOLS) map.set(tool.name, tool);
  return map;
}

/**
 * CHEMATIC_TOOLSETS: the tool sets an operator keeps (comma-separated chem, chembl, canvas, medchem; unset or
 * empty: all), in TOOLSETS order. An unknown name stops start-up (ConfigError names the variable).
 */
export function selectedToolsets(env: NodeJS.ProcessEnv = process.env): Toolset[] {
  const raw = env.CHEMATIC_TOOLSETS;
  if (raw === undefined || raw.trim() === "") return [...TOOLSETS];
  const names = raw
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new ConfigError(
      `CHEMATIC_TOOLSETS must be a comma-separated list of ${TOOLSETS.join(", ")} (or unset for all), got "${raw}"` +
        (unknown.length > 0 ? `: unknown tool set ${unknown.map((n) => `"${n}"`).join(", ")}` : ""),
    );
  }
  return TOOLSETS.filter((t) => names.includes(t));
}

/**
 * The tools a CHEMATIC_TOOLSETS setting leaves out, each with the setting that would bring it back (its set
 * added to those kept): the server neither lists nor accepts calls to them (TOOL_DISABLED names the setting).
 */
export function toolsOutsideSets(tools: readonly AnyTool[], kept: readonly Toolset[]): Array<{ name: string; setting: string; value: string }> {
  return tools
    .filter((t) => !kept.includes(t.toolset) && !(t.alsoIn ?? []).some((s) => kept.includes(s)))
    .map((t) => ({ name: t.name, setting: "CHEMATIC_TOOLSETS", value: TOOLSETS.filter((s) => s === t.toolset || kept.includes(s)).join(",") }));
}
