/**
 * Coercion of one ChEMBL wire value. ChEMBL sends numbers as strings ("5.60"), changed field types between
 * releases (max_phase 4 in release 24-25, "4.0" from 33 on; flags as booleans, 0/1 or "0"/"1") and leaves
 * fields absent or empty. The rule: a value that is absent, empty or unreadable becomes null, never 0 or false.
 * The record declarations (records/) name these as the readings of their fields.
 */
import type { Json } from "./request.js";

export function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The objects of a list; anything that is not a list reads as none. */
export function listOf(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** A number from a number or a numeric string; null for absent, empty, non-numeric or non-finite. */
export function toNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const s = v.trim();
  if (s === "" || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** An integer (e.g. "9606" or "4.0"); null when absent or not a whole number. */
export function toInteger(v: unknown): number | null {
  const n = toNumber(v);
  return n !== null && Number.isInteger(n) ? n : null;
}

/**
 * A flag from a boolean, 0/1, "0"/"1", "true"/"false" or "Y"/"N". ChEMBL's -1 ("unknown", e.g. on
 * black_box_warning or chirality-style integer flags) and anything else read as null.
 */
export function toFlag(v: unknown): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : null;
  if (typeof v !== "string") return null;
  const s = v.trim().toLowerCase();
  if (s === "1" || s === "true" || s === "y" || s === "1.0") return true;
  if (s === "0" || s === "false" || s === "n" || s === "0.0") return false;
  return null;
}

/** Text, trimmed; empty or absent is null. Numbers become their decimal text (ChEMBL sometimes sends ids as ints). */
export function toText(v: unknown): string | null {
  if (typeof v === "string") {
    const s = v.trim();
    return s === "" ? null : s;
  }
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/** ChEMBL max_phase: 4 or "4.0" -> 4; 0.5 (early phase 1), -1 (unknown) kept; anything else null. */
export function toMaxPhase(v: unknown): number | null {
  const n = toNumber(v);
  if (n === null) return null;
  return [-1, 0, 0.5, 1, 2, 3, 4].includes(n) ? n : null;
}
