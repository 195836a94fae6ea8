/**
 * A network is one folder plus configuration (issue 27): a third payment family, written here into a
 * temporary folder, is named in `x402.families` and one of its networks in `x402.networks`. With no
 * change anywhere else it is priced (web/read's Base column, which the family falls back on), offered
 * in the 402, listed in the capabilities and the agent card, and a call paid on it settles through
 * the family's own in-process mechanism (a toy chain: an HMAC for a signature, a set for spent nonces);
 * an operator's skill file with a column of its own for the toy network charges and records that price.
 * The server takes payments on the toy network only, so a price table need not price Base or Algorand:
 * an endpoint file priced in the toy column alone loads and is offered, and the documents (OpenAPI,
 * skill.md, the pilot's table, the capabilities, the agent card) quote the toy network's prices only.
 * The family's name, CAIP-2 namespace and price column are new on every run, so no source file can
 * know them: whatever prices, offers and lists the family reads them from its folder.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import type { PaymentFamily } from "../../src/x402/family.ts";
import { registerFamily } from "../../src/x402/family-registry.ts";
import { decodePaymentRequired, decodePaymentResponse, encodeBase64Json } from "../../src/x402/headers.ts";
import { onFreshPort } from "../support/ports.ts";
import { pluginFolder, pluginSource, skillSource } from "../support/plugin-files.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";

const src = resolve(import.meta.dir, "../../src/x402");

/** Names of this run only (lowercase letters and digits, as family names and CAIP-2 namespaces allow). */
const tag = randomBytes(3).toString("hex");
const familyName = `toy-${tag}`;
const namespace = `t${tag}`;
/** The toy network's CAIP-2 id. */
const toyNetwork = `${namespace}:main`;
/** The price column the family declares as its own (it falls back on Base's). */
const toyColumn = `toy${tag}`;

/** The whole family folder: one file, importing only types from src/x402/. */
const familySource = `
import { createHmac } from "node:crypto";
import type { PaymentFamily } from ${JSON.stringify(join(src, "family.ts"))};
import type { PaymentPayload, PaymentRequirements } from ${JSON.stringify(join(src, "messages.ts"))};

export const chainKey = "toy-chain";
export function sign(payer: string, nonce: string, r: { amount: string; payTo: string; network: string }): string {
  return createHmac("sha256", chainKey).update([payer, nonce, r.amount, r.payTo, r.network].join("|")).digest("hex");
}
function fields(payload: PaymentPayload): { payer: string; nonce: string; signature: string } | undefined {
  const p = payload.payload as Record<string, unknown>;
  return typeof p.payer === "string" && typeof p.nonce === "string" && typeof p.signature === "string" ? { payer: p.payer, nonce: p.nonce, signature: p.signature } : undefined;
}

export const family: PaymentFamily = {
  name: ${JSON.stringify(familyName)},
  namespace: ${JSON.stringify(namespace)},
  knownNetworks: [{ network: ${JSON.stringify(toyNetwork)}, name: "toynet", asset: "TOYUSD", decimals: 6 }],
  priceColumns: [${JSON.stringify(toyColumn)}, "base"],
  namedPayer: (payload) => fields(payload)?.payer,
  identify(payload) {
    const f = fields(payload);
    return f ? { ok: true, identity: { payer: f.payer, nonce: f.nonce, validBefore: undefined } } : { ok: false, reason: "invalid_payload" };
  },
  replayReason: "toy_nonce_spent",
  expiringReason: "toy_expired",
  createMechanism(network) {
    const spent = new Map<string, string>();
    const check = (payload: PaymentPayload, r: PaymentRequirements) => {
      const f = fields(payload);
      if (!f) return { isValid: false, invalidReason: "invalid_payload" };
      if (r.network !== network.network || r.payTo !== network.payTo || r.asset !== network.asset) return { isValid: false, invalidReason: "invalid_network", payer: f.payer };
      if (f.signature !== sign(f.payer, f.nonce, r)) return { isValid: false, invalidReason: "invalid_signature", payer: f.payer };
      if (spent.has(f.nonce)) return { isValid: false, invalidReason: "toy_nonce_spent", payer: f.payer };
      return { isValid: true, payer: f.payer };
    };
    return {
      scheme: "exact",
      family: ${JSON.stringify(familyName)},
      network: network.network,
      requirementsExtra: () => ({ chain: "toy" }),
      verify: async (payload, r) => check(payload, r),
      async settle(payload, r) {
        const verdict = check(payload, r);
        if (!verdict.isValid) return { success: false, transaction: "", network: r.network, errorReason: verdict.invalidReason };
        const f = fields(payload)!;
        const transaction = "toytx-" + f.nonce;
        spent.set(f.nonce, transaction);
        return { success: true, transaction, network: r.network, payer: f.payer };
      },
      async checkSettlement(pending) {
        const transaction = spent.get(pending.nonce);
        return transaction ? { state: "settled", transaction } : { state: "unused" };
      },
      signers: () => [],
    };
  },
};
`;

