/**
 * dom-internals.ts reads happy-dom's own arrays and maps instead of its Proxy-wrapped accessors.
 * These tests hold them to the public answers, before and after the tree changes, so a happy-dom
 * upgrade that renames or stops keeping them fails here rather than in an extraction.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { PropertySymbol, type Element, type Node, type Window } from "happy-dom";
import { closeParserWindow, parseHtmlDocument } from "../../../src/web/extract/content-parse.ts";
import { attributeMapOf, childElementsOf, childNodesOf, clearWaitingCustomElements, elementIdsOf, textLengthOf } from "../../../src/web/extract/dom-internals.ts";

afterAll(closeParserWindow);

const PAGE = `<div id=main class="a b" data-x=1>text <b>bold</b><!-- note --><p>para</p> tail<i>it</i></div>`;

function main(): Element {
  return parseHtmlDocument(PAGE).querySelector("#main") as unknown as Element;
}

describe("dom-internals", () => {
  it("childNodesOf lists what childNodes lists: text, elements and comments, in order", () => {
    const div = main();
    expect(childNodesOf(div).length).toBe(6);
    expect([...childNodesOf(div)]).toEqual(Array.from(div.childNodes) as unknown as Node[]);
  });

  it("childElementsOf lists what children lists", () => {
    const div = main();
    expect(childElementsOf(div).map((element) => element.nodeName)).toEqual(["B", "P", "I"]);
    expect([...childElementsOf(div)]).toEqual(Array.from(div.children) as unknown as Element[]);
  });

  it("both stay live as the tree changes", () => {
    const div = main();
    const nodes = childNodesOf(div);
    const elements = childElementsOf(div);
    (div.querySelector("p") as unknown as Element).remove();
    div.appendChild(div.ownerDocument.createElement("span") as unknown as Element);
    expect(elements.map((element) => element.nodeName)).toEqual(["B", "I", "SPAN"]);
    expect([...nodes]).toEqual(Array.from(div.childNodes) as unknown as Node[]);
  });

  it("textLengthOf is the length of textContent (text at any depth, comments not), without building it", () => {
    const div = main();
    expect(textLengthOf(div)).toBe((div.textContent ?? "").length);
    expect(textLengthOf(div)).toBe("text boldpara tailit".length);
    const document = parseHtmlDocument(`<body>\n <p>one <!-- c --><span>two</span></p>\n<ul><li>3</li></ul></body>`);
    const body = document.body as unknown as Element;
    expect(textLengthOf(body)).toBe((body.textContent ?? "").length);
  });

  it("attributeMapOf holds the element's attributes with their values", () => {
    const div = main();
    const read = () => [...attributeMapOf(div)].map((attribute) => `${attribute.name}=${attribute.value}`);
    expect(attributeMapOf(div).length).toBe(3);
    expect(read()).toEqual(Array.from(div.attributes).map((attribute) => `${attribute.name}=${attribute.value}`));
    div.setAttribute("role", "main");
    div.removeAttribute("data-x");
    expect(read()).toEqual(["id=main", "class=a b", "role=main"]);
    expect(attributeMapOf(main().querySelector("b") as unknown as Element).length).toBe(0);
  });

  it("elementIdsOf lists the ids getElementById finds", () => {
    const document = parseHtmlDocument(`<p id=one>a</p><div><span id=two>b</span></div><i>c</i>`);
    const ids = [...elementIdsOf(document)];
    expect(ids.sort()).toEqual(["one", "two"]);
    for (const id of ids) expect(document.getElementById(id)?.id).toBe(id);
  });

  it("clearWaitingCustomElements empties the registry's waiting list, and a later definition still works", () => {
    const document = parseHtmlDocument(`<x-later>a</x-later>`);
    const window = document.defaultView as unknown as Window;
    const waiting = () => (window.customElements as unknown as Record<symbol, Map<string, unknown>>)[PropertySymbol.callbacks];
    expect(waiting()?.size ?? 0).toBeGreaterThan(0);
    clearWaitingCustomElements(window);
    expect(waiting()?.size ?? 0).toBe(0);
  });
});
