/**
 * @module web/render/browser-launch — starts one headless Chromium whose only way out is the guard
 * proxy: every scheme goes to the proxy (loopback included), the host resolver answers nothing
 * (so Chromium cannot resolve or bypass), QUIC and non-proxied WebRTC UDP are off, and
 * popups, permission prompts and background services are off at the browser level (images are
 * failed per page by its request guard: a screenshot loads them, a text render does not).
 * What background traffic Chromium still makes (sign-in's ListAccounts, the component updater
 * in this headless build) is sent to addresses that exist nowhere and lands on the proxy's base
 * port, which admits nothing: only render contexts have a lane, and a lane admits only what its
 * render's page asks for (see proxy-guard.ts), so what a context sends on its own is refused too.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "puppeteer-core";
import { outcomeWithin } from "./outcome-within.ts";

export interface BrowserLaunchOptions {
  executablePath: string;
  proxyUrl: string;
  userAgent: string;
  /** Chromium's sandbox; it cannot start as root, where it must be off. */
  sandbox: boolean;
  /** Tests only: switches added after ours (e.g. to turn a feature back on and show the guard behind it holds). */
  extraArgs?: readonly string[];
}

export interface LaunchedBrowser {
  browser: Browser;
  pid: number | undefined;
  userDataDir: string;
  /** Closes the browser (SIGKILL of its process group when it does not close in time) and deletes its profile. */
  close(): Promise<void>;
}

/** A URL that resolves nowhere: `.invalid` never exists (RFC 2606) and the proxy's base port refuses it anyway. */
const NOWHERE = "http://chromium-service.invalid/";
const SERVICE_URL_SWITCHES = [
  "gaia-url",
  "google-apis-url",
  "lso-url",
  "sync-url",
  "variations-server-url",
  "google-base-url",
  // GCM's device check-in and registrations (android.clients.google.com), which --disable-background-networking leaves on.
  "gcm-checkin-url",
  "gcm-registration-url",
  "gcm-mcs-endpoint",
];
/** Features that fetch from Google in the background (unknown names are ignored by Chromium). */
const DISABLED_SERVICE_FEATURES = [
  "NetworkTimeServiceQuerying",
  "OptimizationHints",
  "OptimizationHintsFetching",
  "OptimizationGuideModelDownloading",
  "OptimizationTargetPrediction",
  "CertificateTransparencyComponentUpdater",
  "MediaRouter",
  "DialMediaRouteProvider",
  "Translate",
  "AutofillServerCommunication",
  "InterestFeedContentSuggestions",
  "SafeBrowsingBetterTelemetry",
  "PrivacySandboxSettings4",
  // The omnibox's AI Mode eligibility check (`<google-base-url>/async/folae`): Chromium 150 sends it from every
  // incognito context as it opens, through that context's proxy, i.e. a render lane. Each of the three stops it.
  "AimEnabled",
  "AimServerEligibilityEnabled",
  "AimServerRequestOnStartupEnabled",
  // Preconnects to the default search engine (CONNECT www.google.com:443), also per context in Chromium 150.
  "PreconnectToSearch",
  // DNS-over-HTTPS upgrade probes.
  "DnsOverHttpsUpgrade",
];

/**
 * Chromium's own scheme upgrades: a render loads exactly the URL it was asked for. With HttpsUpgrades on,
 * `http://host/` is first tried as `https://host/` (falling back after up to 3 s when 443 is silent), and
 * that invented navigation was checked against the https origin's robots.txt, whose cached failure then
 * failed later renders of the host. The HTTPS-First ones turn the same on for incognito contexts or by
 * heuristics. (HSTS, which a site asks for, still applies.)
 */
const DISABLED_UPGRADE_FEATURES = [
  "HttpsUpgrades",
  "HttpsFirstModeIncognito",
  "HttpsFirstModeV2ForTypicallySecureUsers",
  "HttpsFirstModeV2ForEngagedSites",
  "HttpsFirstBalancedModeAutoEnable",
];

