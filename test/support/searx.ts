/**
 * @module test/support/searx — a real searx (Debian's `searx` package) on a loopback port, whose two
 * engines (searx's own json_engine) ask a loopback fixture source of ours: searx's parsing, fan-out,
 * merging and de-duplication run for real, on answers the test chooses per query word.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

const SEARX_RUN = "/usr/bin/searx-run";
const SEARX_TEMPLATES = "/usr/share/python3-searx";

/** One hit as a json_engine source answers it. */
export interface SourceHit {
  readonly url: string;
  readonly title: string;
  readonly content: string;
}

/** What each of the two engines answers for a query: hits, or an HTTP status. */
export interface SourceAnswer {
  readonly alpha: readonly SourceHit[] | number;
  readonly beta: readonly SourceHit[] | number;
}

export interface Searx {
  /** The instance's base URL (for --search-url). */
  readonly url: string;
  /** What the engines answer for queries containing `word` (the first word of the query that has an answer). */
  answer(word: string, answer: SourceAnswer): void;
  /** Queries the source was asked, by engine. */
  readonly asked: { alpha: string[]; beta: string[] };
  stop(): Promise<void>;
}

function settingsYaml(port: number, sourceOrigin: string): string {
  const engine = (name: string, path: string, shortcut: string) => `
  - name: ${name}
    engine: json_engine
    shortcut: ${shortcut}
    categories: general
    enable_http: true
    search_url: ${sourceOrigin}/${path}?q={query}
    results_query: results
    url_query: url
    title_query: title
    content_query: content`;
  return `general:
  debug: false
  instance_name: "tollbooth-test"
  enable_stats: false
search:
  safe_search: 0
  autocomplete: ""
  default_lang: ""
  ban_time_on_fail: 0
  max_ban_time_on_fail: 0
server:
  port: ${port}
  bind_address: "127.0.0.1"
  secret_key: "tollbooth-test-only"
  base_url: false
  image_proxy: false
  http_protocol_version: "1.0"
  method: "GET"
ui:
  static_path: "${SEARX_TEMPLATES}/static"
  templates_path: "${SEARX_TEMPLATES}/templates"
  default_theme: oscar
  default_locale: ""
outgoing:
  request_timeout: 3.0
  pool_connections: 10
  pool_maxsize: 10
locales:
  en: English
doi_resolvers:
  oadoi.org: "https://oadoi.org/"
default_doi_resolver: "oadoi.org"
engines:${engine("alpha", "alpha", "fxa")}${engine("beta", "beta", "fxb")}
`;
}

export async function startSearx(): Promise<Searx> {
  const answers = new Map<string, SourceAnswer>();
  const asked = { alpha: [] as string[], beta: [] as string[] };
  const source = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      const engine = url.pathname === "/alpha" ? "alpha" : url.pathname === "/beta" ? "beta" : undefined;
      if (!engine) return new Response("no such engine", { status: 404 });
      const query = url.searchParams.get("q") ?? "";
      asked[engine].push(query);
      const word = query.split(/\s+/).find((w) => answers.has(w));
      const answer = word ? answers.get(word)![engine] : [];
      if (typeof answer === "number") return new Response("source failure", { status: answer });
      return Response.json({ results: answer });
    },
  });
  const dir = mkdtempSync(join(tmpdir(), "tb-searx-"));
  // searx binds the port from its settings: a port taken meanwhile shows as no answer, and the start is tried again.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const settings = join(dir, "settings.yml");
    writeFileSync(settings, settingsYaml(port, `http://127.0.0.1:${source.port}`));
    // Its log goes to a file: searx logs every request, and a pipe nobody reads would fill and stall it.
    const log = join(dir, `searx-${attempt}.log`);
    const child = Bun.spawn([SEARX_RUN], { env: { ...process.env, SEARX_SETTINGS_PATH: settings }, stdout: "ignore", stderr: Bun.file(log) });
    const url = `http://127.0.0.1:${port}`;
    if (await answersWithin(url, child, 30_000)) {
      return {
        url,
        answer: (word, answer) => void answers.set(word, answer),
        asked,
        async stop() {
          child.kill();
          await child.exited;
          await source.stop(true);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill();
    await child.exited;
    const stderr = existsSync(log) ? readFileSync(log, "utf8") : "";
    if (attempt >= 3) {
      await source.stop(true);
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`searx did not start on ${url}:\n${stderr.slice(-2000)}`);
    }
  }
}

/** Whether searx answers its JSON API before `ms` pass (false as soon as the process exits). */
async function answersWithin(url: string, child: ReturnType<typeof Bun.spawn>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    try {
      const response = await fetch(`${url}/search?q=ping&format=json`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await Bun.sleep(200);
  }
  return false;
}
