/** Shared by the benches: `--name value` options, the dev set's pages (gzipped HTML, in name order), a loopback site for them, RSS, medians. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

export const DEV_SET_DIR = "/work/shared/bench/extraction/data";

/** The value after `--name` on the command line, else `fallback`. */
export function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && process.argv[at + 1] !== undefined ? (process.argv[at + 1] as string) : fallback;
}

/** The dev set's pages as text, sorted by file name; `limit` > 0 keeps the first `limit`. */
export function loadDevPages(dataDir: string, limit = 0): string[] {
  const files = readdirSync(join(dataDir, "html")).filter((f) => f.endsWith(".html.gz")).sort();
  const chosen = limit > 0 ? files.slice(0, limit) : files;
  return chosen.map((f) => gunzipSync(readFileSync(join(dataDir, "html", f))).toString("utf8"));
}

/** Serves `pages` on loopback at /p/{index}.html (text/html) beside a robots.txt that allows all. */
export function servePages(pages: readonly Uint8Array<ArrayBuffer>[]): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n", { headers: { "content-type": "text/plain" } });
      const page = pages[Number(/^\/p\/(\d+)\.html$/.exec(path)?.[1] ?? -1)];
      return page ? new Response(page, { headers: { "content-type": "text/html" } }) : new Response("not found", { status: 404 });
    },
  });
}

/** Resident and peak resident set size of a process (Linux /proc), in bytes. */
export function readRss(pid: number | "self" = "self"): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const bytes = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? "0") * 1024;
  return { rss: bytes("VmRSS"), peak: bytes("VmHWM") };
}

/** The median of `values` (the mean of the middle two when their count is even). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
