/**
 * DuckDB values as JSON: every value a query can produce becomes something JSON.stringify writes as valid
 * JSON, nothing is lost silently.
 *  - BIGINT, UBIGINT, HUGEINT, UHUGEINT: a number when it is a safe integer (|n| <= 2^53 - 1), else its
 *    exact decimal string (a JSON number beyond that would round);
 *  - DOUBLE, FLOAT: finite values as numbers; NaN, Infinity and -Infinity (not JSON numbers) as the
 *    strings "NaN", "Infinity", "-Infinity";
 *  - DECIMAL: a number when its width (<= 15 digits) keeps it exact in a double, else its string;
 *  - the rest as @duckdb/node-api's JSON converter writes them (dates and timestamps as strings, lists
 *    as arrays, structs as objects), recursively with these rules.
 */
import type { DuckDBType, DuckDBValueConverter, Json } from "@duckdb/node-api";
import type { DuckDbModule } from "./duckdb.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** A finite number, or the name of a non-finite one. */
export function jsonNumber(n: number): number | string {
  if (Number.isFinite(n)) return n;
  return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
}

/** An integer as a JSON number when exact, else as its decimal string. */
export function jsonInteger(v: bigint | number): number | string {
  if (typeof v === "number") return jsonNumber(v);
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

export function jsonConverter(duckdb: DuckDbModule): DuckDBValueConverter<Json> {
  const { DuckDBTypeId, JsonDuckDBValueConverter } = duckdb;
  const convert: DuckDBValueConverter<Json> = (value, type: DuckDBType, self) => {
    if (value === null || value === undefined) return null;
    switch (type.typeId) {
      case DuckDBTypeId.BIGINT:
      case DuckDBTypeId.UBIGINT:
      case DuckDBTypeId.HUGEINT:
      case DuckDBTypeId.UHUGEINT:
        if (typeof value === "bigint" || typeof value === "number") return jsonInteger(value);
        break;
      case DuckDBTypeId.DOUBLE:
      case DuckDBTypeId.FLOAT:
        if (typeof value === "number") return jsonNumber(value);
        break;
      case DuckDBTypeId.DECIMAL: {
        const width = (type as { width?: number }).width ?? 38;
        const text = String(value);
        if (width <= 15) {
          const n = Number(text);
          if (Number.isFinite(n)) return n;
        }
        return text;
      }
    }
    return JsonDuckDBValueConverter(value, type, self);
  };
  return convert;
}