/** The switches that close every route except the proxy. Exported for the test that reads them. */
export function buildBrowserArgs(options: Pick<BrowserLaunchOptions, "proxyUrl" | "userAgent" | "sandbox">): string[] {
  return [
    ...(options.sandbox ? [] : ["--no-sandbox"]),
    "--disable-gpu",
    // No SwiftShader either: text extraction needs no rasterised pixels (10-18 MiB less summed RSS, 9-14 MiB less
    // PSS with two pages open: scripts/bench/chromium-memory.ts --drop=--disable-software-rasterizer).
    "--disable-software-rasterizer",
    // A caller's new tab joins its render context's renderer process instead of starting one (~100 ms against
    // ~700 ms under load; render-context.ts). Processes are never shared between contexts, so each context still
    // has its own.
    "--renderer-process-limit=1",
    // Fewer processes: the (software) GPU and network services live in the browser process.
    "--in-process-gpu",
    "--enable-features=NetworkServiceInProcess2",
    // Processes that run unsandboxed anyway (the storage service) are started directly, not from a second
    // zygote kept alive for them: one process fewer (~70 MiB RSS); the renderers' zygote and sandbox are unchanged.
    "--no-unsandboxed-zygote",
    // Chromium's own services: none of them is needed to render a page.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--safebrowsing-disable-auto-update",
    "--disable-field-trial-config",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--metrics-recording-only",
    "--no-service-autorun",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-default-browser-check",
    "--disable-quic",
    "--no-first-run",
    "--dns-prefetch-disable",
    "--no-pings",
    // Services that ignore the switches above (sign-in, the component updater) are pointed nowhere.
    ...SERVICE_URL_SWITCHES.map((name) => `--${name}=${NOWHERE}`),
    `--component-updater=url-source=${NOWHERE}`,
    `--proxy-server=${options.proxyUrl}`,
    // "<-loopback>" removes Chromium's implicit bypass, so even 127.0.0.1 goes through the proxy.
    "--proxy-bypass-list=<-loopback>",
    // Chromium resolves nothing itself; only the proxy's own address stays reachable.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--deny-permission-prompts",
    "--block-new-web-contents",
    // Images are not switched off here (screenshots need them): each page's request guard fails image requests
    // before they are sent, except on a screenshot's page (render-page.ts BLOCKED_RESOURCE_TYPES).
    // Frames stay in the page's process so the page's request interception sees their requests too.
    `--disable-features=site-per-process,IsolateOrigins,AudioServiceOutOfProcess,${[...DISABLED_SERVICE_FEATURES, ...DISABLED_UPGRADE_FEATURES].join(",")}`,
    "--disable-site-isolation-trials",
    `--user-agent=${options.userAgent}`,
  ];
}

export async function launchBrowser(options: BrowserLaunchOptions): Promise<LaunchedBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), "tollbooth-chromium-"));
  let browser: Browser;
  try {
    // Loaded on the first launch: a server that never renders does not carry puppeteer (~20 MiB of RSS).
    const { default: puppeteer } = await import("puppeteer-core");
    browser = await puppeteer.launch({
      executablePath: options.executablePath,
      headless: true,
      // The pipe transport: Chromium exits by itself when this process dies and the pipe closes.
      pipe: true,
      userDataDir,
      args: [...buildBrowserArgs(options), ...(options.extraArgs ?? [])],
      ignoreDefaultArgs: ["--disable-popup-blocking"],
      // The server owns signal handling and calls close(); puppeteer still kills the browser on exit.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
      protocolTimeout: 30_000,
      defaultViewport: { width: 1280, height: 900 },
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  // The tab puppeteer opens at launch would keep a renderer process for nothing.
  for (const page of await browser.pages().catch(() => [])) await page.close().catch(() => undefined);
  const child = browser.process();
  let closing: Promise<void> | undefined;
  return {
    browser,
    pid: child?.pid,
    userDataDir,
    close() {
      closing ??= (async () => {
        const exited = new Promise<void>((resolve) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) resolve();
          else child.once("exit", () => resolve());
        });
        await outcomeWithin(browser.close(), 3_000);
        // Whether or not it closed in time: zygote and renderers that outlive the browser go with the group.
        killGroup(child?.pid);
        await outcomeWithin(exited, 3_000);
        await rm(userDataDir, { recursive: true, force: true }).catch(() => undefined);
      })();
      return closing;
    },
  };
}

/** Chromium runs detached in its own process group: kill the group so no zygote or renderer stays. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