let site: SiteServer;
let service: RunningService;
let base: string;
let toyFamily: PaymentFamily;
let sign: (payer: string, nonce: string, r: { amount: string; payTo: string; network: string }) => string;

beforeAll(async () => {
  const folder = join(mkdtempSync(join(tmpdir(), "tb-family-")), "toy");
  mkdirSync(folder);
  writeFileSync(join(folder, "family.ts"), familySource);
  ({ sign, family: toyFamily } = (await import(join(folder, "family.ts"))) as { sign: typeof sign; family: PaymentFamily });
  site = startSiteServer();
  site.set("/page", "<html><head><title>Toy</title></head><body><main><h1>Toy page</h1><p>Paid for in toy dollars, every one of them.</p></main></body></html>");
  // An operator's skill file with a column of the toy network's own beside the spec's two.
  const plugins = pluginFolder({
    "toy-echo.ts": skillSource("toy.echo", { price: `{ base: "0.002", algorand: "0.003", ${JSON.stringify(toyColumn)}: "0.004" }`, async: "true" }),
    // Priced for the one configured network alone: no Base, no Algorand column.
    "toy-reverse.ts": pluginSource("toy.reverse", "POST /v1/toy/reverse", `{ ${JSON.stringify(toyColumn)}: "0.007" }`),
  });
  const x402 = { families: [folder], networks: [{ family: familyName, network: "toynet", payTo: "TOY-PAYEE", settlement: "local" }] };
  service = await onFreshPort((port) => {
    const config = loadConfig({
      argv: ["--data", ":memory:", "--port", String(port), "--host", "127.0.0.1", "--public-url", `http://127.0.0.1:${port}`, "--payments", "on", "--unsafe-allow-loopback-targets", "--memory-soft-limit-mb", "0", "--plugins", plugins],
      env: { TOLLBOOTH_X402: JSON.stringify(x402) },
    });
    return startService(config, { log: createMemoryLogger(), pollingIntervalMs: 20 });
  });
  base = service.server.url.toString().replace(/\/$/, "");
}, 60_000);

afterAll(async () => {
  await service?.close();
  await site?.stop();
});

