/** The canvas part of the server's `instructions`: when rows are staged and how to read them. */
export const CANVAS_INSTRUCTIONS =
  "Large bioactivity views: when a chembl_get_bioactivities view is larger than one page, the server stages it whole (up to CHEMBL_MAX_SPILL_ROWS rows) " +
  "as a DuckDB table on a canvas and answers with canvas_id and table_name (bioactivities for potency_ranked, bioactivities_null_potency for null_potency) " +
  "plus the first rows. Read staged rows with chembl_dataframe_describe (columns) and chembl_dataframe_query (one read-only SELECT, DuckDB SQL, " +
  "answering at most max_rows rows and 60,000 bytes of them within 15 s; truncated_by names the cap reached); " +
  "pass canvas_id back to chembl_get_bioactivities to stage the other view beside it. Check truncated/truncated_by before calling a table complete. " +
  "A canvas expires after 30 minutes idle (CANVAS_NOT_FOUND: re-run the spill). " +
  "With CHEMATIC_CANVAS_DIR set a canvas is a file that expiry and restarts only close: its canvas_id reopens it, chembl_dataframe_describe " +
  "without canvas_id lists yours, and one unused for CHEMATIC_CANVAS_KEEP_DAYS days is deleted. " +
  "A library of your own goes on a canvas the same way: canvas_import makes a table from smiles_list, SDF or CSV text; canvas_annotate adds computed columns " +
  "(mw, logp, qed, pains, murcko_scaffold, ecfp4_similarity to a query...) to any table, staged tables included (their canonical_smiles column is read when " +
  "the table has no smiles column and smiles_column is not given), so sets are filtered, joined and ranked in SQL " +
  "without passing through your context; depict with canvas_id and sql draws the rows of a query as a grid. " +
  "Set tools on a table: standardize, druglikeness_filters, murcko_scaffold, cluster_molecules, pick_diverse, matched_pairs, rgroup_decompose, " +
  "enumerate_stereoisomers, find_mcs and depict take canvas_id + table instead of a list (smiles_column: its SMILES column, default smiles or a staged " +
  "table's canonical_smiles; where: an SQL condition picking the rows, e.g. cluster_id = 0); a value per row becomes a column, pairs, R-groups and " +
  "isomers a new table (into, default <table>_pairs/_rgroups/_stereoisomers) whose source_row/from_row/to_row is the row's _row. The resource skill://chembl-guide/SKILL.md holds the workflows " +
  "and SQL recipes (ranking without mixing assay types, mutants, salts or repeats; selectivity with the inactives).";
