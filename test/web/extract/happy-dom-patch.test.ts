/**
 * patches/happy-dom+21.0.4.patch (applied by `npm install` through patch-package): per-node maps
 * and lists are made on first use, query results are not cached, and nothing is built for
 * listeners that do not exist (mutation records with no observer, custom element reactions with
 * no definition, an `on*` property read for every attribute set), and its lower/upper-case
 * caches of tag and attribute names are bounded. These tests fail on an
 * unpatched happy-dom (the memory shape, the skipped work) and on a patch that broke what was
 * skipped (listeners, mutation observers, custom element callbacks, queries after changes).
 * Extraction no longer runs on happy-dom (it parses with htmlparser2); the patch stays for the speed
 * reference, Readability on happy-dom (scripts/bench/readability-reference.ts), so that reference runs as
 * it was measured in earlier sessions instead of getting slower.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "bun:test";
import { type Element, Event as DomEvent, PropertySymbol, Window } from "happy-dom";

const window = new Window({ url: "about:blank", settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true } });
afterAll(() => window.happyDOM.close());

/**
 * A document parsed in the test's one window. Custom elements of earlier documents wait in the window's
 * registry for a definition: they are let go first, as a window closed after each page lets them go.
 */
function parseHtmlDocument(html: string) {
  const waiting = (window.customElements as unknown as Record<symbol, unknown>)[PropertySymbol.callbacks];
  if (waiting instanceof Map) waiting.clear();
  return new window.DOMParser().parseFromString(html, "text/html");
}

/** The patch's internal fields, read through happy-dom's own property symbols. */
function internals(node: Element): Record<string, unknown> & { cache: Record<string, unknown>; listeners: Record<string, unknown> } {
  const record = node as unknown as Record<symbol, unknown>;
  return {
    cache: record[PropertySymbol.cache] as Record<string, unknown>,
    listeners: record[PropertySymbol.listeners] as Record<string, unknown>,
    affectsCache: record[PropertySymbol.affectsCache],
    mutationListeners: record[PropertySymbol.mutationListeners],
  };
}

describe("happy-dom patch: nothing per node until used", () => {
  it("a parsed element holds no query maps, listener maps or invalidation list", () => {
    const document = parseHtmlDocument("<div id=a><p class=x>one</p><p>two</p></div>");
    const div = document.querySelector("#a") as unknown as Element;
    const fields = internals(div);
    expect(fields.cache.querySelectorAllMap).toBeNull();
    expect(fields.cache.matchesMap).toBeNull();
    expect(fields.listeners.bubblingMap).toBeNull();
    expect(fields.affectsCache).toBeNull();
    expect(Object.isFrozen(fields.mutationListeners)).toBe(true);
  });

  it("queries leave no cache entry behind", () => {
    const document = parseHtmlDocument("<div id=a><p class=x>one</p><p>two</p></div>");
    const div = document.querySelector("#a") as unknown as Element;
    expect(div.querySelectorAll("p").length).toBe(2);
    expect(div.querySelector(".x")?.textContent).toBe("one");
    expect((div.firstElementChild as Element).matches(".x")).toBe(true);
    const fields = internals(div);
    expect(fields.cache.querySelectorAllMap).toBeNull();
    expect(fields.cache.querySelectorMap).toBeNull();
    expect(internals(div.firstElementChild as Element).cache.matchesMap).toBeNull();
    expect(internals(div.firstElementChild as Element).affectsCache).toBeNull();
  });
});

describe("happy-dom patch: behaviour kept", () => {
  it("queries and matches see every change", () => {
    const document = parseHtmlDocument("<div id=a><p class=x>one</p></div>");
    const div = document.querySelector("#a") as unknown as Element;
    expect(div.querySelectorAll("p").length).toBe(1);
    div.appendChild(document.createElement("p") as unknown as Element);
    expect(div.querySelectorAll("p").length).toBe(2);
    const p = div.firstElementChild as Element;
    expect(p.matches(".x")).toBe(true);
    p.setAttribute("class", "y");
    expect(p.matches(".x")).toBe(false);
    expect(div.querySelector(".x")).toBeNull();
    expect(p.closest("#a")).toBe(div);
  });

  it("event listeners are added, called and removed", () => {
    const document = parseHtmlDocument("<button id=b>go</button>");
    const button = document.querySelector("#b") as unknown as Element;
    const calls: string[] = [];
    const onBubble = () => calls.push("bubble");
    button.addEventListener("ping", onBubble);
    button.addEventListener("ping", () => calls.push("capture"), { capture: true });
    button.dispatchEvent(new DomEvent("ping"));
    button.removeEventListener("ping", onBubble);
    button.dispatchEvent(new DomEvent("ping"));
    expect(calls.sort()).toEqual(["bubble", "capture", "capture"]);
  });

  it("a mutation observer sees child and attribute changes", async () => {
    const document = parseHtmlDocument("<ul id=list><li>a</li></ul>");
    const list = document.querySelector("#list") as unknown as Element;
    const window = document.defaultView as unknown as { MutationObserver: typeof MutationObserver };
    const seen: string[] = [];
    const observer = new window.MutationObserver((records) => {
      for (const record of records) seen.push(record.type);
    });
    observer.observe(list as unknown as Node, { childList: true, attributes: true, subtree: true });
    list.appendChild(document.createElement("li") as unknown as Element);
    list.setAttribute("data-n", "2");
    await Bun.sleep(10);
    observer.disconnect();
    list.appendChild(document.createElement("li") as unknown as Element);
    await Bun.sleep(10);
    expect(seen).toEqual(["childList", "attributes"]);
  });

  it("pointer capture and animations keep their answers", () => {
    const document = parseHtmlDocument("<div id=a></div>");
    const div = document.querySelector("#a") as unknown as Element;
    expect(div.hasPointerCapture(1)).toBe(false);
    div.setPointerCapture(1);
    expect(div.hasPointerCapture(1)).toBe(true);
    div.releasePointerCapture(1);
    expect(div.hasPointerCapture(1)).toBe(false);
    expect(div.getAnimations()).toEqual([]);
  });
});

