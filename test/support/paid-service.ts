/** The whole service with payments on, settling on the EVM fixture's anvil (for paid flow tests). */
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import type { EvmFixture } from "../x402/evm-fixture.ts";
import { onFreshPort } from "./ports.ts";

export interface PaidService {
  readonly service: RunningService;
  /** Base URL without the trailing slash. */
  readonly base: string;
}

export function startPaidService(fx: EvmFixture, data = ":memory:"): Promise<PaidService> {
  return startPaidServiceWith(fx.config(), data);
}

/**
 * The whole service with payments on, for any x402 configuration (e.g. Algorand through the loopback
 * algod); `args` are further flags, and loopback targets are allowed unless `loopbackTargets` is false.
 */
export async function startPaidServiceWith(x402: unknown, data = ":memory:", options: { readonly args?: readonly string[]; readonly loopbackTargets?: boolean } = {}): Promise<PaidService> {
  // Payments on needs --public-url, so the port is chosen before the start (and again if it was taken meanwhile).
  const service = await onFreshPort((port) => {
    const config = loadConfig({
      argv: [
        "--data", data, "--port", String(port), "--host", "127.0.0.1", "--public-url", `http://127.0.0.1:${port}`, "--payments", "on",
        ...(options.loopbackTargets === false ? [] : ["--unsafe-allow-loopback-targets"]),
        "--memory-soft-limit-mb", "0",
        // Paid flows that render say so (--render-warm on): the others need no browser started for them.
        "--render-warm", "off",
        ...(options.args ?? []),
      ],
      env: { TOLLBOOTH_X402: JSON.stringify(x402) },
    });
    return startService(config, { log: createMemoryLogger(), pollingIntervalMs: 20 });
  });
  return { service, base: service.server.url.toString().replace(/\/$/, "") };
}
