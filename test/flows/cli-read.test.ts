/**
 * `tollbooth read` as a user runs it: the real CLI in a child process, against the loopback page
 * server (URL mode) and against local files (--file mode, which must not touch the network).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { FIXTURES, type PageServer, ROBOTS_ALLOW, startPageServer } from "../support/page-server.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");
const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const tmp = mkdtempSync(join(tmpdir(), "tb-cli-read-"));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: Record<string, unknown> | undefined;
}

/** Runs `bun src/main.ts read ...args` without blocking this process (the page server lives here). */
function runRead(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, "read", ...args, "--data", join(tmp, "data")], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

let site: PageServer;
beforeAll(() => {
  site = startPageServer({ robots: ROBOTS_ALLOW });
});
afterAll(async () => {
  await site.stop();
});

describe("tollbooth read URL", () => {
  it("prints the read result as JSON, with --markdown, --selector and --max-chars", async () => {
    const run = await runRead([site.url("/pages/article.html"), "--markdown", "--selector", "article", "--max-chars", "1000", "--unsafe-allow-loopback-targets"]);
    expect(run.code).toBe(0);
    const result = run.json!;
    expect(result.ok).toBe(true);
    expect(result.final_url).toBe(site.url("/pages/article.html"));
    expect(result.format).toBe("markdown");
    expect(result.selector).toBe("article");
    expect(result.title).toBe("River Survey Results | Example News");
    expect(typeof result.markdown).toBe("string");
    expect(result.markdown_sha256).toBe(sha256(result.markdown as string));
    expect(result.text_sha256).toBe(sha256(result.text as string));
    expect((result.text as string).length).toBeLessThanOrEqual(1000);
    expect(site.hits("/pages/article.html")).toBeGreaterThan(0);
  });

  it("keeps --format markdown as an alias of --markdown", async () => {
    const run = await runRead([site.url("/pages/article.html"), "--format", "markdown", "--unsafe-allow-loopback-targets"]);
    expect(run.code).toBe(0);
    expect(run.json?.format).toBe("markdown");
    const plain = await runRead([site.url("/pages/article.html"), "--unsafe-allow-loopback-targets"]);
    expect(plain.json?.format).toBeUndefined();
    expect(plain.json?.markdown).toBeUndefined();
  });

  it("truncates at --max-chars and says so", async () => {
    const run = await runRead([site.url("/sized?bytes=40000"), "--max-chars", "1000", "--unsafe-allow-loopback-targets"]);
    expect(run.code).toBe(0);
    expect(run.json?.truncated).toBe(true);
    expect(run.json?.characters).toBe(1000);
  });

  it("prints the error body and exits 1 when the read fails", async () => {
    const run = await runRead([site.url("/pages/article.html"), "--selector", "#nope", "--unsafe-allow-loopback-targets"]);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ ok: false, error: "SELECTOR_NOT_FOUND", status: 422 });
    expect(run.stdout).not.toContain("    at ");
  });

  it("refuses a loopback target without the test switch, before connecting", async () => {
    const before = site.hits("/pages/short.html");
    const run = await runRead([site.url("/pages/short.html")]);
    expect(run.code).toBe(1);
    expect(run.json?.error).toBe("URL_NOT_ALLOWED");
    expect(site.hits("/pages/short.html")).toBe(before);
  });

  it("exits 2 on bad usage", async () => {
    expect((await runRead([])).code).toBe(2);
    expect((await runRead([site.url("/"), "--max-chars", "12"])).code).toBe(2);
    expect((await runRead([site.url("/"), "--format", "pdf"])).code).toBe(2);
  });
});

describe("tollbooth read --file", () => {
  const article = join(FIXTURES, "article.html");

  it("extracts a local file as if fetched from --url, without fetching it", async () => {
    // The URL names the loopback site, so any fetch would show up in its hit count.
    const url = site.url("/stands-for/article.html");
    const robotsBefore = site.hits("/robots.txt");
    const run = await runRead(["--file", article, "--url", url, "--unsafe-allow-loopback-targets"]);
    expect(run.code).toBe(0);
    const result = run.json!;
    expect(site.hits("/stands-for/article.html")).toBe(0);
    expect(site.hits("/robots.txt")).toBe(robotsBefore);
    expect(result.url).toBe(url);
    expect(result.final_url).toBe(url);
    expect(result.content_type).toBe("text/html");
    expect(result.source_sha256).toBe(sha256(readFileSync(article)));
    expect(result.text_sha256).toBe(sha256(result.text as string));
    expect(result.title).toBe("River Survey Results | Example News");
    // Relative links resolve against --url.
    const links = result.links as { url: string }[];
    expect(links.length).toBeGreaterThan(0);
    expect(links.every((l) => l.url.startsWith("http"))).toBe(true);
  });

  it("gives the same result as the fetched page (same engine)", async () => {
    const url = site.url("/pages/article.html");
    const fetched = await runRead([url, "--markdown", "--unsafe-allow-loopback-targets"]);
    const local = await runRead(["--file", article, "--url", url, "--markdown"]);
    expect(local.code).toBe(0);
    for (const field of ["title", "description", "language", "text", "text_sha256", "markdown_sha256", "source_sha256", "headings", "links", "warnings"]) {
      expect(local.json?.[field]).toEqual(fetched.json?.[field]);
    }
  });

  it("unpacks a .gz file and takes the type from the inner extension", async () => {
    const gz = join(tmp, "article.html.gz");
    writeFileSync(gz, gzipSync(readFileSync(article)));
    const run = await runRead(["--file", gz, "--url", "https://news.example/a"]);
    expect(run.code).toBe(0);
    expect(run.json?.source_sha256).toBe(sha256(readFileSync(article)));
    expect(run.json?.title).toBe("River Survey Results | Example News");
  });

  it("reads non-HTML types and honours --content-type", async () => {
    const csv = await runRead(["--file", join(FIXTURES, "data.csv"), "--url", "https://data.example/x"]);
    expect(csv.code).toBe(0);
    expect(csv.json?.content_type).toBe("text/csv");
    const asText = await runRead(["--file", join(FIXTURES, "data.csv"), "--url", "https://data.example/x", "--content-type", "text/plain"]);
    expect(asText.json?.content_type).toBe("text/plain");
  });

  it("applies the source size cap and the selector rules", async () => {
    const big = join(tmp, "big.html");
    writeFileSync(big, `<html><body><p>${"a".repeat(1024 * 1024)}</p></body></html>`);
    const tooBig = await runRead(["--file", big, "--url", "https://big.example/"]);
    expect(tooBig.code).toBe(1);
    expect(tooBig.json?.error).toBe("SOURCE_TOO_LARGE");
    const miss = await runRead(["--file", article, "--url", "https://news.example/a", "--selector", "#nope"]);
    expect(miss.json?.error).toBe("SELECTOR_NOT_FOUND");
  });

  it("needs --url, a readable file and no --render", async () => {
    expect((await runRead(["--file", article])).code).toBe(2);
    expect((await runRead(["--file", join(tmp, "missing.html"), "--url", "https://a.example/"])).code).toBe(2);
    expect((await runRead(["--file", article, "--url", "https://a.example/", "--render"])).code).toBe(2);
  });
});
