/** @module test/render/render-harness — a renderer on the recording proxy sockets and resolver, the engine over it, and waiting helpers. */
import net from "node:net";
import { ApiError } from "../../../src/errors.ts";
import { createWebEngine, type WebEngine } from "../../../src/web/engine.ts";
import type { ProxyDecision } from "../../../src/web/render/proxy-guard.ts";
import { type BrowserRenderer, createRenderer, type RendererOptions } from "../../../src/web/render/renderer.ts";
import { createRecordingResolver, createRecordingSockets, PRIVATE_NAMES } from "./recording-socket.ts";

export const USER_AGENT = "Tollbooth/test (+https://example.invalid/contact)";

export function rejection(promise: Promise<unknown>): Promise<ApiError> {
  return promise.then(
    () => {
      throw new Error("expected the render to fail");
    },
    (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      return error;
    },
  );
}

export async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

export interface Harness {
  renderer: BrowserRenderer;
  engine: WebEngine;
  sockets: ReturnType<typeof createRecordingSockets>;
  names: ReturnType<typeof createRecordingResolver>;
  decisions: ProxyDecision[];
}

/** Loopback targets allowed (the fixture site); every other private name resolves and is refused. */
export function createHarness(overrides: Partial<RendererOptions> = {}): Harness {
  const sockets = createRecordingSockets();
  const names = createRecordingResolver(PRIVATE_NAMES);
  const decisions: ProxyDecision[] = [];
  const renderer = createRenderer({
    userAgent: USER_AGENT,
    policy: { allowLoopbackTargets: true, resolver: names.resolver },
    proxyConnect: sockets.connect,
    onProxyDecision: (d) => decisions.push(d),
    navigationTimeoutMs: 4_000,
    totalTimeoutMs: 8_000,
    settleTimeoutMs: 1_500,
    ...overrides,
  });
  const engine = createWebEngine({
    userAgent: USER_AGENT,
    allowLoopbackTargets: true,
    resolver: names.resolver,
    renderer: (url, signal, checkNavigation) => renderer.render(url, signal, checkNavigation),
    screenshotter: (url, spec, signal, checkNavigation) => renderer.screenshot(url, spec, signal, checkNavigation),
    archiver: (url, spec, signal, checkNavigation) => renderer.archive(url, spec, signal, checkNavigation),
  });
  return { renderer, engine, sockets, names, decisions };
}

export interface StandInRenderer {
  renderer: BrowserRenderer;
  /** Every address:port the proxy tried to connect to. */
  attempts: string[];
  decisions: ProxyDecision[];
}

/**
 * A renderer with loopback targets not allowed, whose page host site.test resolves to a public stand-in
 * (93.184.216.34:80) that the socket opener sends to the fixture on `sitePort`; any other connection fails.
 */
export function createStandInRenderer(sitePort: number, overrides: Partial<RendererOptions> = {}): StandInRenderer {
  const names = createRecordingResolver({ "site.test": ["93.184.216.34"] });
  const attempts: string[] = [];
  const decisions: ProxyDecision[] = [];
  const renderer = createRenderer({
    userAgent: USER_AGENT,
    policy: { allowLoopbackTargets: false, resolver: names.resolver },
    proxyConnect: (address, port) => {
      attempts.push(`${address}:${port}`);
      if (address === "93.184.216.34" && port === 80) return net.connect({ host: "127.0.0.1", port: sitePort });
      const socket = new net.Socket();
      queueMicrotask(() => socket.destroy(new Error(`test connector refused ${address}`)));
      return socket;
    },
    onProxyDecision: (d) => decisions.push(d),
    ...overrides,
  });
  return { renderer, attempts, decisions };
}
