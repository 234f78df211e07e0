/**
 * The 3D viewer: generate_3d's conformers drawn by 3Dmol.js (bundled into the page; WebGL, no network). The
 * result's molblock gives the atoms and bonds of the lowest-energy conformer; every other conformer has the same
 * atoms in the same order (its xyz), so its model is that molblock with the coordinates replaced. A list call
 * (smiles_list) gets a molecule picker.
 */
import * as $3Dmol from "3dmol";
import { connect, createApp, el, structuredOf } from "../shared/connect.js";

interface Conformer {
  energy_kcal_mol: number;
  relative_energy_kcal_mol: number;
  converged: boolean;
  rmsd_to_first: number;
  xyz: string;
}

interface Structure {
  smiles: string;
  molblock: string;
  force_field?: string;
  conformers?: Conformer[];
  warnings?: string[];
}

const status = document.getElementById("status")!;
const wrap = document.getElementById("wrap")!;
const picker = document.getElementById("molecule") as HTMLSelectElement;
const title = document.getElementById("title")!;
const meta = document.getElementById("meta")!;
const list = document.getElementById("conformers")!;
const hydrogens = document.getElementById("hydrogens") as HTMLInputElement;
const labels = document.getElementById("labels") as HTMLInputElement;

let viewer: $3Dmol.GLViewer | null = null;
let structures: Structure[] = [];
let shown = { molecule: 0, conformer: 0 };

/** The molblock with its atom coordinates taken from an XYZ text of the same atoms, in the same order. */
export function withCoordinates(molblock: string, xyz: string): string {
  const lines = molblock.split("\n");
  const count = Number(lines[3]?.slice(0, 3));
  const coords = xyz
    .trim()
    .split("\n")
    .slice(2)
    .map((l) => l.trim().split(/\s+/).slice(1, 4).map(Number));
  if (!Number.isInteger(count) || coords.length !== count) return molblock;
  for (let i = 0; i < count; i++) {
    const line = lines[4 + i];
    const c = coords[i]!;
    if (line === undefined || c.length !== 3 || c.some((v) => !Number.isFinite(v))) return molblock;
    lines[4 + i] = c.map((v) => v.toFixed(4).padStart(10)).join("") + line.slice(30);
  }
  return lines.join("\n");
}

function structuresOf(content: Record<string, unknown>): Structure[] {
  if (typeof content.molblock === "string") return [content as unknown as Structure];
  if (Array.isArray(content.results)) {
    return content.results.flatMap((entry: unknown) => {
      const result = (entry as { result?: unknown }).result as Partial<Structure> | undefined;
      return result && typeof result.molblock === "string" ? [result as Structure] : [];
    });
  }
  return [];
}

function draw(): void {
  const s = structures[shown.molecule];
  if (!s) return;
  viewer ??= $3Dmol.createViewer(document.getElementById("viewer")!, { backgroundColor: "white", antialias: true });
  const conformer = s.conformers?.[shown.conformer];
  const molblock = conformer && shown.conformer > 0 ? withCoordinates(s.molblock, conformer.xyz) : s.molblock;
  viewer.removeAllModels();
  viewer.removeAllLabels();
  viewer.addModel(molblock, "mol");
  viewer.setStyle({}, { stick: { radius: 0.15 }, sphere: { scale: 0.22 } });
  if (!hydrogens.checked) viewer.setStyle({ elem: "H" }, {});
  if (labels.checked) {
    viewer.addPropertyLabels("elem", hydrogens.checked ? {} : { not: { elem: "H" } }, { fontSize: 11, showBackground: false, fontColor: "black" });
  }
  viewer.zoomTo();
  viewer.render();
  document.body.dataset.rendered = `${shown.molecule}:${shown.conformer}`;
  for (const [i, button] of [...list.children].entries()) button.setAttribute("aria-pressed", String(i === shown.conformer));
}

function showMolecule(index: number): void {
  shown = { molecule: index, conformer: 0 };
  const s = structures[index]!;
  title.textContent = s.smiles;
  const atoms = Number(s.molblock.split("\n")[3]?.slice(0, 3));
  meta.textContent = `${atoms} atoms · ${s.force_field ?? ""}${s.warnings?.length ? ` · ${s.warnings.join("; ")}` : ""}`;
  list.replaceChildren(
    ...(s.conformers ?? []).map((c, i) => {
      const button = el(
        "button",
        `#${i + 1}  ΔE ${c.relative_energy_kcal_mol.toFixed(2)} kcal/mol${i > 0 ? ` · RMSD ${c.rmsd_to_first.toFixed(2)} Å` : ""}${c.converged ? "" : " · not converged"}`,
        "conf",
      );
      button.title = `E = ${c.energy_kcal_mol.toFixed(2)} kcal/mol`;
      button.setAttribute("role", "listitem");
      button.addEventListener("click", () => {
        shown.conformer = i;
        draw();
      });
      return button;
    }),
  );
  draw();
}

function show(content: Record<string, unknown> | null): void {
  structures = content ? structuresOf(content) : [];
  if (structures.length === 0) {
    status.textContent = "This result has no 3D structure to show.";
    status.hidden = false;
    wrap.hidden = true;
    return;
  }
  status.hidden = true;
  wrap.hidden = false;
  picker.hidden = structures.length < 2;
  picker.replaceChildren(...structures.map((s, i) => Object.assign(el("option", `${i + 1}. ${s.smiles}`), { value: String(i) })));
  showMolecule(0);
}

picker.addEventListener("change", () => showMolecule(Number(picker.value)));
hydrogens.addEventListener("change", draw);
labels.addEventListener("change", draw);

const app = createApp("viewer3d");
app.ontoolresult = (result) => show(structuredOf(result));
app.ontoolcancelled = () => {
  status.textContent = "The call was cancelled.";
};
void connect(app);
