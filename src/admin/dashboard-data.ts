/**
 * @module admin/dashboard-data — the JSON the dashboard draws: 30 days of revenue (per day,
 * route and network) and calls, settlements waiting or failed, refunds due, the job queue, the
 * last receipts and the pause switch. The figures are kept for 5 s (the page refreshes every 10 s;
 * grouping 30 days of request outcomes took ~15 ms for 3,000 rows on a loaded machine, and a
 * scraper polling every second should not pay that each time); the pause switch is always fresh.
 */
import type { Store } from "../database.ts";
import { usdOf } from "./money.ts";

export interface DashboardSummary {
  readonly generatedAt: string;
  readonly days: number;
  readonly manager: { readonly openForWork: boolean; readonly pauseReason: string; readonly updatedAt: string | null };
  readonly revenue: {
    readonly totalUsd: number;
    readonly calls: number;
    /** One entry per UTC day, oldest first, zero-filled. */
    readonly byDay: { day: string; usd: number; calls: number }[];
    readonly byRoute: { operation: string; usd: number; calls: number }[];
    readonly byNetwork: { network: string; atomic: number; usd: number; calls: number }[];
  };
  readonly calls: {
    readonly byDay: { day: string; calls: number; challenges: number; refused: number; failed: number }[];
    readonly byRoute: { route: string; calls: number; challenges: number; refused: number; failed: number; errorRate: number }[];
  };
  readonly settlements: { readonly pending: number; readonly failed: number; readonly reserved: number };
  readonly refunds: { readonly due: number; readonly dueUsd: number; readonly sending: number; readonly paid: number };
  readonly jobs: { readonly queued: number; readonly running: number };
  readonly receipts: { at: string; state: string; network: string; amount: string; usd: number; operation: string; payer: string; transaction: string | null }[];
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

const keepFiguresMs = 5_000;

export function createDashboardData(store: Store, now: () => Date = () => new Date()) {
  const { figures } = store;
  const kept = new Map<number, { at: number; summary: DashboardSummary }>();
  const fresh = async (summary: DashboardSummary): Promise<DashboardSummary> => {
    const manager = await store.settings.manager();
    return { ...summary, manager: { openForWork: manager.openForWork, pauseReason: manager.pauseReason, updatedAt: manager.updatedAt } };
  };
  return {
    async summary(days = 30): Promise<DashboardSummary> {
      const hit = kept.get(days);
      if (hit && performance.now() - hit.at < keepFiguresMs) return fresh(hit.summary);
      const summary = await this.compute(days);
      kept.set(days, { at: performance.now(), summary });
      return summary;
    },
    async compute(days: number): Promise<DashboardSummary> {
      const today = now();
      const first = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)));
      const dayList = Array.from({ length: days }, (_, i) => new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10));
      await store.requestOutcomes.flush();

      const revenueDays = new Map(dayList.map((day) => [day, { day, usd: 0, calls: 0 }]));
      for (const r of await figures.revenueByDay(first)) {
        const entry = revenueDays.get(r.key);
        if (!entry) continue;
        entry.usd += usdOf(r.network, r.atomic);
        entry.calls += r.calls;
      }
      const routes = new Map<string, { operation: string; usd: number; calls: number }>();
      for (const r of await figures.revenueByOperation(first)) {
        const entry = routes.get(r.key) ?? { operation: r.key, usd: 0, calls: 0 };
        entry.usd += usdOf(r.network, r.atomic);
        entry.calls += r.calls;
        routes.set(r.key, entry);
      }
      const networks = new Map<string, { network: string; atomic: number; usd: number; calls: number }>();
      for (const r of await figures.revenueByDay(first)) {
        const entry = networks.get(r.network) ?? { network: r.network, atomic: 0, usd: 0, calls: 0 };
        entry.atomic += r.atomic;
        entry.usd += usdOf(r.network, r.atomic);
        entry.calls += r.calls;
        networks.set(r.network, entry);
      }
      const byDay = [...revenueDays.values()].map((d) => ({ ...d, usd: round(d.usd) }));

      const callDays = new Map(dayList.map((day) => [day, { day, calls: 0, challenges: 0, refused: 0, failed: 0 }]));
      for (const r of await figures.callsByDay(first)) {
        const entry = callDays.get(r.key);
        if (entry) Object.assign(entry, { calls: r.calls, challenges: r.challenges, refused: r.refused, failed: r.failed });
      }
      const callRoutes = (await figures.callsByRoute(first)).map((r) => ({
        route: r.key,
        calls: r.calls,
        challenges: r.challenges,
        refused: r.refused,
        failed: r.failed,
        errorRate: r.calls ? round(r.failed / r.calls) : 0,
      }));

      const receiptStates = await figures.receiptsByState();
      const jobStates = await figures.jobsByStatus();
      const refunds = await figures.refundsByState();
      const refund = (state: string) => refunds.find((r) => r.state === state);
      const manager = await store.settings.manager();
      const recent = await figures.recentReceipts(20);
      return {
        generatedAt: today.toISOString(),
        days,
        manager: { openForWork: manager.openForWork, pauseReason: manager.pauseReason, updatedAt: manager.updatedAt },
        revenue: {
          totalUsd: round(byDay.reduce((sum, d) => sum + d.usd, 0)),
          calls: byDay.reduce((sum, d) => sum + d.calls, 0),
          byDay,
          byRoute: [...routes.values()].map((r) => ({ ...r, usd: round(r.usd) })).sort((a, b) => b.usd - a.usd),
          byNetwork: [...networks.values()].map((n) => ({ ...n, usd: round(n.usd) })),
        },
        calls: { byDay: [...callDays.values()], byRoute: callRoutes },
        settlements: { pending: receiptStates.pending ?? 0, failed: receiptStates.failed ?? 0, reserved: receiptStates.reserved ?? 0 },
        refunds: { due: refund("due")?.count ?? 0, dueUsd: round((refund("due")?.micros ?? 0) / 1e6), sending: refund("sending")?.count ?? 0, paid: refund("paid")?.count ?? 0 },
        jobs: { queued: jobStates.queued ?? 0, running: jobStates.running ?? 0 },
        receipts: recent.map((r) => ({
          at: r.updated_at,
          state: r.state,
          network: r.network,
          amount: r.amount,
          usd: round(usdOf(r.network, Number(r.amount))),
          operation: r.operation_id ?? "-",
          payer: r.payer,
          transaction: r.transaction_id,
        })),
      };
    },
  };
}
