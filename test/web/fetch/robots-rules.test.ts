/**
 * The compiled robots.txt matcher (web/fetch/robots-rules.ts) against robots-parser, the library it
 * replaced on the hot path: the same answers on a table of rule sets and URLs (hand-picked cases of
 * RFC 9309's longest match, `*`, `$`, groups and encodings, then a seeded random sweep), and the one
 * place it means to differ: percent-encoded unreserved characters are decoded (RFC 9309 §2.2.2).
 * @see issue 42
 */
import { describe, expect, it } from "bun:test";
import robotsParser from "robots-parser";
import { compileRobots } from "../../../src/web/fetch/robots-rules.ts";

const ORIGIN = "https://site.example";
const AGENT = "Tollbooth";

const ROBOTS_FILES = [
  "User-agent: *\nDisallow: /private/\n",
  "User-agent: *\nDisallow: /\nAllow: /public\n",
  "User-agent: *\nDisallow: /a\nAllow: /a\n",
  "User-agent: *\nAllow: /page\nDisallow: /*.html$\n",
  "User-agent: *\nDisallow: /*.php$\nDisallow: /fish*\nAllow: /fish/salmon\n",
  "User-agent: *\nDisallow: /$\n",
  "User-agent: *\nDisallow: /*?\nAllow: /*?lang=\n",
  "User-agent: *\nDisallow: /a*b*c\n",
  "User-agent: *\nDisallow:\n",
  "User-agent: tollbooth\nDisallow: /only-us\n\nUser-agent: *\nDisallow: /\n",
  "User-agent: Tollbooth/2.0\nAllow: /\nUser-agent: *\nDisallow: /\n",
  "User-agent: other\nUser-agent: TOLLBOOTH\nDisallow: /x\n\nUser-agent: tollbooth\nDisallow: /y\n",
  "User-agent: other\nDisallow: /\n",
  "User-agent: tollbooth\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /\n",
  "User-agent: tollbooth\nSitemap: https://site.example/s.xml\nDisallow: /z\nUser-agent: *\nDisallow: /\n",
  "# comment\nUser-agent: * # all\nDisallow: /c # comment\nnonsense line\nDisallow /no-colon\n",
  "Disallow: /before-any-agent\nUser-agent: *\nDisallow: /after\n",
  "User-agent: *\nDisallow: /caf\u00e9\nDisallow: /%e2%82%ac\nAllow: /%E2%82%AC/ok\n",
  "User-agent: *\nDisallow: /a%2fb\nDisallow: /*%3F\n",
  "User-agent: *\r\nDisallow: /crlf\r\nAllow: /crlf/ok\r\n",
  "User-agent: *\nDisallow: /*$\nAllow: /$\n",
  "User-agent: *\nDisallow: *\nAllow: /ok$\n",
  "User-agent: *\nDisallow: /a$b\n",
  "User-agent: *\nDisallow: /**/deep\n",
];

const PATHS = [
  "/", "/private", "/private/", "/private/x", "/public", "/public/x", "/a", "/ab", "/page", "/page.html", "/x/page.html",
  "/x/page.html?q=1", "/index.php", "/index.php?x", "/fish", "/fish/", "/fish/salmon", "/fishheads", "/q?lang=en", "/q?x=1",
  "/abc", "/a-b-c", "/axxbyyc", "/acb", "/only-us", "/x", "/y", "/z", "/c", "/before-any-agent", "/after", "/caf%C3%A9",
  "/caf%c3%a9", "/%E2%82%AC", "/%E2%82%AC/ok", "/a%2Fb", "/a%2fb", "/a/b", "/what%3F", "/crlf", "/crlf/ok", "/ok", "/ok/x",
  "/a$b", "/a$bc", "/x/y/deep", "/deep",
];

/** The path and query as a parsed URL holds them (what the matcher is given): "/./a?" is "/a". */
function asParsed(path: string): string {
  const url = new URL(`${ORIGIN}${path}`);
  return url.pathname + url.search;
}

function parserSays(robots: string, path: string): boolean {
  return robotsParser(`${ORIGIN}/robots.txt`, robots).isAllowed(`${ORIGIN}${path}`, AGENT) !== false;
}

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("web/fetch/robots-rules", () => {
  it("gives robots-parser's answer on every hand-picked rule set and path", () => {
    const differences: string[] = [];
    for (const robots of ROBOTS_FILES) {
      const allowed = compileRobots(robots, AGENT);
      for (const path of PATHS) {
        const expected = parserSays(robots, path);
        if (allowed(asParsed(path)) !== expected) differences.push(`${JSON.stringify(robots)} ${path}: expected ${expected}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("gives robots-parser's answer on 4,000 seeded random rule sets and paths", () => {
    const next = random(42);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const pieces = ["/", "a", "b", "ab", ".", "-", "?", "=", "x", "%2F", "%C3%A9"];
    const segment = (max: number) => Array.from({ length: 1 + Math.floor(next() * max) }, () => pick(pieces)).join("");
    const pattern = () => {
      let text = `/${segment(4)}`;
      if (next() < 0.4) {
        const at = Math.floor(next() * (text.length + 1));
        text = `${text.slice(0, at)}*${text.slice(at)}`;
      }
      if (next() < 0.3) text += "$";
      return text;
    };
    const differences: string[] = [];
    let refused = 0;
    for (let round = 0; round < 400 && differences.length < 5; round++) {
      const patterns = Array.from({ length: 1 + Math.floor(next() * 5) }, pattern);
      const lines = patterns.map((p) => `${next() < 0.5 ? "Allow" : "Disallow"}: ${p}`);
      const robots = `User-agent: ${next() < 0.3 ? AGENT : "*"}\n${lines.join("\n")}\n`;
      const allowed = compileRobots(robots, AGENT);
      for (let n = 0; n < 10; n++) {
        // Half the paths grow from a rule (its literal text and more), so rules match often.
        const stem = next() < 0.5 ? pick(patterns).replace(/[*$]/g, () => (next() < 0.5 ? "" : segment(2))) : "";
        const path = `/${stem.replace(/^\/+/, "")}${segment(3)}`.replace(/^\/\//, "/");
        const expected = parserSays(robots, path);
        if (!expected) refused++;
        if (allowed(asParsed(path)) !== expected) differences.push(`${JSON.stringify(robots)} ${path}: expected ${expected}`);
      }
    }
    expect(differences).toEqual([]);
    // The sweep must exercise both answers, or it proves nothing.
    expect(refused).toBeGreaterThan(400);
    expect(refused).toBeLessThan(3600);
  });

  it("decodes percent-encoded unreserved characters on both sides, as RFC 9309 asks (robots-parser does not)", () => {
    const allowed = compileRobots("User-agent: *\nDisallow: /%7Euser\nDisallow: /b\n", AGENT);
    expect(allowed("/~user/page")).toBe(false);
    expect(allowed("/%7euser/page")).toBe(false);
    expect(allowed("/%62")).toBe(false);
    // Reserved characters keep their escapes: /a%2Fb is not /a/b.
    expect(compileRobots("User-agent: *\nDisallow: /a/b\n", AGENT)("/a%2Fb")).toBe(true);
  });

  it("stays linear on a pattern of many wildcards against a long path", () => {
    const allowed = compileRobots(`User-agent: *\nDisallow: /${"a*".repeat(40)}b$\n`, AGENT);
    const started = performance.now();
    expect(allowed(`/${"a".repeat(5000)}`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
