/**
 * @module web/render/render-config — the renderer's settings, as rows for src/config.ts's table
 * (`...renderConfigFields`), and the slice → `createRenderer` options mapping.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import type { RendererOptions } from "./renderer.ts";
import type { Resolver } from "../fetch/target-guard.ts";

export const renderConfigFields = {
  render: t.Union([t.Literal("on"), t.Literal("off")], {
    default: "on",
    description: "on: render:true runs pages in headless Chromium when a browser is found; off: render:true is refused with 503.",
  }),
  renderWarm: t.Union([t.Literal("on"), t.Literal("off")], {
    default: "on",
    description: "on: the server starts the browser (and a fresh context) as it starts, so the first render does not wait for a launch; off: at the first render.",
  }),
  browserPath: t.Optional(
    t.String({ minLength: 1, description: "Chromium/Chrome executable for render:true. Default: the first of /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome, …" }),
  ),
  renderPages: t.Integer({
    minimum: 1,
    maximum: 16,
    default: 4,
    description:
      "Browser pages rendering at once (each an incognito context kept warm between callers, a fresh tab per caller; contexts open only as concurrent renders need them).",
  }),
  renderQueue: t.Integer({ minimum: 0, maximum: 1000, default: 32, description: "Renders waiting for a free page at most; more are refused with 503 AT_CAPACITY." }),
  renderNavigationTimeoutMs: t.Integer({ minimum: 1000, maximum: 120000, default: 10000, description: "Time for a rendered page to load its document (DOMContentLoaded)." }),
  renderTimeoutMs: t.Integer({ minimum: 1000, maximum: 300000, default: 20000, description: "Total time for one render; overrun is 504 RENDER_TIMEOUT." }),
  renderSettleMs: t.Integer({
    minimum: 0,
    maximum: 60000,
    default: 3000,
    description: "Cap on waiting for the network to go quiet after load; past it the page is extracted with a warning.",
  }),
  renderQuietMs: t.Integer({
    minimum: 0,
    maximum: 10000,
    default: 150,
    description: "How long the network must stay idle after load for a rendered page to count as settled (capped by --render-settle-ms).",
  }),
  renderContextUses: t.Integer({
    minimum: 1,
    maximum: 10000,
    default: 50,
    description: "Callers one render context serves in turn (a fresh tab each, the context cleared between them) before it is closed and a new one opened.",
  }),
  renderRestartAfter: t.Integer({ minimum: 1, maximum: 100000, default: 200, description: "Renders after which the browser process is replaced." }),
};

const RenderConfig = t.Object(renderConfigFields);
export type RenderConfig = Static<typeof RenderConfig>;

/** Renderer options from the config slice (null when rendering is switched off). */
export function rendererOptionsFromConfig(
  config: RenderConfig & { unsafeAllowLoopbackTargets: boolean },
  context: { userAgent: string; resolver?: Resolver },
): RendererOptions | null {
  if (config.render === "off") return null;
  return {
    browserPath: config.browserPath,
    userAgent: context.userAgent,
    policy: { allowLoopbackTargets: config.unsafeAllowLoopbackTargets, resolver: context.resolver },
    pages: config.renderPages,
    maxQueue: config.renderQueue,
    navigationTimeoutMs: config.renderNavigationTimeoutMs,
    totalTimeoutMs: config.renderTimeoutMs,
    settleTimeoutMs: config.renderSettleMs,
    quietMs: config.renderQuietMs,
    contextUses: config.renderContextUses,
    restartAfterRenders: config.renderRestartAfter,
  };
}
