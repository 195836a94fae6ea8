import { describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { Type as t } from "@sinclair/typebox";
import { checkBrowser } from "../../../src/web/render/browser-doctor.ts";
import { findBrowser } from "../../../src/web/render/browser-discovery.ts";
import { renderConfigFields, rendererOptionsFromConfig } from "../../../src/web/render/render-config.ts";

describe("web/browser-discovery", () => {
  const dir = mkdtempSync(join(tmpdir(), "tb-browser-"));
  const fake = join(dir, "chromium");
  writeFileSync(fake, "#!/bin/sh\necho 'Chromium 1.2.3'\n");
  chmodSync(fake, 0o755);
  const notExecutable = join(dir, "plain-file");
  writeFileSync(notExecutable, "");

  it("uses the configured path and never falls back from a broken one", () => {
    expect(findBrowser(fake)).toEqual({ found: true, path: fake, source: "config" });
    const broken = findBrowser(join(dir, "missing"), [fake]);
    expect(broken.found).toBe(false);
  });

  it("tries the usual paths in order, skipping non-executables", () => {
    expect(findBrowser(undefined, [join(dir, "missing"), notExecutable, fake])).toEqual({ found: true, path: fake, source: "usual path" });
    expect(findBrowser(undefined, [notExecutable]).found).toBe(false);
  });

  it("reports the browser's version for doctor, and a warning without one", async () => {
    expect(await checkBrowser({ render: "on", browserPath: fake })).toEqual({ name: "browser", status: "ok", detail: `Chromium 1.2.3 at ${fake} (config)` });
    expect((await checkBrowser({ render: "on", browserPath: join(dir, "missing") })).status).toBe("warn");
  });
});

describe("web/render-config", () => {
  it("has defaults for every field, and maps them to renderer options", () => {
    const defaults = Value.Default(t.Object(renderConfigFields), {}) as Parameters<typeof rendererOptionsFromConfig>[0];
    const options = rendererOptionsFromConfig({ ...defaults, unsafeAllowLoopbackTargets: false }, { userAgent: "Tollbooth/x" });
    expect(options).toMatchObject({ pages: 4, maxQueue: 32, totalTimeoutMs: 20_000, restartAfterRenders: 200, contextUses: 50, quietMs: 150, policy: { allowLoopbackTargets: false } });
    expect(rendererOptionsFromConfig({ ...defaults, render: "off", unsafeAllowLoopbackTargets: false }, { userAgent: "Tollbooth/x" })).toBeNull();
  });
});

describe("web/browser-launch switches", () => {
  it("forces every route through the proxy and lets Chromium resolve nothing itself", async () => {
    const { buildBrowserArgs } = await import("../../../src/web/render/browser-launch.ts");
    const args = buildBrowserArgs({ proxyUrl: "http://127.0.0.1:4567", userAgent: "Tollbooth/x", sandbox: true });
    expect(args).toContain("--proxy-server=http://127.0.0.1:4567");
    expect(args).toContain("--proxy-bypass-list=<-loopback>");
    expect(args).toContain("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1");
    expect(args).toContain("--disable-quic");
    expect(args).toContain("--force-webrtc-ip-handling-policy=disable_non_proxied_udp");
    expect(args).not.toContain("--no-sandbox");
    expect(buildBrowserArgs({ proxyUrl: "http://127.0.0.1:1", userAgent: "x", sandbox: false })).toContain("--no-sandbox");
  });

  it("turns Chromium's background services off and points the ones that ignore that nowhere", async () => {
    const { buildBrowserArgs } = await import("../../../src/web/render/browser-launch.ts");
    const args = buildBrowserArgs({ proxyUrl: "http://127.0.0.1:4567", userAgent: "Tollbooth/x", sandbox: true });
    for (const off of ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-domain-reliability", "--safebrowsing-disable-auto-update", "--disable-field-trial-config", "--metrics-recording-only"]) {
      expect(args).toContain(off);
    }
    expect(args).toContain("--gaia-url=http://chromium-service.invalid/");
    expect(args).toContain("--component-updater=url-source=http://chromium-service.invalid/");
    expect(args).toContain("--gcm-checkin-url=http://chromium-service.invalid/");
    const features = args.find((arg) => arg.startsWith("--disable-features="))!.split("=")[1]!.split(",");
    expect(features).toEqual(expect.arrayContaining(["NetworkTimeServiceQuerying", "OptimizationHintsFetching", "Translate", "MediaRouter"]));
    // Chromium 150 sends these from each incognito context (a render lane): /async/folae and CONNECT www.google.com:443.
    expect(features).toEqual(expect.arrayContaining(["AimEnabled", "AimServerEligibilityEnabled", "AimServerRequestOnStartupEnabled", "PreconnectToSearch"]));
  });

  it("switches Chromium's HTTPS upgrades and HTTPS-First modes off: a render loads the scheme it was asked for", async () => {
    const { buildBrowserArgs } = await import("../../../src/web/render/browser-launch.ts");
    const args = buildBrowserArgs({ proxyUrl: "http://127.0.0.1:4567", userAgent: "Tollbooth/x", sandbox: true });
    const features = args.find((arg) => arg.startsWith("--disable-features="))!.split("=")[1]!.split(",");
    expect(features).toEqual(expect.arrayContaining(["HttpsUpgrades", "HttpsFirstModeIncognito"]));
  });
});
