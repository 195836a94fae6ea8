/**
 * Run as its own process by test/web/extract/happy-dom-patch.test.ts: parses 50,000 distinct tag and attribute
 * names in one happy-dom window and prints how many more strings are live after than before. In its own process
 * the count is of this parse alone, not of what earlier test files left alive.
 */
import { heapStats } from "bun:jsc";
import { PropertySymbol, Window } from "happy-dom";

const window = new Window({ url: "about:blank", settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true } });

function parse(html: string): void {
  // Custom elements of earlier documents wait in the registry for a definition: let go, as a closed window does.
  const waiting = (window.customElements as unknown as Record<symbol, unknown>)[PropertySymbol.callbacks];
  if (waiting instanceof Map) waiting.clear();
  new window.DOMParser().parseFromString(html, "text/html");
}

function liveStrings(): number {
  Bun.gc(true);
  return heapStats().objectTypeCounts.string ?? 0;
}

parse("<p class=warm>x</p>");
const before = liveStrings();
// Many small pages rather than a few large ones: the collector scans the stack conservatively, and a stale reference
// to the last page parsed keeps that page's strings (about 8 a name) alive now and then.
for (let page = 0; page < 50; page++) {
  const parts: string[] = [];
  for (let i = 0; i < 1000; i++) parts.push(`<x-t${page}n${i} data-k${page}x${i}=1>word</x-t${page}n${i}>`);
  parse(`<html><body>${parts.join("")}</body></html>`);
}
parse("<p>done</p>");
const after = liveStrings();
await window.happyDOM.close();
console.log(JSON.stringify({ added: after - before }));
