/**
 * The molecule table: a set a tool showed (a canvas table or query, an inline list) as pages of rows with the
 * structures the server drew, fetched one page at a time with molecule_table_page through the host (the app never
 * holds the whole table). Sorting, column filters and a substructure filter are the tool's arguments; a selection
 * goes back to the conversation as a user message and the model's context.
 */
import { connect, createApp, el, structuredOf } from "../shared/connect.js";

type Cell = string | number | boolean | null | object;

interface Page {
  columns: Array<{ name: string; type: string }>;
  rows: Cell[][];
  svgs: Array<string | null>;
  undrawn_from?: number;
  total: number;
  offset: number;
  smiles_column: string;
  substructure?: { molecules_matched: number };
}

/** Where the rows come from: molecule_table_page's source arguments. */
type Source = { canvas_id: string; table: string } | { canvas_id: string; sql: string } | { smiles_list: string[]; titles?: string[] };

interface Selected {
  id: string;
  title: string | null;
  smiles: string;
}

const PAGE_ROWS = 10;
/** Columns a table of imported molecules carries that a reader does not need beside the drawing. */
const HIDDEN = new Set(["input", "error"]);
const ID_COLUMNS = ["_row", "index", "row_id"];
const TITLE_COLUMNS = ["title", "name", "id", "molecule_chembl_id", "chembl_id"];

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $("status");
const scroll = $("scroll");
const head = $("head");
const body = $("rows");
const pager = $("pager");
const pageLabel = $("page");
const summary = $("summary");
const prev = $<HTMLButtonElement>("prev");
const next = $<HTMLButtonElement>("next");
const send = $<HTMLButtonElement>("send");
const substructureBox = $<HTMLInputElement>("substructure");

let args: Record<string, unknown> = {};
let source: Source | null = null;
const view = { offset: 0, orderBy: undefined as string | undefined, descending: false, substructure: undefined as string | undefined };
const filterText = new Map<string, string>();
const selected = new Map<string, Selected>();
let page: Page | null = null;
let requestId = 0;

/** The set a tool's call and result name (see the tools whose `_meta.ui` points here). */
function sourceOf(a: Record<string, unknown>, result: Record<string, unknown> | null): Source | null {
  const r = result ?? {};
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const list = (v: unknown) => (Array.isArray(v) && v.every((s) => typeof s === "string") ? v : undefined);
  const canvasId = str(r.canvas_id) ?? str(a.canvas_id);
  if (canvasId) {
    const table = str(r.table) ?? str(a.table);
    if (table) return { canvas_id: canvasId, table };
    const sql = str(a.sql);
    if (sql) return { canvas_id: canvasId, sql };
  }
  const smilesList = list(a.smiles_list);
  if (smilesList) {
    const titles = list(a.legends) ?? list(a.titles);
    return { smiles_list: smilesList, ...(titles ? { titles } : {}) };
  }
  const one = str(a.smiles) ?? str(r.smiles);
  return one ? { smiles_list: [one] } : null;
}

/** A column filter typed as text: `>3`, `<=500`, `=x`, `!=x`, `null`, `!null`, or words the cells contain. */
function parseFilter(column: string, text: string): Record<string, string> | null {
  const t = text.trim();
  if (t === "") return null;
  if (t === "null") return { column, op: "is_null" };
  if (t === "!null") return { column, op: "not_null" };
  const m = /^(>=|<=|!=|<>|>|<|=)\s*(.+)$/.exec(t);
  if (!m) return { column, op: "contains", value: t };
  const op = { ">=": "ge", "<=": "le", "!=": "ne", "<>": "ne", ">": "gt", "<": "lt", "=": "eq" }[m[1]!]!;
  return { column, op, value: m[2]! };
}

function showError(message: string): void {
  status.textContent = message;
  status.className = "error";
  status.hidden = false;
}

function errorText(result: { content?: Array<{ type: string; text?: string }> }): string {
  const text = result.content?.find((c) => c.type === "text")?.text ?? "The page could not be fetched.";
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string; hint?: string } };
    if (parsed.error?.message) return `${parsed.error.message}${parsed.error.hint ? ` — ${parsed.error.hint}` : ""}`;
  } catch {
    // Plain text.
  }
  return text;
}

