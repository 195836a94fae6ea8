/**
 * @module doctor/payment-upstreams — what a serving instance with payments on keeps asking: do the
 * facilitator and the RPC or algod endpoints answer (issue 41)? The same checks as `tollbooth
 * doctor` (doctor/payments.ts), run at start and again while anything is unreachable, so the server
 * says at once that paid calls will fail, keeps serving free routes, says when they work again,
 * and /health reports the last answer.
 */
import type { Config } from "../config.ts";
import { checkPayments } from "./payments.ts";

export interface UpstreamStatus {
  /** Whether every configured facilitator, RPC and algod answered the last check. */
  readonly available: boolean;
  readonly detail: string;
}

export interface PaymentUpstreams {
  status(): UpstreamStatus;
  /** Called with each change of status (the first check's answer included), and at once with the current one if it was checked already. */
  onChange(listener: (status: UpstreamStatus) => void): void;
  stop(): void;
}

export interface PaymentUpstreamsOptions {
  /** How soon an unreachable upstream is asked again. */
  readonly retryMs?: number;
  /** How often reachable upstreams are asked again. */
  readonly recheckMs?: number;
}

const checking: UpstreamStatus = { available: false, detail: "checking the facilitator and the RPC/algod endpoints" };

/** One line on what the checks found: what is unreachable, or that all answer. */
export async function checkPaymentUpstreams(config: Config): Promise<UpstreamStatus> {
  const results = await checkPayments(config);
  const failed = results.filter((r) => r.status === "fail");
  if (failed.length === 0) return { available: true, detail: `answering: ${results.map((r) => r.name.replace(/^payments /, "")).join(", ")}` };
  return { available: false, detail: `${failed.map((r) => `${r.detail} (${r.name})`).join("; ")}: paid calls will fail until it answers` };
}

export function watchPaymentUpstreams(config: Config, options: PaymentUpstreamsOptions = {}): PaymentUpstreams {
  const retryMs = options.retryMs ?? 15_000;
  const recheckMs = options.recheckMs ?? 300_000;
  let current = checking;
  let checked = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listeners: ((status: UpstreamStatus) => void)[] = [];

  const check = async () => {
    const found = await checkPaymentUpstreams(config).catch((error: Error): UpstreamStatus => ({ available: false, detail: `the payment check failed: ${error.message}` }));
    if (stopped) return;
    const changed = !checked || found.available !== current.available;
    current = found;
    checked = true;
    if (changed) for (const listener of listeners) listener(found);
    timer = setTimeout(check, found.available ? recheckMs : retryMs);
    timer.unref?.();
  };
  void check();

  return {
    status: () => current,
    onChange(listener) {
      listeners.push(listener);
      if (checked) listener(current);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The line an operator reads when the status changes. */
export function upstreamsLine(status: UpstreamStatus): string {
  return status.available ? `payments: the facilitator and RPC/algod endpoints answer (${status.detail.replace(/^answering: /, "")}); paid calls work` : `WARNING: ${status.detail}; free routes are served meanwhile`;
}
