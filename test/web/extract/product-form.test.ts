/**
 * A shop's product page wraps the product, its description with it, in the form that puts it in the basket: a form
 * holding most of the content's prose stays (its controls are never text); a small form inside the content (a
 * newsletter sign-up, a search box) is still removed.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (t: string) => `<p>${t}, sewn in two layers of soft fleece, with the name embroidered in the corner, washable at forty degrees.</p>`;
const page = (inside: string) =>
  `<html><head><title>Cat blanket with name</title></head><body><nav><a href="/">Shop</a></nav><div class="shop"><h1>Cat blanket with name</h1><p>Made by hand in our workshop, every blanket is a gift with heart for the cat you love most of all.</p>${inside}</div><footer>Imprint</footer></body></html>`;
const extract = (html: string) => extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;

describe("a form inside the content", () => {
  it("is kept when it holds most of the content (the product and its description)", () => {
    const text = extract(page(`<form class="product-form" action="/cart"><div class="price">24,90 €</div>${para("A blanket for cats")}${para("The embroidery sits on the long side")}${para("Both sides look good")}<button>Add to basket</button></form>`));
    expect(text).toContain("A blanket for cats, sewn in two layers");
    expect(text).toContain("Both sides look good");
    expect(text).not.toContain("Add to basket");
  });

  it("is removed when it is a small part of it", () => {
    const text = extract(page(`${para("A blanket for cats")}${para("The embroidery sits on the long side")}${para("Both sides look good")}<form action="/subscribe"><p>Our letter with new patterns, once a month.</p><input name="email"></form>`));
    expect(text).toContain("Both sides look good");
    expect(text).not.toContain("Our letter with new patterns");
  });
});
