/**
 * @module x402/payment-identifier — the `payment-identifier` extension (specs/extensions/
 * payment_identifier.md, SDK 2.27 shape): the buyer's idempotency key for one paid call.
 *
 * A retry under the same identifier, from the same payer, for the same operation and body is
 * answered from memory with the first call's result and PAYMENT-RESPONSE, never run or charged
 * again. Held results live in this process only, for minutes (TTL) and within a byte budget:
 * a content result must never reach disk, and a restart forgetting them costs nothing but a
 * second payment the buyer can see coming (the lookup tells them the first one settled).
 */
import { createHash } from "node:crypto";
import type { SettleResponse } from "./messages.ts";

export const PAYMENT_IDENTIFIER = "payment-identifier";
export const PAYMENT_ID_MIN_LENGTH = 16;
export const PAYMENT_ID_MAX_LENGTH = 128;
const PAYMENT_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** `extensions["payment-identifier"]` as the official `declarePaymentIdentifierExtension(false)` writes it. */
export function declarePaymentIdentifier(): { info: { required: boolean }; schema: Record<string, unknown> } {
  return {
    info: { required: false },
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        required: { type: "boolean" },
        id: { type: "string", minLength: PAYMENT_ID_MIN_LENGTH, maxLength: PAYMENT_ID_MAX_LENGTH, pattern: "^[a-zA-Z0-9_-]+$" },
      },
      required: ["required"],
    },
  };
}

export type PaymentIdRead = { ok: true; id: string | null } | { ok: false; reason: string };

/** The buyer's identifier from a PaymentPayload's extensions: none, a valid id, or why it is unusable. */
export function readPaymentIdentifier(extensions: Record<string, unknown> | undefined): PaymentIdRead {
  const extension = extensions?.[PAYMENT_IDENTIFIER];
  if (extension === undefined) return { ok: true, id: null };
  if (typeof extension !== "object" || extension === null) return { ok: false, reason: "payment-identifier must be an object" };
  const info = (extension as { info?: unknown }).info;
  if (typeof info !== "object" || info === null) return { ok: false, reason: "payment-identifier has no info object" };
  const id = (info as { id?: unknown }).id;
  if (id === undefined) return { ok: true, id: null };
  if (typeof id !== "string" || id.length < PAYMENT_ID_MIN_LENGTH || id.length > PAYMENT_ID_MAX_LENGTH || !PAYMENT_ID_PATTERN.test(id)) {
    return { ok: false, reason: `payment-identifier id must be ${PAYMENT_ID_MIN_LENGTH}-${PAYMENT_ID_MAX_LENGTH} characters of A-Z, a-z, 0-9, "_" and "-"` };
  }
  return { ok: true, id };
}

/** JSON with object keys sorted at every level, so equal values always hash alike. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** SHA-256 (hex) of a JSON value in canonical form: request bodies and payment payloads. */
export function digestJson(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value) ?? "undefined").digest("hex");
}

const payloadDigests = new WeakMap<object, string>();

/**
 * `digestJson` of a payment payload, computed once per decoded payload however many steps ask
 * (the Idempotency-Key match, the replay check, the settlement's record).
 */
export function payloadDigestOf(payload: object): string {
  let digest = payloadDigests.get(payload);
  if (digest === undefined) payloadDigests.set(payload, (digest = digestJson(payload)));
  return digest;
}

/** What a retry must share with the first call to be answered again: who pays, where, for what. */
export interface CallIdentity {
  readonly payer: string;
  readonly network: string;
  readonly operation: string;
  readonly bodyDigest: string;
}

export function fingerprintCall(call: CallIdentity): string {
  // EVM addresses arrive in any case; the checksum case is not part of who the payer is.
  const payer = call.network.startsWith("eip155:") ? call.payer.toLowerCase() : call.payer;
  return digestJson([payer, call.network, call.operation, call.bodyDigest]);
}

/** A success answer kept for replay. `body` is the JSON text, so its size is known and it cannot change. */
export interface HeldAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** The answer's settlement, typed: each transport puts it in its own envelope when it answers again (HTTP: PAYMENT-RESPONSE). */
  readonly settlement?: SettleResponse;
}

