/**
 * A headless Chromium driven by puppeteer for tests that look at a page the server serves (the
 * admin dashboard, /docs). Guard the test with skipWithout("chromium", …) (test/support/requirements.ts).
 */
import puppeteer, { type Browser } from "puppeteer-core";
import { chromiumPath } from "./requirements.ts";

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
}
