/** The receipts table as replay lock: atomic reservation (also across two connections), one-way transitions, lookup. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { createReceiptStore, receiptMigrations, type ReserveInput } from "../../src/store/receipts.ts";

const now = new Date("2026-01-01T00:00:00Z");
const input = (id: string, overrides: Partial<ReserveInput> = {}): ReserveInput => ({
  id, network: "eip155:8453", asset: "0xAsset", payTo: "0xPayTo", payer: "0xPayer", amount: "5000",
  nonce: `0x${"AB".repeat(32)}`, validBefore: 1_900_000_000, requestId: "req_1", operationId: "/v1/web/read", now, ...overrides,
});

describe("receipts", () => {
  test("one reservation per payment; released or failed payments may be reserved again, settled ones never", async () => {
    const store = createReceiptStore(openDatabase({ path: ":memory:", migrations: receiptMigrations }));
    const first = await store.reserve(input("pay_1"));
    expect(first.ok).toBe(true);
    const second = await store.reserve(input("pay_2", { payer: "0xPAYER" })); // same payer, other case
    expect(second).toMatchObject({ ok: false, existing: { id: "pay_1", state: "reserved" } });

    expect(await store.release("pay_1", now)).toBe(true);
    expect((await store.find(`0x${"ab".repeat(32)}`))?.state).toBe("unused");
    expect((await store.reserve(input("pay_3"))).ok).toBe(true);

    const ctx = { requestId: "req_3", operationId: "/v1/web/read", settleRequest: null, now };
    expect(await store.claimForSettlement("pay_3", ctx)).toBe(true);
    expect(await store.claimForSettlement("pay_3", ctx)).toBe(false); // never settles twice
    expect(await store.release("pay_3", now)).toBe(false); // a settling payment cannot be released by the work path
    await store.recordSubmitted("pay_3", "0xTX", now);
    expect(await store.markFailed("pay_3", "invalid_exact_evm_insufficient_balance", null, now)).toBe(true);
    expect((await store.reserve(input("pay_4"))).ok).toBe(true);
    expect(await store.claimForSettlement("pay_4", ctx)).toBe(true);
    expect(await store.markSettled("pay_4", "0xTX2", now)).toBe(true);
    expect(await store.reserve(input("pay_5"))).toMatchObject({ ok: false, existing: { state: "settled", transaction: "0xTX2" } });
    expect(await store.markFailed("pay_4", "late", null, now)).toBe(false); // settled is final
    expect(await store.find("0xTX2")).toMatchObject({ id: "pay_4", state: "settled", amount: "5000", requestId: "req_3" });
  });

  test("two connections to one file racing for the same payment: exactly one wins", async () => {
    const dir = mkdtempSync(join(tmpdir(), "receipts-"));
    try {
      const path = join(dir, "db.sqlite");
      const a = createReceiptStore(openDatabase({ path, migrations: receiptMigrations }));
      const b = createReceiptStore(openDatabase({ path, migrations: receiptMigrations }));
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).reserve(input(`pay_${i}`))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect((await b.find(`0x${"ab".repeat(32)}`))?.state).toBe("reserved");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("no URL or content column exists", () => {
    const db = openDatabase({ path: ":memory:", migrations: receiptMigrations });
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(payment_receipts)").all().map((c) => c.name);
    expect(columns.some((c) => /url|text|body|content|baseline/.test(c))).toBe(false);
  });
});
