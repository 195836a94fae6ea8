/**
 * patches/happy-dom+21.0.4.patch (applied by `npm install` through patch-package): per-node maps
 * and lists are made on first use and query results are not cached. These tests fail on an
 * unpatched happy-dom (the memory shape) and on a patch that broke what the maps served
 * (listeners, mutation observers, queries after changes).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { type Element, Event as DomEvent, PropertySymbol } from "happy-dom";
import { closeParserWindow, parseHtmlDocument } from "../../src/web/content-parse.ts";

afterAll(closeParserWindow);

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
