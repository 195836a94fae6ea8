/**
 * @module x402/avm/algod — the few algod REST calls `exact` needs: suggested params (current round,
 * genesis), an account's asset holding, raw group submission and the pending-transaction status.
 */

export interface AlgodParams {
  readonly lastRound: bigint;
  readonly genesisHash: string;
  readonly genesisId: string;
  readonly minFee: bigint;
}

export type SubmitResult = { kind: "accepted" } | { kind: "rejected"; message: string } | { kind: "unknown"; message: string };
export type PendingStatus = { kind: "confirmed"; round: bigint } | { kind: "rejected"; message: string } | { kind: "in_pool" } | { kind: "unknown" };

export interface AlgodClient {
  params(): Promise<AlgodParams>;
  /** Amount of `assetId` held by `address`, or undefined when the account has not opted in. */
  assetHolding(address: string, assetId: string): Promise<bigint | undefined>;
  submit(group: Uint8Array): Promise<SubmitResult>;
  pending(txid: string): Promise<PendingStatus>;
}

const MAX_MESSAGE = 200;

export function createAlgodClient(options: { url: string; token?: string; fetch?: typeof fetch; timeoutMs?: number }): AlgodClient {
  const base = options.url.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = options.token ? { "X-Algo-API-Token": options.token } : {};
  const timeoutMs = options.timeoutMs ?? 10_000;
  const get = (path: string) => doFetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });

  return {
    async params() {
      const response = await get("/v2/transactions/params");
      if (!response.ok) throw new Error(`algod params answered ${response.status}`);
      const json = (await response.json()) as Record<string, unknown>;
      return {
        lastRound: BigInt(json["last-round"] as number),
        genesisHash: String(json["genesis-hash"]),
        genesisId: String(json["genesis-id"]),
        minFee: BigInt((json["min-fee"] as number | undefined) ?? 1000),
      };
    },
    async assetHolding(address, assetId) {
      const response = await get(`/v2/accounts/${encodeURIComponent(address)}/assets/${encodeURIComponent(assetId)}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`algod account asset answered ${response.status}`);
      const json = (await response.json()) as { "asset-holding"?: { amount?: number | string } };
      return BigInt(json["asset-holding"]?.amount ?? 0);
    },
    async submit(group) {
      let response: Response;
      try {
        response = await doFetch(`${base}/v2/transactions`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/x-binary" },
          body: new Blob([group as Uint8Array<ArrayBuffer>]),
          signal: AbortSignal.timeout(timeoutMs),
          redirect: "error",
        });
      } catch (error) {
        return { kind: "unknown", message: String(error).slice(0, MAX_MESSAGE) };
      }
      const text = await response.text();
      if (response.ok) return { kind: "accepted" };
      const message = (() => {
        try {
          return String((JSON.parse(text) as { message?: unknown }).message ?? text);
        } catch {
          return text;
        }
      })().slice(0, MAX_MESSAGE);
      // 4xx: algod checked and refused the group. 5xx: it may or may not have taken it.
      return response.status < 500 ? { kind: "rejected", message } : { kind: "unknown", message };
    },
    async pending(txid) {
      let response: Response;
      try {
        response = await get(`/v2/transactions/pending/${encodeURIComponent(txid)}`);
      } catch {
        return { kind: "unknown" };
      }
      if (response.status === 404) return { kind: "unknown" };
      if (!response.ok) return { kind: "unknown" };
      const json = (await response.json()) as { "confirmed-round"?: number; "pool-error"?: string };
      if ((json["confirmed-round"] ?? 0) > 0) return { kind: "confirmed", round: BigInt(json["confirmed-round"] ?? 0) };
      if (json["pool-error"]) return { kind: "rejected", message: json["pool-error"].slice(0, MAX_MESSAGE) };
      return { kind: "in_pool" };
    },
  };
}