export type ReplayClaim =
  /** First use of the identifier: go on; `settle`/`hold` or `abandon` with the same token. */
  | { readonly kind: "claimed" }
  /** Same call already answered: send this again. */
  | { readonly kind: "held"; readonly answer: HeldAnswer }
  /** Same call still running (or its settlement is unconfirmed): 409, never a second run. */
  | { readonly kind: "in_flight"; readonly token: string }
  /** Same call paid and settled, but its result is no longer held (too large, or evicted for space). */
  | { readonly kind: "not_held"; readonly paymentHeaders: Readonly<Record<string, string>> }
  /** The identifier belongs to a different call (payer, operation or body). */
  | { readonly kind: "conflict" };

export interface ReplayCacheOptions {
  /** How long a settled result is held (default 10 minutes). */
  readonly ttlMs?: number;
  /** Total memory budget for held results and their bookkeeping (default 32 MiB). */
  readonly maxBytes?: number;
  /** Largest single result held (default 2 MiB); bigger ones are answered once and not kept. */
  readonly maxResultBytes?: number;
  readonly now?: () => number;
}

export interface ReplayCache {
  /**
   * What can be answered before verifying a payment: a conflict (the identifier belongs to another
   * call), or the very payload that paid sent again (held, not held, or settling). Undefined otherwise.
   */
  peek(id: string, fingerprint: string, payloadDigest: string): ReplayClaim | undefined;
  /** Looks the identifier up and, when unknown, marks it in flight under `token`. */
  claim(id: string, fingerprint: string, token: string): ReplayClaim;
  /** The payment settled: remember which payload paid and its PAYMENT-RESPONSE until the result arrives. */
  settled(id: string, token: string, payloadDigest: string, paymentHeaders: Record<string, string>): void;
  /** Keeps the success answer for the TTL; false when it is not kept (too large, or not this token's). */
  hold(id: string, token: string, answer: HeldAnswer): boolean;
  /** The call failed or was refused: forget the identifier so a new payment may use it. */
  abandon(id: string, token: string): void;
  /** Entries and bytes accounted, after dropping expired ones. */
  size(): { entries: number; bytes: number };
}

interface Entry {
  readonly fingerprint: string;
  readonly token: string;
  state: "in_flight" | "settled" | "held" | "not_held";
  payloadDigest: string | null;
  paymentHeaders: Record<string, string>;
  /** JSON text of the held answer's body. */
  bodyJson: string | null;
  status: number;
  headers: Record<string, string>;
  /** JSON text of the held answer's settlement. */
  settlementJson: string | null;
  bytes: number;
  expiresAt: number;
}

const ENTRY_OVERHEAD_BYTES = 256;
const byteLength = (text: string) => Buffer.byteLength(text, "utf8");
const headerBytes = (headers: Record<string, string>) => Object.entries(headers).reduce((n, [k, v]) => n + byteLength(k) + byteLength(v), 0);

