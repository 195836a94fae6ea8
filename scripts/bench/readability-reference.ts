/**
 * Mozilla Readability on happy-dom, the speed reference (new Window, document.write,
 * Readability.parse, window closed). Benches time it beside their own figures: its median over the
 * dev pages says how fast the machine was in that run (the issue measured ~27 ms on its machine).
 */
import { Readability } from "@mozilla/readability";
import { Window } from "happy-dom";

const URL_BASE = "https://example.com/";
/** The reference window: nothing the page names is loaded or run. */
export const REFERENCE_WINDOW_SETTINGS = { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true, disableIframePageLoading: true };

/** Readability's text of `html` from `url`, parsed in a fresh happy-dom window that is closed afterwards. */
export async function readabilityText(html: string, url: string = URL_BASE): Promise<string | null | undefined> {
  const window = new Window({ url, settings: REFERENCE_WINDOW_SETTINGS });
  try {
    window.document.write(html);
    return new Readability(window.document as unknown as Document).parse()?.textContent;
  } finally {
    await window.happyDOM.close();
  }
}

/** Median milliseconds of readabilityText over `pages`, one pass after a short warm-up. */
export async function readabilityMedianMs(pages: readonly string[]): Promise<number> {
  for (const html of pages.slice(0, 5)) await readabilityText(html);
  const times: number[] = [];
  for (const html of pages) {
    const started = performance.now();
    await readabilityText(html);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}
