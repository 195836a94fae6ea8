/**
 * @module test/support/page-server — a fixture web site on 127.0.0.1:<random port> for the web
 * engine's tests: pages, redirect chains, robots.txt variants, a gzip bomb, slow and oversize
 * bodies, legacy encodings, bot challenges, PDFs. Counts hits per path so tests can assert what
 * was (not) requested.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import iconv from "iconv-lite";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "pages");

export function readFixture(name: string): string {
  return readFileSync(join(FIXTURES, name), "utf8");
}

/** robots.txt answers: rules text, or a status code, or "hang" (never answers). */
export type RobotsMode = { kind: "text"; body: string } | { kind: "status"; status: number } | { kind: "hang" };

export const ROBOTS_ALLOW: RobotsMode = { kind: "text", body: "User-agent: *\nAllow: /\n" };
export const ROBOTS_DENY_ALL: RobotsMode = { kind: "text", body: "User-agent: *\nDisallow: /\n" };

/** Text and its encodings used by /legacy (each string is representable in its encoding). */
export const LEGACY_SAMPLES: Record<string, string> = {
  "windows-1252": "Café “déjà vu” — 5 € naïve",
  "iso-8859-2": "Zażółć gęślą jaźń, Příliš žluťoučký kůň",
  "iso-8859-5": "Съешь же ещё этих мягких булок",
  "iso-8859-7": "Καλημέρα κόσμε, ξεσκεπάζω την ψυχοφθόρα",
  shift_jis: "日本語のテキスト、カタカナとひらがな",
  gbk: "简体中文文本，测试编码是否正确",
  "euc-kr": "한국어 텍스트 인코딩 시험",
  big5: "繁體中文測試文字",
  "koi8-r": "Широкая электрификация южных губерний",
};

export interface PageServer {
  origin: string;
  port: number;
  url(path: string): string;
  /** Requests seen for a path (pathname only). */
  hits(path: string): number;
  /** Current robots.txt behaviour; change it between tests. */
  robots: RobotsMode;
  /** Headers of the last request to a path. */
  lastHeaders(path: string): Headers | undefined;
  stop(): Promise<void>;
}

export interface PageServerOptions {
  robots?: RobotsMode;
  /** Serve HTTPS with these certificates, chosen by SNI. */
  tls?: { serverName: string; cert: string; key: string }[];
}

const MIB = 1024 * 1024;
const encoder = new TextEncoder();

function html(body: string, init: ResponseInit = {}): Response {
  return new Response(body, { ...init, headers: { "content-type": "text/html; charset=utf-8", ...(init.headers ?? {}) } });
}

/** An endless body (each chunk via `chunk()`), so a reader that does not stop at its cap never finishes. */
function endless(chunk: () => Uint8Array, headers: Record<string, string>): Response {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Bounded server side (256 MiB) so a broken guard ends in failure, not a hung test run.
      if (sent > 256 * MIB) controller.close();
      const next = chunk();
      sent += next.byteLength;
      controller.enqueue(next);
    },
  });
  return new Response(stream, { headers });
}

function hang(request: Request): Promise<Response> {
  return new Promise((resolve) => {
    request.signal.addEventListener("abort", () => resolve(new Response("late")));
  });
}

/** A body that sends its first bytes and then stalls until the client goes away. */
/** A body that sends its first bytes and then nothing. */
function stalledBody(request: Request): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("<html><body><p>first bytes"));
      request.signal.addEventListener("abort", () => controller.close());
    },
  });
  return new Response(stream, { headers: { "content-type": "text/html" } });
}

// One gzip member inflating to 1 MiB of zeros (~1 KiB compressed); members concatenate into an endless bomb.
const BOMB_MEMBER = gzipSync(new Uint8Array(MIB), { level: 9 });
const MINIMAL_PDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";

