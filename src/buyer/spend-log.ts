/**
 * @module buyer/spend-log — the buyer's local record of what it signed, one JSON line per event.
 * Every payment signature counts against the day's cap from the moment it is signed (a signed
 * authorization can be settled until it expires, whatever the seller answered); the outcome
 * (settled with its transaction, or not) is a second line.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

export interface SignedEntry {
  readonly event: "signed";
  readonly at: string;
  readonly url: string;
  /** The MCP tool paid, when the purchase went over MCP. */
  readonly tool?: string;
  readonly network: string;
  readonly asset: string;
  readonly pay_to: string;
  readonly amount: string;
  readonly usd: number;
}

export interface OutcomeEntry {
  readonly event: "settled" | "not_settled";
  readonly at: string;
  readonly url: string;
  readonly tool?: string;
  readonly transaction?: string;
  /** The HTTP status; over MCP, whether the tool answered an error instead. */
  readonly status?: number;
  readonly is_error?: boolean;
}

export function appendSpend(path: string, entry: SignedEntry | OutcomeEntry): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
}

/** USD signed on the UTC day of `now`. */
export function signedToday(path: string, now: Date): number {
  if (!existsSync(path)) return 0;
  const day = now.toISOString().slice(0, 10);
  let total = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let entry: Partial<SignedEntry>;
    try {
      entry = JSON.parse(line) as Partial<SignedEntry>;
    } catch {
      continue;
    }
    if (entry.event === "signed" && entry.at?.slice(0, 10) === day && typeof entry.usd === "number") total += entry.usd;
  }
  return total;
}
