/**
 * Bad input carrying a real payment: each body is sent with a PAYMENT-SIGNATURE the official buyer
 * signed for a valid body, and must be refused with its status and code, settle nothing and move
 * no money; the same payment then still pays for the valid body (it was not spent by a refusal).
 */
import { expect } from "bun:test";
import type { PaidStage } from "./paid-stage.ts";

export type Refusal = readonly [body: unknown, status: number, code: string];

export async function expectRefusedUnpaid(stage: PaidStage, url: string, valid: unknown, refusals: readonly Refusal[]): Promise<{ status: number; settled: boolean; spent: bigint }> {
  const balance = () => stage.fx.token.balanceOf(stage.fx.buyer.address);
  const payment = await stage.fx.capturePayment(url, valid);
  const post = (body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": payment }, body: JSON.stringify(body) });
  const before = await balance();
  const seen = [];
  for (const [body] of refusals) {
    const res = await post(body);
    seen.push({ status: res.status, error: ((await res.json()) as { error?: string }).error, settled: res.headers.has("payment-response") });
  }
  expect(seen).toEqual(refusals.map(([, status, error]) => ({ status, error, settled: false })));
  expect(await balance()).toBe(before);
  const paid = await post(valid);
  await paid.body?.cancel();
  return { status: paid.status, settled: paid.headers.has("payment-response"), spent: before - (await balance()) };
}
