/**
 * @module web/render/browser-discovery — finds the Chromium the renderer drives: the configured path,
 * else the usual install locations. No browser means render is unavailable, nothing else.
 */
import { accessSync, constants, statSync } from "node:fs";

/** Where Debian/Ubuntu/Fedora packages and Google's builds put the browser. */
export const USUAL_BROWSER_PATHS: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/lib/chromium/chromium",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
  "/snap/bin/chromium",
];

export type BrowserDiscovery =
  | { found: true; path: string; source: "config" | "usual path" }
  | { found: false; detail: string };

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A configured path must work (no silent fallback to another browser); without one the usual paths are tried in order. */
export function findBrowser(configuredPath?: string, candidates: readonly string[] = USUAL_BROWSER_PATHS): BrowserDiscovery {
  if (configuredPath !== undefined) {
    if (isExecutableFile(configuredPath)) return { found: true, path: configuredPath, source: "config" };
    return { found: false, detail: `the configured browser ${configuredPath} is not an executable file` };
  }
  const path = candidates.find(isExecutableFile);
  if (path) return { found: true, path, source: "usual path" };
  return { found: false, detail: `no Chromium found (looked in ${candidates.join(", ")}); set --browser-path or install chromium` };
}
