/**
 * The dump's worker thread: it holds the one read-only handle on the dump (better-sqlite3 is synchronous,
 * so a query here never blocks the protocol thread), builds or attaches the sidecar (layout.ts), and
 * answers the service's requests (rest.ts) one message at a time. RDKit is loaded here on first need, for
 * the InChIKey of an exact-structure search.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { answer, releaseOf, type Row, type SqlDb } from "./rest.js";
import { packAnswer } from "./columnar.js";
import { SIDECAR_FORMAT, indexedColumns, keyTable, makeLayout, missingLookups, quote, tablesOf } from "./layout.js";
import { TEXT_INDEX_DDL, TEXT_INDEX_FILL } from "./text-search.js";
import type { RDKit } from "../../chem/rdkit.js";
import type { DumpInfo, WorkerReply, WorkerRequest, WorkerSetup } from "./protocol.js";

interface Driver {
  new (path: string, options?: { readonly?: boolean; fileMustExist?: boolean }): Database;
}
interface Database extends SqlDb {
  exec(sql: string): void;
  close(): void;
  pragma(sql: string): unknown;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
}

const setup = workerData as WorkerSetup;
const port = parentPort!;

let rdkit: RDKit | undefined;

function inchiKeyOf(smiles: string): string | null {
  if (!rdkit) return null;
  const mol = rdkit.get_mol(smiles);
  if (!mol) return null;
  try {
    if (!mol.is_valid()) return null;
    const inchi = mol.get_inchi();
    return inchi ? rdkit.get_inchikey_for_inchi(inchi) || null : null;
  } finally {
    mol.delete();
  }
}

function stampOf(dump: string, release: string | null): string {
  const st = statSync(dump);
  return JSON.stringify({ format: SIDECAR_FORMAT, size: st.size, mtime: Math.round(st.mtimeMs), release });
}

/** Builds the sidecar's key and name tables from the dump (read through the read-only handle). */
function buildSidecar(Driver: Driver, db: Database, path: string, stamp: string, lookups: ReturnType<typeof missingLookups>, hasSynonyms: boolean): void {
  const side = new Driver(`${path}.tmp-${process.pid}`);
  try {
    side.pragma("journal_mode = OFF");
    side.pragma("synchronous = OFF");
    side.exec("CREATE TABLE meta (stamp TEXT NOT NULL)");
    for (const [i, l] of lookups.entries()) {
      const name = keyTable(l.table, l.column);
      port.postMessage({ kind: "progress", message: `building the lookup index (${i + 1}/${lookups.length + 2}): ${l.table}.${l.column}` });
      side.exec(`CREATE TABLE ${name} (k, rid INTEGER NOT NULL)`);
      const insert = side.prepare(`INSERT INTO ${name} (k, rid) VALUES (?, ?)`) as unknown as { run(...a: unknown[]): void };
      const rows = (
        db.prepare(`SELECT ${l.expr ?? quote(l.column)} AS k, rowid AS rid FROM ${quote(l.table)}`) as unknown as { iterate(): Iterable<Row> }
      ).iterate();
      side.transaction(() => {
        for (const r of rows) if (r.k !== null) insert.run(r.k, r.rid);
      })();
      side.exec(`CREATE INDEX ix_${name} ON ${name} (k, rid)`);
    }
    const steps = lookups.length + 2;
    port.postMessage({ kind: "progress", message: `building the lookup index (${steps - 1}/${steps}): molecule names and synonyms` });
    side.exec("CREATE TABLE names (key TEXT NOT NULL, molregno INTEGER NOT NULL, kind INTEGER NOT NULL)");
    const insert = side.prepare("INSERT INTO names (key, molregno, kind) VALUES (?, ?, ?)") as unknown as { run(...a: unknown[]): void };
    // In molregno order: the text search reads "contains" hits in rowid order as molregno order (text-search.ts).
    const sql =
      "SELECT key, molregno, kind FROM (SELECT lower(trim(pref_name)) AS key, molregno, 0 AS kind FROM molecule_dictionary WHERE pref_name IS NOT NULL AND trim(pref_name) <> ''" +
      (hasSynonyms ? " UNION ALL SELECT lower(trim(synonyms)), molregno, 1 FROM molecule_synonyms WHERE synonyms IS NOT NULL AND trim(synonyms) <> ''" : "") +
      ") ORDER BY molregno, kind";
    const rows = (db.prepare(sql) as unknown as { iterate(): Iterable<Row> }).iterate();
    side.transaction(() => {
      for (const r of rows) insert.run(r.key, r.molregno, r.kind);
    })();
    side.exec("CREATE INDEX ix_names ON names (key, molregno, kind)");
    port.postMessage({ kind: "progress", message: `building the lookup index (${steps}/${steps}): the text index of the names` });
    side.exec(TEXT_INDEX_DDL);
    for (const sql of TEXT_INDEX_FILL) side.exec(sql);
    (side.prepare("INSERT INTO meta (stamp) VALUES (?)") as unknown as { run(...a: unknown[]): void }).run(stamp);
  } finally {
    side.close();
  }
}