export function createReplayCache(options: ReplayCacheOptions = {}): ReplayCache {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const maxResultBytes = Math.min(options.maxResultBytes ?? 2 * 1024 * 1024, maxBytes);
  const now = options.now ?? Date.now;
  // Insertion order is expiry order: every state change re-inserts with a fresh expiry.
  const entries = new Map<string, Entry>();
  let totalBytes = 0;

  function sizeOf(id: string, entry: Entry): number {
    return ENTRY_OVERHEAD_BYTES + byteLength(id) + headerBytes(entry.paymentHeaders) + headerBytes(entry.headers) + (entry.bodyJson ? byteLength(entry.bodyJson) : 0) + (entry.settlementJson ? byteLength(entry.settlementJson) : 0);
  }

  function put(id: string, entry: Entry): void {
    remove(id);
    entry.expiresAt = now() + ttlMs;
    entry.bytes = sizeOf(id, entry);
    entries.set(id, entry);
    totalBytes += entry.bytes;
  }

  function remove(id: string): void {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    totalBytes -= entry.bytes;
  }

  function dropExpired(): void {
    const at = now();
    for (const [id, entry] of entries) {
      if (entry.expiresAt > at) break;
      remove(id);
    }
  }

  /** Over budget: drop the oldest results first (keeping their "paid" marker), then the oldest markers; in-flight calls stay. */
  function enforceBudget(newest: string): void {
    const demote = (id: string, entry: Entry) => {
      totalBytes -= entry.bytes;
      entry.bodyJson = null;
      entry.headers = {};
      entry.settlementJson = null;
      entry.state = "not_held";
      entry.bytes = sizeOf(id, entry);
      totalBytes += entry.bytes;
    };
    for (const [id, entry] of entries) {
      if (totalBytes <= maxBytes) return;
      if (id !== newest && entry.state === "held") demote(id, entry);
    }
    for (const [id, entry] of entries) {
      if (totalBytes <= maxBytes) return;
      if (id !== newest && entry.state === "not_held") remove(id);
    }
    const last = entries.get(newest);
    if (totalBytes > maxBytes && last?.state === "held") demote(newest, last);
  }

  function answerOf(entry: Entry): HeldAnswer {
    const body = JSON.parse(entry.bodyJson ?? "null") as unknown;
    return { status: entry.status, headers: { ...entry.headers }, body, ...(entry.settlementJson ? { settlement: JSON.parse(entry.settlementJson) as SettleResponse } : {}) };
  }

  function live(id: string): Entry | undefined {
    dropExpired();
    return entries.get(id);
  }

  return {
    peek(id, fingerprint, payloadDigest) {
      const entry = live(id);
      if (!entry) return undefined;
      if (entry.fingerprint !== fingerprint) return { kind: "conflict" };
      if (entry.payloadDigest !== payloadDigest) return undefined;
      if (entry.state === "held") return { kind: "held", answer: answerOf(entry) };
      if (entry.state === "not_held") return { kind: "not_held", paymentHeaders: { ...entry.paymentHeaders } };
      return { kind: "in_flight", token: entry.token };
    },
    claim(id, fingerprint, token) {
      const entry = live(id);
      if (!entry) {
        put(id, { fingerprint, token, state: "in_flight", payloadDigest: null, paymentHeaders: {}, bodyJson: null, status: 0, headers: {}, settlementJson: null, bytes: 0, expiresAt: 0 });
        enforceBudget(id);
        return { kind: "claimed" };
      }
      if (entry.fingerprint !== fingerprint) return { kind: "conflict" };
      if (entry.state === "held") return { kind: "held", answer: answerOf(entry) };
      if (entry.state === "not_held") return { kind: "not_held", paymentHeaders: { ...entry.paymentHeaders } };
      return { kind: "in_flight", token: entry.token };
    },
    settled(id, token, payloadDigest, paymentHeaders) {
      const entry = live(id);
      if (!entry || entry.token !== token || entry.state !== "in_flight") return;
      put(id, { ...entry, state: "settled", payloadDigest, paymentHeaders: { ...paymentHeaders } });
      enforceBudget(id);
    },
    hold(id, token, answer) {
      const entry = live(id);
      if (!entry || entry.token !== token || entry.state !== "settled") return false;
      const bodyJson = JSON.stringify(answer.body) ?? "null";
      const settlementJson = answer.settlement ? JSON.stringify(answer.settlement) : null;
      if (byteLength(bodyJson) + headerBytes(answer.headers) + (settlementJson ? byteLength(settlementJson) : 0) > maxResultBytes) {
        put(id, { ...entry, state: "not_held" });
        enforceBudget(id);
        return false;
      }
      put(id, { ...entry, state: "held", bodyJson, status: answer.status, headers: { ...answer.headers }, settlementJson });
      enforceBudget(id);
      return entries.get(id)?.state === "held";
    },
    abandon(id, token) {
      const entry = entries.get(id);
      if (entry && entry.token === token && entry.state === "in_flight") remove(id);
    },
    size() {
      dropExpired();
      return { entries: entries.size, bytes: totalBytes };
    },
  };
}