export function startPageServer(options: PageServerOptions = {}): PageServer {
  const hits = new Map<string, number>();
  const headersSeen = new Map<string, Headers>();
  const state = { robots: options.robots ?? ROBOTS_ALLOW };

  const route = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    headersSeen.set(path, request.headers);

    if (path === "/robots.txt") {
      const mode = state.robots;
      if (mode.kind === "hang") return hang(request);
      if (mode.kind === "status") return new Response("robots status", { status: mode.status });
      return new Response(mode.body, { headers: { "content-type": "text/plain" } });
    }
    const fixture = /^\/pages\/([a-z0-9-]+\.(html|md|csv|json|txt))$/.exec(path);
    if (fixture?.[1]) {
      const types: Record<string, string> = {
        html: "text/html; charset=utf-8",
        md: "text/markdown; charset=utf-8",
        csv: "text/csv",
        json: "application/json",
        txt: "text/plain",
      };
      return new Response(readFixture(fixture[1]), { headers: { "content-type": types[fixture[2] ?? "html"] ?? "text/html" } });
    }
    // /redirect/3 → /redirect/2 → … → /pages/article.html
    const chain = /^\/redirect\/(\d+)$/.exec(path);
    if (chain?.[1]) {
      const left = Number(chain[1]);
      return new Response(null, { status: 302, headers: { location: left <= 1 ? "/pages/article.html" : `/redirect/${left - 1}` } });
    }
    if (path === "/redirect-to") {
      return new Response(null, { status: Number(url.searchParams.get("status") ?? "302"), headers: { location: url.searchParams.get("url") ?? "/" } });
    }
    if (path === "/gzip-bomb-sized") {
      // Eight members in one buffer: an announced length of ~8 KiB that inflates to 8 MiB.
      const members = Array.from({ length: 8 }, () => BOMB_MEMBER);
      const body = new Uint8Array(members.reduce((sum, member) => sum + member.byteLength, 0));
      members.reduce((offset, member) => (body.set(member, offset), offset + member.byteLength), 0);
      return new Response(body, { headers: { "content-type": "text/html", "content-encoding": "gzip" } });
    }
    if (path === "/gzip-bomb") {
      return endless(() => BOMB_MEMBER, { "content-type": "text/html", "content-encoding": "gzip" });
    }
    if (path === "/endless") {
      const line = encoder.encode(`${"<p>filler text</p>".repeat(1000)}\n`);
      return endless(() => line, { "content-type": "text/html" });
    }
    if (path === "/sized") {
      // text/plain body of exactly ?bytes= bytes
      const size = Number(url.searchParams.get("bytes") ?? "0");
      return new Response(new Uint8Array(size).fill(0x61), { headers: { "content-type": "text/plain" } });
    }
    if (path === "/slow-headers") return hang(request);
    if (path === "/slow-body") return stalledBody(request);
    if (path === "/legacy") {
      const encoding = url.searchParams.get("enc") ?? "windows-1252";
      const via = url.searchParams.get("via") ?? "header";
      const sample = LEGACY_SAMPLES[encoding] ?? "";
      const meta = via === "meta" ? `<meta charset="${encoding}">` : "";
      const page = `<!doctype html><html><head>${meta}<title>${sample}</title></head><body><article><p>${sample}</p><p>${sample}</p></article></body></html>`;
      const bytes = iconv.encode(page, encoding);
      const type = via === "header" ? `text/html; charset=${encoding}` : "text/html";
      return new Response(new Uint8Array(bytes), { headers: { "content-type": type } });
    }
    if (path === "/bom-utf8") {
      const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode("<p>Grüße aus Köln</p>")]);
      // The header's charset is wrong on purpose: a BOM wins (WHATWG).
      return new Response(bytes, { headers: { "content-type": "text/html; charset=windows-1252" } });
    }
    if (path === "/challenge/cloudflare") {
      return html(readFixture("challenge-cloudflare.html"), { status: 403, headers: { "cf-mitigated": "challenge" } });
    }
    if (path === "/challenge/cloudflare-200") return html(readFixture("challenge-cloudflare.html"));
    if (path === "/challenge/captcha") return html(readFixture("challenge-captcha.html"));
    if (path === "/doc.pdf") return new Response(MINIMAL_PDF, { headers: { "content-type": "application/pdf" } });
    if (path === "/pdf-as-html") return new Response(MINIMAL_PDF, { headers: { "content-type": "text/html" } });
    if (path === "/image.png") return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { "content-type": "image/png" } });
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (status?.[1]) return html(`<p>status ${status[1]}</p>`, { status: Number(status[1]) });
    // A page nested 500 deep (the parser's limit is 512): where a caller's selector with many descendant combinators explodes.
    if (path === "/deep") return html(`<html><body><main>${"<div>".repeat(500)}text${"</div>".repeat(500)}</main></body></html>`);
    if (path === "/echo-user-agent") return new Response(request.headers.get("user-agent") ?? "", { headers: { "content-type": "text/plain" } });
    if (path === "/gzip-page") {
      return new Response(new Uint8Array(gzipSync(readFixture("article.html"))), { headers: { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" } });
    }
    return html("<p>not found</p>", { status: 404 });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    ...(options.tls ? { tls: options.tls } : {}),
    fetch: route,
  });
  const scheme = options.tls ? "https" : "http";
  const origin = `${scheme}://127.0.0.1:${server.port}`;
  return {
    origin,
    port: server.port as number,
    url: (path) => `${origin}${path}`,
    hits: (path) => hits.get(path) ?? 0,
    get robots() {
      return state.robots;
    },
    set robots(mode: RobotsMode) {
      state.robots = mode;
    },
    lastHeaders: (path) => headersSeen.get(path),
    stop: async () => {
      await server.stop(true);
    },
  };
}
