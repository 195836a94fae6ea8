import { describe, expect, test } from "bun:test";
import { estimateTextLength, isBotChallenge } from "../../../src/web/fetch/challenge.ts";

/** The definition the scan implements, as regular expressions. */
function byRegex(html: string): number {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim().length;
}

describe("visible text length", () => {
  const cases = [
    "",
    "   ",
    "<p>one</p>  <p>two</p>",
    "x < y and y > z",
    "<script>if (a<b) document.write('</div>')</SCRIPT >after",
    "<style>p{}</style><noscript>enable js</noscript><template><p>t</p></template>seen",
    "<script>never closed",
    "a<!-- note -->b",
    "\u00a0lead\u3000mid\ttrail\n",
    "<div>\n  <span>nested</span>\n</div>\n<p>\n words   spread \n</p>",
  ];
  test.each(cases)("matches the regular-expression definition: %j", (html) => {
    expect(estimateTextLength(html)).toBe(byRegex(html));
  });

  test("stops counting just past the cap", () => {
    const long = `<p>${"word ".repeat(10_000)}</p>`;
    expect(estimateTextLength(long)).toBe(byRegex(long));
    const capped = estimateTextLength(long, 2000);
    expect(capped).toBeGreaterThan(2000);
    expect(capped).toBeLessThan(2010);
  });
});

describe("bot challenges", () => {
  const wall = `<html><head><title>Just a moment...</title><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></head>
    <body><div id="challenge-running">Checking your browser before accessing the site.</div></body></html>`;
  test("a vendor interstitial is a challenge", () => {
    expect(isBotChallenge({ status: 200, headers: {}, html: wall })).toBe(true);
  });
  test("a long article that talks about CAPTCHAs is not", () => {
    const article = `<html><head><title>Are you a robot?</title></head><body><article>${"<p>CAPTCHAs ask you to verify you are human, and press &amp; hold buttons annoy people.</p>".repeat(60)}</article>
      <script src="https://www.google.com/recaptcha/api.js"></script></body></html>`;
    expect(isBotChallenge({ status: 200, headers: {}, html: article })).toBe(false);
  });
  test("a near-empty page with a CAPTCHA widget is a wall", () => {
    const widget = `<html><body><form><div class="g-recaptcha" data-sitekey="k"></div><button>Continue</button></form></body></html>`;
    expect(isBotChallenge({ status: 200, headers: {}, html: widget })).toBe(true);
  });
});
