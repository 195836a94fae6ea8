/**
 * @module web/render/browser-doctor — the `tollbooth doctor` line for render:true: which browser, its
 * version, or why rendering is unavailable (a warning: everything else works without it).
 */
import { execFile } from "node:child_process";
import { findBrowser } from "./browser-discovery.ts";

export interface BrowserCheckResult {
  name: "browser";
  status: "ok" | "warn";
  detail: string;
}

function readVersion(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, ["--version"], { timeout: 10_000 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout.trim());
    });
  });
}

export async function checkBrowser(config: { render: "on" | "off"; browserPath?: string }): Promise<BrowserCheckResult> {
  if (config.render === "off") return { name: "browser", status: "ok", detail: "render is off (--render off): render:true is refused with 503" };
  const found = findBrowser(config.browserPath);
  if (!found.found) return { name: "browser", status: "warn", detail: `${found.detail}; render:true is refused with 503, everything else works` };
  try {
    const version = await readVersion(found.path);
    return { name: "browser", status: "ok", detail: `${version} at ${found.path} (${found.source})` };
  } catch (error) {
    return { name: "browser", status: "warn", detail: `${found.path} did not answer --version (${(error as Error).message.split("\n")[0]}); render:true may fail` };
  }
}
