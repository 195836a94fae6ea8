/**
 * The core tables every instance shares, one contract on both engines (issue 28): the manager's
 * settings (a pause from one instance reaches the other), plugin key-value storage (scoped per
 * plugin, seen from either instance), request outcomes (batched, read back from either), and the
 * operator's figures and receipt list over receipts and outcomes written by both instances.
 */
import { describe, expect, it } from "bun:test";
import { storeEngines, withInstances } from "./engines.ts";

const engines = storeEngines("core tables");

const outcome = (n: number, status: number, at: string, route = "/v1/web/read") => ({ requestId: `req_${n}`, operationId: "web.read", method: "POST", route, status, outcome: status === 200 ? "ok" : "x", durationMs: n, at });

for (const engine of engines) {
  describe.skipIf(engine.skip)(`core tables on ${engine.name}`, () => {
    it(
      "settings: a pause from one instance is read by the other; the recent state answers at once",
      withInstances(engine, async ({ one, two }) => {
        expect(await two.settings.manager()).toEqual({ openForWork: true, pauseReason: "", updatedAt: null });
        expect(two.settings.recentManager().openForWork).toBe(true);
        await one.settings.pause("upgrading");
        expect(one.settings.recentManager()).toMatchObject({ openForWork: false, pauseReason: "upgrading" });
        expect(await two.settings.manager()).toMatchObject({ openForWork: false, pauseReason: "upgrading", updatedAt: expect.any(String) });
        await two.settings.resume();
        expect(await one.settings.manager()).toMatchObject({ openForWork: true, pauseReason: "" });
      }),
      30_000,
    );

    it(
      "plugin storage: JSON values per plugin, seen from either instance, keys in order, never another plugin's",
      withInstances(engine, async ({ one, two }) => {
        await one.pluginStore("a.one").set("k2", { nested: [1, "two", null, true] });
        await one.pluginStore("a.one").set("k1", "v");
        await one.pluginStore("a.one").set("K0", 3.5);
        expect(await two.pluginStore("a.one").get("k2")).toEqual({ nested: [1, "two", null, true] });
        expect(await two.pluginStore("a.one").keys()).toEqual(["K0", "k1", "k2"]);
        expect(await two.pluginStore("b.two").get("k1")).toBeUndefined();
        expect(await two.pluginStore("b.two").keys()).toEqual([]);
        await two.pluginStore("a.one").set("k1", "replaced");
        expect(await one.pluginStore("a.one").get("k1")).toBe("replaced");
        expect(await one.pluginStore("b.two").delete("k1")).toBe(false);
        expect(await one.pluginStore("a.one").delete("k1")).toBe(true);
        expect(await two.pluginStore("a.one").get("k1")).toBeUndefined();
      }),
      30_000,
    );

    it(
      "request outcomes: queued rows are written by flush (or a read) and read back newest first from either instance",
      withInstances(engine, async ({ one, two }) => {
        for (let n = 0; n < 300; n++) one.requestOutcomes.record(outcome(n, 200, new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()));
        one.requestOutcomes.record(outcome(7, 502, "2026-01-01T01:00:00.000Z"));
        await one.requestOutcomes.flush();
        const recent = await two.requestOutcomes.recent(2);
        expect(recent.map((o) => [o.requestId, o.status])).toEqual([
          ["req_7", 502],
          ["req_299", 200],
        ]);
        expect(recent[0]).toEqual(outcome(7, 502, "2026-01-01T01:00:00.000Z"));
        expect(await two.requestOutcomes.recent(1000)).toHaveLength(300);
      }),
      30_000,
    );

    it(
      "operator figures: revenue by day, operation and network, calls, receipt states, settlement latency and the receipt list, across instances",
      withInstances(engine, async ({ one, two }) => {
        const day = (d: number, s = 0) => new Date(Date.UTC(2026, 10, d, 12, 0, s));
        const pay = async (store: typeof one, n: number, network: string, amount: string, operation: string, end: "settled" | "pending" | "failed", at: Date) => {
          const id = `pay_${n}`;
          await store.receipts.reserve({ id, network, asset: "0xA", payTo: "0xP", payer: `0xpayer${n}`, amount, nonce: `0x${n}`, validBefore: null, requestId: `r${n}`, operationId: operation, now: at });
          if (end === "failed") return void (await store.receipts.markFailed(id, "nope", null, at));
          await store.receipts.claimForSettlement(id, { requestId: `r${n}`, operationId: operation, settleRequest: null, now: at });
          if (end === "settled") await store.receipts.markSettled(id, `0xtx${n}`, new Date(at.getTime() + 1500));
        };
        await pay(one, 1, "eip155:8453", "5000", "web.read", "settled", day(20));
        await pay(two, 2, "eip155:8453", "7000", "web.read", "settled", day(21));
        await pay(one, 3, "algorand", "10000", "host.report", "settled", day(21, 5));
        await pay(two, 4, "algorand", "1", "web.read", "pending", day(22));
        await pay(one, 5, "eip155:8453", "2", "web.read", "failed", day(22, 1));
        await pay(two, 6, "eip155:8453", "9", "web.read", "settled", day(1));
        one.requestOutcomes.record(outcome(1, 200, day(21).toISOString()));
        two.requestOutcomes.record(outcome(2, 402, day(21, 1).toISOString()));
        two.requestOutcomes.record(outcome(3, 429, day(22).toISOString(), "/v1/jobs"));
        one.requestOutcomes.record(outcome(4, 502, day(22, 2).toISOString(), "/v1/jobs"));
        await Promise.all([one.requestOutcomes.flush(), two.requestOutcomes.flush()]);

        const f = two.figures;
        expect(await f.revenueByDay(day(15))).toEqual([
          { key: "2026-11-20", network: "eip155:8453", calls: 1, atomic: 5000 },
          { key: "2026-11-21", network: "algorand", calls: 1, atomic: 10000 },
          { key: "2026-11-21", network: "eip155:8453", calls: 1, atomic: 7000 },
        ]);
        expect(await f.revenueByOperation(day(15))).toEqual([
          { key: "host.report", network: "algorand", calls: 1, atomic: 10000 },
          { key: "web.read", network: "eip155:8453", calls: 2, atomic: 12000 },
        ]);
        expect(await f.revenueByNetwork()).toEqual([
          { key: "algorand", network: "algorand", calls: 1, atomic: 10000 },
          { key: "eip155:8453", network: "eip155:8453", calls: 3, atomic: 12009 },
        ]);
        expect(await f.callsByDay(day(15))).toEqual([
          { key: "2026-11-21", calls: 2, challenges: 1, refused: 0, failed: 0 },
          { key: "2026-11-22", calls: 2, challenges: 0, refused: 1, failed: 1 },
        ]);
        expect(await f.callsByRoute(day(15))).toEqual([
          { key: "/v1/jobs", calls: 2, challenges: 0, refused: 1, failed: 1 },
          { key: "/v1/web/read", calls: 2, challenges: 1, refused: 0, failed: 0 },
        ]);
        expect(await f.receiptsByState()).toEqual({ settled: 4, pending: 1, failed: 1 });
        const latency = await f.settledSince(day(20).toISOString());
        expect(latency.map((r) => [r.network, Math.round(r.seconds * 10) / 10])).toEqual([
          ["eip155:8453", 1.5],
          ["eip155:8453", 1.5],
          ["algorand", 1.5],
        ]);
        const list = await one.figures.recentReceipts(3);
        expect(list.map((r) => [r.state, r.amount, r.transaction_id, r.reason])).toEqual([
          ["failed", "2", null, "nope"],
          ["pending", "1", null, null],
          ["settled", "10000", "0xtx3", null],
        ]);
        expect((await one.figures.recentReceipts(10, "settled")).map((r) => r.payer)).toEqual(["0xpayer3", "0xpayer2", "0xpayer1", "0xpayer6"]);
      }),
      30_000,
    );
  });
}
