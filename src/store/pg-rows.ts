/**
 * @module store/pg-rows — rows read from PostgreSQL in the shapes the SQLite engines return:
 * `timestamptz` columns come back from the driver as Dates, the SQLite tables keep ISO strings.
 */

/** The row with every Date value turned into its ISO string (the same text the SQLite engine stored). */
export function isoDates<Row extends object>(row: Row): { [K in keyof Row]: Row[K] extends Date ? string : Row[K] extends Date | null ? string | null : Row[K] } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value instanceof Date ? value.toISOString() : value;
  return out as never;
}
