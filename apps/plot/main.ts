/**
 * The plot app: the `plot` tool's picture, made interactive. The PNG the tool answered is shown at once; the app
 * then asks the server for the same plot as a Vega specification (the app-only tool `plot_view`, same arguments:
 * the spec the server rendered to that PNG, with each point's row, SMILES and values, and pan/zoom) and runs it with
 * Vega's runtime (bundled) under Vega's CSP-safe expression interpreter (hosts' frames allow no eval). Hovering shows
 * a point's values; clicking picks points, which the user can send back to the conversation.
 */
import { View, parse, type Spec } from "vega";
import { expressionInterpreter } from "vega-interpreter";
import { connect, createApp, el, structuredOf } from "../shared/connect.js";

const plot = document.getElementById("plot")!;
const title = document.getElementById("title")!;
const status = document.getElementById("status")!;
const picked = document.getElementById("picked")!;
const send = document.getElementById("send") as HTMLButtonElement;
const tip = document.getElementById("tip")!;

let args: Record<string, unknown> | undefined;
let view: View | null = null;
const picks = new Map<string, Record<string, unknown>>();

/** A datum's own fields (Vega adds a Symbol id and, for selections, _vgsid_). */
function fieldsOf(datum: unknown): Record<string, unknown> {
  if (datum === null || typeof datum !== "object") return {};
  return Object.fromEntries(Object.entries(datum as Record<string, unknown>).filter(([k]) => !k.startsWith("_vgsid") && !k.startsWith("__")));
}

const shown = (v: unknown): string => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : String(v));

function keyOf(fields: Record<string, unknown>): string {
  return String(fields._row ?? fields.smiles ?? JSON.stringify(fields));
}

function renderPicks(): void {
  picked.replaceChildren(
    ...[...picks.values()].map((f) => {
      const item = el("div", undefined, "pick");
      item.setAttribute("role", "listitem");
      const name = f.title ?? f.id ?? f.name ?? (f._row !== undefined ? `row ${String(f._row)}` : undefined);
      item.append(el("b", name === undefined ? "" : `${String(name)} `), el("span", typeof f.smiles === "string" ? f.smiles : ""));
      return item;
    }),
  );
  send.disabled = picks.size === 0;
  document.body.dataset.picked = String(picks.size);
}

function showTip(event: MouseEvent, datum: unknown): void {
  const fields = fieldsOf(datum);
  const entries = Object.entries(fields).filter(([, v]) => v !== null && v !== undefined && typeof v !== "object");
  if (entries.length === 0) {
    tip.hidden = true;
    return;
  }
  const table = el("table");
  for (const [k, v] of entries.slice(0, 12)) {
    const row = el("tr");
    row.append(el("td", k), el("td", shown(v)));
    table.append(row);
  }
  tip.replaceChildren(table);
  tip.hidden = false;
  tip.style.left = `${Math.min(event.clientX + 12, window.innerWidth - 330)}px`;
  tip.style.top = `${event.clientY + 12}px`;
}

function showPng(result: { content?: unknown }): void {
  const blocks = Array.isArray(result.content) ? (result.content as { type?: string; data?: string; mimeType?: string }[]) : [];
  const image = blocks.find((b) => b.type === "image" && typeof b.data === "string");
  if (!image) return;
  const img = el("img");
  img.alt = "plot";
  img.src = `data:${image.mimeType ?? "image/png"};base64,${image.data}`;
  plot.replaceChildren(img);
}

async function interactive(): Promise<void> {
  if (!args) return;
  status.textContent = "Loading the interactive plot…";
  const answer = await app.callServerTool({ name: "plot_view", arguments: args });
  const content = structuredOf(answer);
  if (!content || typeof content.spec !== "object") {
    status.textContent = "The interactive plot is not available; the picture stays.";
    return;
  }
  view?.finalize();
  const runtime = parse(content.spec as Spec, undefined, { ast: true });
  view = new View(runtime, { expr: expressionInterpreter, renderer: "svg", container: plot, hover: true });
  view.tooltip((_handler, event, _item, value) => {
    if (value === undefined || value === null) tip.hidden = true;
    else showTip(event, value);
  });
  view.addEventListener("mouseout", () => {
    tip.hidden = true;
  });
  view.addEventListener("click", (event, item) => {
    const datum = (item as { datum?: unknown } | null | undefined)?.datum;
    const fields = fieldsOf(datum);
    if (Object.keys(fields).length === 0 || !("_row" in fields || "smiles" in fields)) return;
    const key = keyOf(fields);
    if (!(event as MouseEvent).shiftKey) picks.clear();
    if (picks.has(key)) picks.delete(key);
    else picks.set(key, fields);
    renderPicks();
  });
  await view.runAsync();
  const points = typeof content.points === "number" ? content.points : undefined;
  status.textContent = points === undefined ? "" : `${points.toLocaleString("en")} points`;
  document.body.dataset.interactive = "true";
}

send.addEventListener("click", () => {
  const lines = [...picks.values()].map((f) => {
    const values = Object.entries(f)
      .filter(([k, v]) => k !== "smiles" && v !== null && typeof v !== "object")
      .map(([k, v]) => `${k}=${shown(v)}`)
      .join(", ");
    return `- ${typeof f.smiles === "string" ? f.smiles : ""}${values ? ` (${values})` : ""}`;
  });
  const source = args ? [args.table ? `table ${String(args.table)}` : "the query", args.canvas_id ? `on canvas ${String(args.canvas_id)}` : ""].join(" ") : "";
  const text = `I picked ${picks.size} point${picks.size === 1 ? "" : "s"} on the ${String(args?.kind ?? "")} plot of ${source}:\n${lines.join("\n")}`;
  void app.sendMessage({ role: "user", content: [{ type: "text", text }] });
  void app.updateModelContext({ content: [{ type: "text", text }] });
});

const app = createApp("plot");
app.ontoolinput = (params) => {
  args = params.arguments;
  title.textContent = `${String(args?.kind ?? "plot")}${args?.table ? ` of ${String(args.table)}` : ""}`;
};
app.ontoolresult = (result) => {
  showPng(result);
  if (result.isError) {
    status.textContent = "The plot call failed.";
    return;
  }
  interactive().catch((e: unknown) => {
    status.textContent = `The interactive plot failed (${e instanceof Error ? e.message : String(e)}); the picture stays.`;
  });
};
void connect(app);
