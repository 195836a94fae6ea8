/**
 * A loopback seller built only with the official x402 server packages (x402HTTPResourceServer with
 * an in-process x402Facilitator and @x402/evm's exact scheme, settling on the fixture's anvil), and
 * none of the offer-receipt extension: its 402 offers and receipts are unsigned. It sells one route,
 * `POST /v1/echo`, answering `{ ok, echoed }` once the payment verified and settled.
 */
import { x402Facilitator } from "@x402/core/facilitator";
import { x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerFacilitatorEvm } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { createWalletClient, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type EvmFixture, NETWORK } from "../x402/evm-fixture.ts";

export interface OfficialSeller {
  /** The paid route's URL. */
  readonly url: string;
  stop(): Promise<void>;
}

type Network = `${string}:${string}`;

export async function startOfficialSeller(fx: EvmFixture, amount = "5000"): Promise<OfficialSeller> {
  const account = privateKeyToAccount(fx.settler.key);
  const wallet = createWalletClient({ account, chain: fx.anvil.publicClient.chain, transport: http(fx.anvil.url) }).extend(publicActions);
  const facilitator = new x402Facilitator();
  registerFacilitatorEvm(facilitator, { signer: toFacilitatorEvmSigner({ ...wallet, address: account.address } as never), networks: NETWORK as Network });
  const resources = new x402ResourceServer({
    verify: (p: never, r: never) => facilitator.verify(p, r),
    settle: (p: never, r: never) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported(),
  } as never).register(NETWORK as Network, new ExactEvmScheme());
  const seller = new x402HTTPResourceServer(resources, {
    "POST /v1/echo": {
      accepts: { scheme: "exact", network: NETWORK as Network, payTo: fx.payTo, price: { amount, asset: fx.token.address, extra: { name: "USD Coin", version: "2" } }, maxTimeoutSeconds: 300 },
      description: "Echo",
      mimeType: "application/json",
    },
  } as never);
  await seller.initialize();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json().catch(() => ({}))) as Record<string, unknown>;
      const adapter = {
        getHeader: (name: string) => request.headers.get(name) ?? undefined,
        getMethod: () => request.method,
        getPath: () => new URL(request.url).pathname,
        getUrl: () => request.url,
        getAcceptHeader: () => request.headers.get("accept") ?? "application/json",
        getUserAgent: () => request.headers.get("user-agent") ?? "",
        getBody: () => body,
      };
      const context = { adapter, path: adapter.getPath(), method: request.method, paymentHeader: request.headers.get("payment-signature") ?? undefined };
      const result = (await seller.processHTTPRequest(context as never)) as { type: string; response?: { status: number; headers: Record<string, string>; body?: unknown }; paymentPayload?: unknown; paymentRequirements?: unknown };
      if (result.type === "payment-error") return Response.json(result.response?.body ?? {}, { status: result.response!.status, headers: result.response!.headers });
      if (result.type !== "payment-verified") return Response.json({ ok: true, echoed: body.text });
      const settled = (await seller.processSettlement(result.paymentPayload as never, result.paymentRequirements as never)) as { success: boolean; headers: Record<string, string> };
      return Response.json(settled.success ? { ok: true, echoed: body.text } : {}, { status: settled.success ? 200 : 402, headers: settled.headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1/echo`,
    async stop() {
      await server.stop(true);
    },
  };
}
