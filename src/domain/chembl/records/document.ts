/**
 * The document record (a chembl_get_documents row), declared once. Offline it is read from the docs row (d).
 */
import { toText } from "../coerce.js";
import { declareRecord } from "./record.js";

/** Abstracts are cut here (whole words, with abstract_truncated) so a 100-document answer stays small. */
const MAX_ABSTRACT_CHARS = 1200;

/** The abstract cut on a word past MAX_ABSTRACT_CHARS, with an ellipsis; a shorter one whole. */
function cutAbstract(abstract: string | null): string | null {
  if (abstract === null || abstract.length <= MAX_ABSTRACT_CHARS) return abstract;
  const head = abstract.slice(0, MAX_ABSTRACT_CHARS);
  const space = head.lastIndexOf(" ");
  return `${(space > MAX_ABSTRACT_CHARS * 0.8 ? head.slice(0, space) : head).trimEnd()}…`;
}

export const DOCUMENT = declareRecord({
  description: "One document.",
  compact: true,
  fields: [
    { name: "document_chembl_id", type: "string", description: "ChEMBL document ID.", sqlite: "d.chembl_id" },
    { name: "doc_type", type: "string", description: "PUBLICATION, PATENT, DATASET, BOOK, ...", sqlite: "d.doc_type" },
    { name: "title", type: "string", description: "Title.", sqlite: "d.title" },
    { name: "authors", type: "string", description: "Authors as ChEMBL lists them.", sqlite: "d.authors" },
    { name: "journal", type: "string", description: "Journal (abbreviated).", sqlite: "d.journal" },
    // The dump's docs table has no journal_full_title (the API adds it from its journal list): offline it reads null.
    { name: "journal_full_title", type: "string", description: "Journal, full title.", sqlite: null },
    { name: "year", type: "integer", description: "Publication year.", sqlite: "d.year" },
    { name: "volume", type: "string", description: "Volume.", sqlite: "d.volume" },
    { name: "issue", type: "string", description: "Issue.", sqlite: "d.issue" },
    { name: "first_page", type: "string", description: "First page.", sqlite: "d.first_page" },
    { name: "last_page", type: "string", description: "Last page.", sqlite: "d.last_page" },
    { name: "pubmed_id", type: "integer", description: "PubMed ID (follow it in a literature tool).", sqlite: "d.pubmed_id" },
    { name: "doi", type: "string", description: "DOI.", sqlite: "d.doi" },
    { name: "patent_id", type: "string", description: "Patent number (patents).", sqlite: "d.patent_id" },
    {
      name: "abstract",
      type: "string",
      description: `Abstract, cut at about ${MAX_ABSTRACT_CHARS} characters (see abstract_truncated).`,
      read: (raw) => cutAbstract(toText(raw.abstract)),
      sqlite: "d.abstract",
    },
    {
      name: "abstract_truncated",
      type: "boolean",
      nullable: false,
      description: "Whether the abstract was cut.",
      api: "abstract",
      read: (raw) => {
        const abstract = toText(raw.abstract);
        return cutAbstract(abstract) !== abstract;
      },
      // The abstract's own source fills the key offline.
    },
    { name: "src_id", type: "integer", description: "ChEMBL source ID.", sqlite: "d.src_id" },
  ],
  // Title, authors and abstract each on a line of their own; the short fields on two lines between.
  markdown: {
    lines: [
      ["title"],
      ["authors"],
      ["document_chembl_id", "doc_type", "journal", "journal_full_title", "year", "volume", "issue", "first_page", "last_page"],
      ["pubmed_id", "doi", "patent_id", "src_id", "abstract_truncated"],
      ["abstract"],
    ],
  },
});