async function open(): Promise<{ db: Database; info: DumpInfo; handle: (r: WorkerRequest) => { reply: WorkerReply; transfer: ArrayBuffer[] } }> {
  let Driver: Driver;
  try {
    const mod = (await import(setup.driver)) as { default: Driver };
    Driver = mod.default;
  } catch {
    throw Object.assign(new Error(`the SQLite driver ${setup.driver} is not installed`), { reason: "driver_missing" });
  }
  if (!existsSync(setup.dump)) throw Object.assign(new Error(`no file at CHEMBL_SQLITE=${setup.dump}`), { reason: "file_missing" });
  let db: Database;
  try {
    db = new Driver(setup.dump, { readonly: true, fileMustExist: true });
    db.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch (e) {
    throw Object.assign(new Error(`CHEMBL_SQLITE=${setup.dump} is not a readable SQLite file (${(e as Error).message})`), { reason: "unreadable" });
  }
  const { tables, columns } = tablesOf(db);
  // A subset without the version table opens too (its answers then name no release).
  if (!tables.has("molecule_dictionary"))
    throw Object.assign(new Error(`CHEMBL_SQLITE=${setup.dump} has no molecule_dictionary table: not a ChEMBL dump`), { reason: "not_chembl" });
  const release = releaseOf(db, tables);
  const indexed = indexedColumns(db, tables);
  const lookups = missingLookups(tables, indexed);
  const stamp = stampOf(setup.dump, release.release);
  let sidecar: string | null = null;
  for (const dir of setup.sidecarDirs) {
    const candidate = `${dir}/${setup.sidecarName}`;
    try {
      if (existsSync(candidate)) {
        const probe = new Driver(candidate, { readonly: true, fileMustExist: true });
        const row = probe.prepare("SELECT stamp FROM meta").get() as Row | undefined;
        probe.close();
        if (row?.stamp === stamp) {
          sidecar = candidate;
          break;
        }
      }
      mkdirSync(dir, { recursive: true });
      buildSidecar(Driver, db, candidate, stamp, lookups, tables.has("molecule_synonyms"));
      const { renameSync } = await import("node:fs");
      renameSync(`${candidate}.tmp-${process.pid}`, candidate);
      sidecar = candidate;
      break;
    } catch {
      // An unwritable place: the next one (the cache directory) is tried; with none, lookups scan the dump.
    }
  }
  const sidecarKeys = new Set<string>();
  let sidecarNames = false;
  let sidecarText = false;
  if (sidecar) {
    db.exec(`ATTACH DATABASE ${quote(sidecar).replace(/^"|"$/g, "'")} AS side`);
    const sideTables = new Set((db.prepare("SELECT name FROM side.sqlite_master WHERE type = 'table'").all() as Row[]).map((r) => String(r.name)));
    for (const l of lookups) if (sideTables.has(keyTable(l.table, l.column))) sidecarKeys.add(`${l.table}.${l.column}`);
    sidecarNames = sideTables.has("names");
    sidecarText = sideTables.has("names_fts") && sideTables.has("names_grams");
  }
  // Statements are compiled once per SQL text (a walk's pages and repeated lookups reuse them).
  const statements = new Map<string, ReturnType<SqlDb["prepare"]>>();
  const cached: SqlDb = {
    prepare(sql) {
      let st = statements.get(sql);
      if (!st) {
        st = db.prepare(sql);
        statements.set(sql, st);
        if (statements.size > 256) statements.delete(statements.keys().next().value!);
      }
      return st;
    },
  };
  const layout = makeLayout(cached, { tables, columns, indexed, sidecarKeys, sidecarNames, sidecarText }, inchiKeyOf);
  const info: DumpInfo = {
    path: setup.dump,
    release: release.release,
    release_date: release.release_date,
    size_bytes: statSync(setup.dump).size,
    sidecar,
    structure_index: null,
  };
  return {
    db,
    info,
    handle: (r) => {
      const res = answer(cached, layout, r.path, new URLSearchParams(r.query));
      if (res.status < 200 || res.status >= 300 || res.body === null)
        return { reply: { id: r.id, status: res.status, body: res.body === null ? "" : JSON.stringify(res.body) }, transfer: [] };
      // An answer crosses packed (columnar.ts): no JSON text to write here and parse there.
      const packed = packAnswer(res.body);
      return { reply: { id: r.id, status: res.status, body: "", packed: packed.value, bytes: packed.bytes }, transfer: packed.transfer };
    },
  };
}

const opened = open();
opened.then(
  ({ info }) => port.postMessage({ kind: "ready", info }),
  (e: Error & { reason?: string }) => port.postMessage({ kind: "fatal", reason: e.reason ?? "open_failed", message: e.message }),
);

port.on("message", (msg: WorkerRequest) => {
  void (async () => {
    try {
      const { handle } = await opened;
      if (!rdkit && msg.query.includes("flexmatch")) {
        const { loadRDKit } = await import("../../chem/rdkit.js");
        rdkit = await loadRDKit();
      }
      const { reply, transfer } = handle(msg);
      port.postMessage({ kind: "answer", ...reply }, transfer);
    } catch (e) {
      port.postMessage({ kind: "answer", id: msg.id, status: 500, body: "", error: (e as Error).message });
    }
  })();
});