async function callPage(extra: Record<string, unknown>): Promise<Page> {
  const filters = [...filterText].map(([c, t]) => parseFilter(c, t)).filter((f) => f !== null);
  const result = await app.callServerTool({
    name: "molecule_table_page",
    arguments: {
      ...source,
      limit: PAGE_ROWS,
      ...(view.orderBy !== undefined ? { order_by: view.orderBy, descending: view.descending } : {}),
      ...(filters.length > 0 ? { filters } : {}),
      ...(view.substructure !== undefined ? { substructure: view.substructure } : {}),
      ...extra,
    },
  });
  const content = structuredOf(result);
  if (!content) throw new Error(errorText(result));
  return content as unknown as Page;
}

/** One page: the rows, then (when the server kept its answer small) the drawings it left for another call. */
async function load(): Promise<void> {
  if (!source) return;
  const mine = ++requestId;
  status.textContent = "Loading…";
  status.className = "";
  status.hidden = false;
  try {
    const first = await callPage({ offset: view.offset });
    while (first.undrawn_from !== undefined && mine === requestId) {
      const from = first.undrawn_from;
      const rest = await callPage({ offset: view.offset + from, limit: first.rows.length - from });
      rest.svgs.forEach((svg, i) => (first.svgs[from + i] = svg));
      first.undrawn_from = rest.undrawn_from === undefined ? undefined : from + rest.undrawn_from;
      if (rest.rows.length === 0) break;
    }
    if (mine !== requestId) return;
    page = first;
    render();
  } catch (e) {
    if (mine === requestId) showError(e instanceof Error ? e.message : String(e));
  }
}

function columnIndex(p: Page, names: readonly string[]): number {
  for (const n of names) {
    const i = p.columns.findIndex((c) => c.name === n);
    if (i >= 0) return i;
  }
  return -1;
}

function format(v: Cell): string {
  if (v === null) return "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

function selectionOf(p: Page, row: Cell[], i: number): Selected {
  const idAt = columnIndex(p, ID_COLUMNS);
  const titleAt = columnIndex(p, TITLE_COLUMNS);
  const smiles = row[p.columns.findIndex((c) => c.name === p.smiles_column)];
  return {
    id: idAt >= 0 ? format(row[idAt]!) : String(p.offset + i),
    title: titleAt >= 0 && row[titleAt] !== null ? format(row[titleAt]!) : null,
    smiles: typeof smiles === "string" ? smiles : "",
  };
}

function renderHead(p: Page, shown: number[]): void {
  const names = el("tr");
  const filters = el("tr", undefined, "filters");
  names.append(el("th", "✓"), el("th", "Structure"));
  filters.append(el("th"), el("th"));
  for (const k of shown) {
    const name = p.columns[k]!.name;
    const th = el("th", name);
    th.title = `${p.columns[k]!.type}: click to sort`;
    th.dataset.column = name;
    if (view.orderBy === name) th.setAttribute("aria-sort", view.descending ? "descending" : "ascending");
    th.addEventListener("click", () => {
      view.descending = view.orderBy === name ? !view.descending : false;
      view.orderBy = name;
      view.offset = 0;
      void load();
    });
    names.append(th);
    const input = el("input");
    input.type = "text";
    input.placeholder = "filter";
    input.title = ">3, <=500, =x, !=x, null, !null, or text";
    input.dataset.column = name;
    input.value = filterText.get(name) ?? "";
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      if (input.value.trim() === "") filterText.delete(name);
      else filterText.set(name, input.value);
      view.offset = 0;
      void load();
    });
    const cell = el("th");
    cell.append(input);
    filters.append(cell);
  }
  head.replaceChildren(names, filters);
}