const read = (headers: Record<string, string> = {}) =>
  fetch(`${base}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ url: site.url("/page") }) });

describe("a payment family from a folder", () => {
  it("is priced and offered in the 402 (web/read's Base price, in the family's asset)", async () => {
    const res = await read();
    expect(res.status).toBe(402);
    const required = decodePaymentRequired(res.headers.get("payment-required") ?? "");
    if (!required.ok) throw new Error(required.reason);
    expect(required.value.accepts).toEqual([
      { scheme: "exact", network: toyNetwork, amount: "5000", asset: "TOYUSD", payTo: "TOY-PAYEE", maxTimeoutSeconds: 300, extra: { chain: "toy" } },
    ]);
  });

  it("is listed in the capabilities and the agent card", async () => {
    const capabilities = (await (await fetch(`${base}/v1/capabilities`)).json()) as { payments: { networks: unknown[] }; wallets: Record<string, string> };
    // Published under the column it declares as its own.
    expect(capabilities.payments.networks).toEqual([{ name: toyColumn, network: toyNetwork, asset: "TOYUSD", pay_to: "TOY-PAYEE" }]);
    expect(capabilities.wallets).toEqual({ [toyColumn]: "TOY-PAYEE" });
    const card = JSON.stringify(await (await fetch(`${base}/.well-known/agent-card.json`)).json());
    expect(card).toContain(`"network":"${toyNetwork}"`);
    expect(card).toContain('"pay_to":"TOY-PAYEE"');
  });

  it("is paid through the family's own mechanism, once", async () => {
    const required = decodePaymentRequired((await read()).headers.get("payment-required") ?? "");
    if (!required.ok) throw new Error(required.reason);
    const accepted = required.value.accepts[0]!;
    const payload = { x402Version: 2, accepted, payload: { payer: "toy-buyer", nonce: "n-1", signature: sign("toy-buyer", "n-1", accepted) } };
    const paid = await read({ "payment-signature": encodeBase64Json(payload) });
    expect(paid.status).toBe(200);
    const receipt = decodePaymentResponse(paid.headers.get("payment-response") ?? "");
    if (!receipt.ok) throw new Error(receipt.reason);
    expect(receipt.value).toMatchObject({ success: true, transaction: "toytx-n-1", network: toyNetwork, payer: "toy-buyer" });
    const again = await read({ "payment-signature": encodeBase64Json(payload) });
    expect(again.status).toBe(402);
    const forged = { ...payload, payload: { ...payload.payload, nonce: "n-2" } };
    expect((await read({ "payment-signature": encodeBase64Json(forged) })).status).toBe(402);
  });

  it("charges a price table's own column for it: a job paid on it records the toy price", async () => {
    const submit = (headers: Record<string, string> = {}) =>
      fetch(`${base}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ skill: "toy.echo", word: "toy" }) });
    const required = decodePaymentRequired((await submit()).headers.get("payment-required") ?? "");
    if (!required.ok) throw new Error(required.reason);
    const accepted = required.value.accepts[0]!;
    expect(accepted.amount).toBe("4000");
    const payload = { x402Version: 2, accepted, payload: { payer: "toy-buyer", nonce: "job-1", signature: sign("toy-buyer", "job-1", accepted) } };
    const paid = await submit({ "payment-signature": encodeBase64Json(payload) });
    expect(paid.status).toBe(202);
    const id = String(((await paid.json()) as { job_id: string }).job_id);
    let job: { status: string; payment?: unknown; result?: unknown } = { status: "queued" };
    for (let i = 0; i < 200 && job.status !== "completed" && job.status !== "failed"; i++) {
      await Bun.sleep(20);
      job = (await (await fetch(`${base}/v1/jobs/${id}`)).json()) as typeof job;
    }
    expect(job).toMatchObject({ status: "completed", payment: { price_usd: "0.004", settled: true }, result: { upper: "TOY" } });
  });

  it("prices an endpoint file priced in its column alone (no Base or Algorand column) and offers it in the 402", async () => {
    const res = await fetch(`${base}/v1/toy/reverse`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "abc" }) });
    expect(res.status).toBe(402);
    const required = decodePaymentRequired(res.headers.get("payment-required") ?? "");
    if (!required.ok) throw new Error(required.reason);
    expect(required.value.accepts).toEqual([
      { scheme: "exact", network: toyNetwork, amount: "7000", asset: "TOYUSD", payTo: "TOY-PAYEE", maxTimeoutSeconds: 300, extra: { chain: "toy" } },
    ]);
  });

  it("is the only network the documents quote a price for", async () => {
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, { post?: { description: string; "x-payment-info"?: { price_usd: unknown } } }> };
    expect(openapi.info.description).toContain("USDC on Toynet)");
    expect(openapi.paths["/v1/toy/reverse"]?.post?.description).toContain("Price (USDC): Toynet 0.007.");
    expect(openapi.paths["/v1/web/read"]?.post?.description).toContain("Price (USDC): Toynet 0.005 (base price;");
    const priceLines = Object.values(openapi.paths).flatMap((p) => p.post?.description?.split("Price (USDC): ").slice(1) ?? []);
    expect(priceLines.length).toBeGreaterThan(3);
    for (const line of priceLines) expect(line).toMatch(/^Toynet \d/);
    expect(JSON.stringify(openapi)).not.toMatch(/Base \d|Algorand \d|"base":|"algorand":/);

    const skillMd = await (await fetch(`${base}/skill.md`)).text();
    expect(skillMd).toContain("- Price (USDC): Toynet $0.007");
    expect(skillMd).toContain("- Price (USDC): Toynet $0.004");
    expect(skillMd).not.toMatch(/Base \$|Algorand \$/);
    const pilot = await (await fetch(`${base}/pilot.md`)).text();
    expect(pilot).toContain("| id | call | Toynet |");
    expect(pilot).toContain("| toy.reverse | POST /v1/toy/reverse | $0.007 |");

    const capabilities = (await (await fetch(`${base}/v1/capabilities`)).json()) as { operations: { id: string; price_usd: unknown }[]; catalogue: { id: string; price: string; price_usd: unknown }[] };
    expect(capabilities.operations.find((o) => o.id === "toy.reverse")?.price_usd).toEqual({ [toyColumn]: "0.007" });
    expect(capabilities.operations.find((o) => o.id === "web.read")?.price_usd).toEqual({ [toyColumn]: "0.005" });
    expect(capabilities.catalogue.find((s) => s.id === "toy.echo")).toMatchObject({ price: "0.004", price_usd: { [toyColumn]: "0.004" } });
    expect(JSON.stringify(capabilities)).not.toMatch(/"base":|"algorand":/);
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as { description: string; skills: { name: string; price: unknown }[] };
    expect(card.description).toContain("USDC on Toynet)");
    expect(card.skills.find((s) => s.name === "toy.reverse")?.price).toEqual({ currency: "USDC", [toyColumn]: "0.007" });
    expect(JSON.stringify(card)).not.toMatch(/"base":|"algorand":/);
  });

  it("is refused when its price columns reach none a built-in family charges by (a price table would leave its networks unpriced)", () => {
    expect(() => registerFamily({ ...toyFamily, name: `lonely-${tag}`, priceColumns: [`lonely${tag}`] })).toThrow(`payment family lonely-${tag}: priceColumns ["lonely${tag}"] must name, after its own, a column a built-in family charges by (base or algorand)`);
  });
});