describe("happy-dom patch: no work for listeners that do not exist", () => {
  it("setting an attribute reads no property of the same name unless it is an on* handler", () => {
    const document = parseHtmlDocument("<a id=a>x</a>");
    const anchor = document.querySelector("#a") as unknown as Element;
    // Unpatched, every attribute set read element[name]: for href that resolved a URL per link.
    let hrefReads = 0;
    Object.defineProperty(anchor, "href", { configurable: true, get: () => (hrefReads++, "") });
    anchor.setAttribute("href", "/page");
    expect(hrefReads).toBe(0);
    expect(anchor.getAttribute("href")).toBe("/page");
  });

  it("an on* attribute still replaces the handler set as a property", () => {
    const document = parseHtmlDocument("<button id=b>go</button>");
    const button = document.querySelector("#b") as unknown as Element & { onclick: unknown };
    const calls: string[] = [];
    button.onclick = () => calls.push("property");
    button.dispatchEvent(new DomEvent("click"));
    button.setAttribute("onclick", "void 0");
    button.dispatchEvent(new DomEvent("click"));
    expect(calls).toEqual(["property"]);
  });

  it("no custom element reaction is queued while no custom element is defined", () => {
    const document = parseHtmlDocument("<div id=a></div>");
    const window = document.defaultView as unknown as Record<symbol, { enqueueReaction: (...args: unknown[]) => void }>;
    const stack = window[PropertySymbol.customElementReactionStack] as { enqueueReaction: (...args: unknown[]) => void };
    let queued = 0;
    const original = stack.enqueueReaction;
    stack.enqueueReaction = (...args: unknown[]) => {
      queued++;
      original.apply(stack, args);
    };
    try {
      const div = document.querySelector("#a") as unknown as Element;
      div.setAttribute("class", "x");
      div.appendChild(document.createElement("span") as unknown as Element);
      expect(queued).toBe(0);
    } finally {
      stack.enqueueReaction = original;
    }
  });

  it("a defined custom element still gets its connected and attribute-changed callbacks", async () => {
    const window = new Window({ url: "https://example.com/" });
    try {
      const calls: string[] = [];
      class Widget extends window.HTMLElement {
        static observedAttributes = ["size"];
        connectedCallback(): void {
          calls.push("connected");
        }
        attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
          calls.push(`${name}=${value}`);
        }
      }
      window.customElements.define("x-widget", Widget);
      const widget = window.document.createElement("x-widget");
      window.document.body.appendChild(widget);
      widget.setAttribute("size", "2");
      expect(calls).toEqual(["connected", "size=2"]);
    } finally {
      await window.happyDOM.close();
    }
  });

  it("a mutation observer sees text changes and removals", async () => {
    const document = parseHtmlDocument("<p id=p>one</p><p id=q>two</p>");
    const p = document.querySelector("#p") as unknown as Element;
    const window = document.defaultView as unknown as { MutationObserver: typeof MutationObserver };
    const seen: string[] = [];
    const observer = new window.MutationObserver((records) => {
      for (const record of records) seen.push(`${record.type}:${record.removedNodes.length}`);
    });
    observer.observe(document as unknown as Node, { childList: true, characterData: true, subtree: true });
    (p.firstChild as unknown as { data: string }).data = "uno";
    (document.querySelector("#q") as unknown as Element).remove();
    await Bun.sleep(10);
    observer.disconnect();
    expect(seen).toEqual(["characterData:0", "childList:1"]);
  });
});

describe("happy-dom patch: name caches are bounded", () => {
  it("parsing 50,000 distinct tag and attribute names leaves no trace of them", () => {
    // In a process of its own (test/support/happy-dom-name-probe.ts): the live-string count is of that parse alone.
    const run = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../support/happy-dom-name-probe.ts")], { stderr: "pipe" });
    expect(run.exitCode, run.stderr.toString()).toBe(0);
    const { added } = JSON.parse(run.stdout.toString()) as { added: number };
    // Unbounded, each name stayed in two caches for the life of the thread (~100,000 strings here),
    // and a name cut from a page's source may keep that whole source alive.
    expect(added).toBeLessThan(10_000);
  });
});