function render(): void {
  const p = page!;
  const shown = p.columns.map((_, k) => k).filter((k) => !HIDDEN.has(p.columns[k]!.name));
  renderHead(p, shown);
  let drawn = 0;
  body.replaceChildren(
    ...p.rows.map((row, i) => {
      const tr = el("tr");
      const item = selectionOf(p, row, i);
      const box = el("input");
      box.type = "checkbox";
      box.checked = selected.has(item.id);
      tr.setAttribute("aria-selected", String(box.checked));
      box.addEventListener("change", () => {
        if (box.checked) selected.set(item.id, item);
        else selected.delete(item.id);
        tr.setAttribute("aria-selected", String(box.checked));
        updateSend();
      });
      const check = el("td");
      check.append(box);
      const picture = el("td", undefined, "structure");
      const svg = p.svgs[i];
      if (svg) {
        // As an image: an SVG in <img> runs no script and loads nothing, whatever it holds.
        const img = el("img");
        img.alt = item.smiles;
        img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
        picture.append(img);
        drawn++;
      } else picture.append(el("span", item.smiles ? "not drawn" : "no structure"));
      tr.append(check, picture, ...shown.map((k) => Object.assign(el("td", format(row[k]!)), { title: format(row[k]!) })));
      return tr;
    }),
  );
  const pages = Math.max(1, Math.ceil(p.total / PAGE_ROWS));
  const current = Math.floor(p.offset / PAGE_ROWS) + 1;
  pageLabel.textContent = `Page ${current} of ${pages} · ${p.total} rows`;
  prev.disabled = p.offset === 0;
  next.disabled = p.offset + PAGE_ROWS >= p.total;
  summary.textContent = p.substructure ? `${p.substructure.molecules_matched} molecules contain ${view.substructure}` : "";
  status.hidden = p.rows.length > 0;
  status.className = "";
  status.textContent = p.total === 0 ? "No rows match." : "";
  scroll.hidden = false;
  pager.hidden = false;
  document.body.dataset.rendered = `${p.offset}:${p.total}:${drawn}:${requestId}`;
}

function updateSend(): void {
  send.disabled = selected.size === 0;
  send.textContent = selected.size > 0 ? `Send selection (${selected.size})` : "Send selection";
}

async function sendSelection(): Promise<void> {
  const items = [...selected.values()];
  const lines = items.map((s) => `- ${s.id}${s.title ? ` (${s.title})` : ""}: ${s.smiles}`);
  const where = source && "canvas_id" in source ? ` from canvas ${source.canvas_id}${"table" in source ? `, table ${source.table}` : ""}` : "";
  const text = `Selected ${items.length} molecule${items.length === 1 ? "" : "s"}${where}:\n${lines.join("\n")}`;
  try {
    await app.updateModelContext({ content: [{ type: "text", text }], structuredContent: { selection: items } });
    await app.sendMessage({ role: "user", content: [{ type: "text", text }] });
    document.body.dataset.sent = String(items.length);
  } catch (e) {
    showError(`The selection was not sent: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function start(result: Record<string, unknown> | null): void {
  source = sourceOf(args, result);
  if (!source) {
    showError("This result has no set of molecules to show.");
    return;
  }
  view.offset = 0;
  void load();
}

prev.addEventListener("click", () => {
  view.offset = Math.max(0, view.offset - PAGE_ROWS);
  void load();
});
next.addEventListener("click", () => {
  view.offset += PAGE_ROWS;
  void load();
});
$("apply").addEventListener("click", () => {
  const q = substructureBox.value.trim();
  view.substructure = q === "" ? undefined : q;
  view.offset = 0;
  void load();
});
substructureBox.addEventListener("keydown", (e) => {
  if (e.key === "Enter") $("apply").click();
});
$("clear").addEventListener("click", () => {
  substructureBox.value = "";
  view.substructure = undefined;
  filterText.clear();
  view.offset = 0;
  void load();
});
send.addEventListener("click", () => void sendSelection());

const app = createApp("table");
app.ontoolinput = (params) => {
  args = params.arguments ?? {};
};
app.ontoolresult = (result) => {
  if (result.isError) {
    showError("The tool answered an error; there is nothing to show.");
    return;
  }
  start(structuredOf(result));
};
app.ontoolcancelled = () => showError("The call was cancelled.");
void connect(app);
