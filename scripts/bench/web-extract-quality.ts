/**
 * web/extract quality (issue 31) on pages whose own metadata names the facts (scripts/bench/extract-set.ts:
 * headline, author, publication date, site name; the metadata is cut out of the page first). Each page
 * is read by the web engine as web/read reads it, then extracted twice with the same model in the
 * same run: by web/extract (a quote per value, checked against the text) and by a plain "model
 * fills the schema" call (the same structured call and page block, no quotes, no check).
 *
 * Prints, for both: field accuracy (correct values / facts), precision (correct / values returned),
 * tokens per page; for web/extract also the share of returned values whose quote is found at its
 * offsets in the text, the share of its model's wrong claims caught as unsupported, and the share of
 * its right claims lost to the check.
 *
 * The figures are quality figures only against a real model:
 *   bun scripts/bench/web-extract-quality.ts --llm-base-url https://api.x.ai/v1 --llm-api-key-file ~/.xai-key --llm-model grok-4-fast [--limit 120] [--concurrency 4]
 * `--loopback` runs the same plumbing end to end against a loopback model (@copilotkit/aimock) that
 * quotes the page's first line as the headline and makes up a site name: it checks the bench runs; its
 * figures say nothing about quality and are printed under a banner saying so.
 */
import { LLMock } from "@copilotkit/aimock";
import { createModelAccess } from "../../src/llm/configured-model.ts";
import { resolveLlm } from "../../src/llm/config.ts";
import type { ModelAccess } from "../../src/plugin/model-access.ts";
import { DATAMARK } from "../../src/llm/untrusted.ts";
import { readCallerSchema } from "../../src/grounding/caller-schema.ts";
import { groundPage } from "../../src/grounding/extract-endpoint.ts";
import { normalForm } from "../../src/grounding/quote-match.ts";
import { buildReadResult, createWebEngine } from "../../src/web/engine.ts";
import type { ReadResult } from "../../src/web/read-result.ts";
import { option } from "./dev-set.ts";
import { type BenchPage, loadExtractSet, type Truth } from "./extract-set.ts";

const shared = "/work/shared/bench/extraction";
const roots = option("data", `${shared}/data,${shared}/wide`).split(",");
const limit = Number(option("limit", "0"));
const concurrency = Number(option("concurrency", "4"));
const loopback = process.argv.includes("--loopback");

// ── the model ──────────────────────────────────────────────────────────────
let mock: LLMock | undefined;
let baseUrl = option("llm-base-url", "");
let model = option("llm-model", "");
if (loopback) {
  mock = new LLMock({ port: 0, host: "127.0.0.1" });
  mock.addFixture({ match: { predicate: () => true }, response: (req) => loopbackAnswer(req as unknown as { messages: { role: string; content: string }[] }) });
  await mock.start();
  baseUrl = `${mock.url}/v1`;
  model = "loopback";
}
if (!baseUrl || !model) {
  console.error("usage: bun scripts/bench/web-extract-quality.ts --llm-base-url URL --llm-model ID [--llm-api-key-file FILE] [--limit N] | --loopback");
  process.exit(2);
}
const apiKeyFile = option("llm-api-key-file", "");
const llmSettings = resolveLlm({ llmBaseUrl: baseUrl, llmModel: model, llmTimeoutSec: 120, llmMaxRetries: 2, ...(apiKeyFile ? { llmApiKeyFile: apiKeyFile } : {}) })!;
const web = createWebEngine({ userAgent: "Tollbooth-bench/1 (+https://example.invalid)", allowLoopbackTargets: false });
const llm: ModelAccess = createModelAccess(llmSettings, { web });

/** The loopback model: the first line of the page as the headline (with it as the quote), a site name the page does not hold, everything else null. */
function loopbackAnswer(req: { messages: { role: string; content: string }[] }) {
  const user = String(req.messages.find((m) => m.role === "user")?.content ?? "");
  const system = String(req.messages.find((m) => m.role === "system")?.content ?? "");
  const page = (/<UNTRUSTED_[0-9a-f]+ [^>]*>\n([\s\S]*)\n<\/UNTRUSTED_/.exec(user)?.[1] ?? "").split(DATAMARK).join(" ");
  const first = page.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  const quoted = system.includes("`quote`");
  const schema = JSON.parse(system.slice(system.indexOf("nothing else:\n") + "nothing else:\n".length)) as { properties: Record<string, unknown> };
  const answer = Object.fromEntries(
    Object.keys(schema.properties).map((k) => {
      // A made-up site name with a made-up quote, so the run also goes through the unsupported path.
      const claim = k === "headline" ? first : k === "site_name" ? "The Loopback Gazette" : null;
      return [k, quoted ? { value: claim, quote: claim } : claim];
    }),
  );
  const content = JSON.stringify(answer);
  return { content, usage: { prompt_tokens: Math.ceil((user.length + system.length) / 4), completion_tokens: Math.ceil(content.length / 4) } };
}

// ── scoring ────────────────────────────────────────────────────────────────
const tokens = (s: string) => normalForm(s).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

function tokenF1(a: string, b: string): number {
  const x = tokens(a);
  const y = tokens(b);
  if (x.length === 0 || y.length === 0) return 0;
  const pool = new Map<string, number>();
  for (const t of y) pool.set(t, (pool.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of x) {
    const n = pool.get(t) ?? 0;
    if (n > 0) {
      common++;
      pool.set(t, n - 1);
    }
  }
  if (common === 0) return 0;
  const p = common / x.length;
  const r = common / y.length;
  return (2 * p * r) / (p + r);
}

/** Whether a value states the fact: dates by day, names by containment, headlines by token F1 ≥ 0.8 (metadata titles often carry the site's name). */
function correct(field: keyof Truth, value: unknown, truth: string): boolean {
  if (typeof value !== "string" || value.trim() === "") return false;
  if (field === "published_date") {
    const day = /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0] ?? (Number.isNaN(Date.parse(value)) ? "" : new Date(Date.parse(value)).toISOString().slice(0, 10));
    return day === truth;
  }
  const v = normalForm(value);
  const t = normalForm(truth);
  if (field === "headline") return tokenF1(v, t) >= 0.8 || (v.length >= 12 && t.includes(v)) || (t.length >= 12 && v.includes(t));
  return v.includes(t) || t.includes(v);
}

// ── one page ───────────────────────────────────────────────────────────────
interface PageOutcome {
  facts: number;
  ours: { correct: number; returned: number; quotesChecked: number; wrongClaims: number; wrongCaught: number; rightClaims: number; rightLost: number; tokens: number; failed?: string };
  plain: { correct: number; returned: number; tokens: number; failed?: string };
}

const plainSystem = "You extract facts from one web page into JSON. When the page does not state a value, give null.";

async function readPage(page: BenchPage): Promise<ReadResult> {
  const bytes = new TextEncoder().encode(page.html);
  return buildReadResult({ bytes, headers: { "content-type": "text/html; charset=utf-8" }, finalUrl: `https://bench.invalid/${page.id}`, status: 200 }, { url: `https://bench.invalid/${page.id}`, format: "text", maxChars: 20_000 }, new Date().toISOString());
}

async function benchPage(page: BenchPage): Promise<PageOutcome> {
  const read = await readPage(page);
  const schema = readCallerSchema(page.schema);
  if (!schema.ok) throw new Error(`${page.id}: ${JSON.stringify(schema.issues)}`);
  const fields = Object.keys(page.truth) as (keyof Truth)[];
  const out: PageOutcome = {
    facts: fields.length,
    ours: { correct: 0, returned: 0, quotesChecked: 0, wrongClaims: 0, wrongCaught: 0, rightClaims: 0, rightLost: 0, tokens: 0 },
    plain: { correct: 0, returned: 0, tokens: 0 },
  };
  const signal = AbortSignal.timeout(300_000);
  const [ours, plain] = await Promise.allSettled([
    groundPage(read, { schema: page.schema }, { llm, signal }, { skill: "web.extract", maxUsdPerPage: 1 }),
    llm.structured<Record<string, unknown>>({ skill: "web.extract", system: plainSystem, prompt: "Fill the JSON Schema from the page in the data block.", data: read.text, schema: schema.data, limits: { maxSteps: 2, maxToolCalls: 0, maxUsd: 1 }, signal }),
  ]);
  if (ours.status === "fulfilled") {
    const { grounded, usage } = ours.value;
    out.ours.tokens = usage.input_tokens + usage.output_tokens;
    const chars = [...read.text];
    for (const e of grounded.evidence) {
      const spans = "derived" in e ? e.quotes : [e];
      if (spans.every((q) => chars.slice(q.start, q.end).join("") === q.quote)) out.ours.quotesChecked++;
    }
    for (const field of fields) {
      const value = grounded.data[field];
      const claim = grounded.unsupported.find((u) => u.path === `/${field}`)?.claim;
      if (value !== null && value !== undefined) {
        out.ours.returned++;
        if (correct(field, value, page.truth[field]!)) {
          out.ours.correct++;
          out.ours.rightClaims++;
        } else out.ours.wrongClaims++;
      } else if (claim !== undefined && claim !== null) {
        if (correct(field, claim, page.truth[field]!)) {
          out.ours.rightClaims++;
          out.ours.rightLost++;
        } else {
          out.ours.wrongClaims++;
          out.ours.wrongCaught++;
        }
      }
    }
  } else out.ours.failed = String((ours.reason as Error).message).slice(0, 120);
  if (plain.status === "fulfilled") {
    out.plain.tokens = plain.value.usage.input_tokens + plain.value.usage.output_tokens;
    for (const field of fields) {
      const value = plain.value.value[field];
      if (value === null || value === undefined) continue;
      out.plain.returned++;
      if (correct(field, value, page.truth[field]!)) out.plain.correct++;
    }
  } else out.plain.failed = String((plain.reason as Error).message).slice(0, 120);
  return out;
}

// ── the run ────────────────────────────────────────────────────────────────
const pages = loadExtractSet(roots, limit);
const facts: Record<string, number> = {};
for (const p of pages) for (const k of Object.keys(p.truth)) facts[k] = (facts[k] ?? 0) + 1;
console.log(`web/extract quality: ${pages.length} pages, ${Object.values(facts).reduce((a, b) => a + b, 0)} facts (${Object.entries(facts).map(([k, v]) => `${k} ${v}`).join(", ")}); model ${model} at ${baseUrl}`);
if (loopback) console.log("LOOPBACK MODEL: these figures check that the bench runs end to end; they are NOT quality figures. Run with --llm-base-url/--llm-model against a real model.");

const outcomes: PageOutcome[] = new Array(pages.length);
let next = 0;
let done = 0;
await Promise.all(
  Array.from({ length: Math.max(1, concurrency) }, async () => {
    for (let i = next++; i < pages.length; i = next++) {
      outcomes[i] = await benchPage(pages[i]!);
      if (++done % 20 === 0) console.error(`${done}/${pages.length} pages`);
    }
  }),
);

const sum = (f: (o: PageOutcome) => number) => outcomes.reduce((a, o) => a + f(o), 0);
const pct = (a: number, b: number) => (b === 0 ? "n/a" : `${((100 * a) / b).toFixed(1)} %`);
const totalFacts = sum((o) => o.facts);
const perPage = (f: (o: PageOutcome) => number, answered: (o: PageOutcome) => boolean) => {
  const kept = outcomes.filter(answered);
  return kept.length === 0 ? "n/a" : (kept.reduce((a, o) => a + f(o), 0) / kept.length).toFixed(0);
};
const rows = [
  ["", "web/extract (quotes checked)", "plain fill-the-schema"],
  ["field accuracy (correct / facts)", pct(sum((o) => o.ours.correct), totalFacts), pct(sum((o) => o.plain.correct), totalFacts)],
  ["precision (correct / values returned)", pct(sum((o) => o.ours.correct), sum((o) => o.ours.returned)), pct(sum((o) => o.plain.correct), sum((o) => o.plain.returned))],
  ["values returned", String(sum((o) => o.ours.returned)), String(sum((o) => o.plain.returned))],
  ["returned values whose quote is at its offsets", pct(sum((o) => o.ours.quotesChecked), sum((o) => o.ours.returned)), "no quotes"],
  ["model's wrong claims caught as unsupported", `${pct(sum((o) => o.ours.wrongCaught), sum((o) => o.ours.wrongClaims))} (${sum((o) => o.ours.wrongCaught)} of ${sum((o) => o.ours.wrongClaims)})`, "nothing checked"],
  ["model's right claims lost to the check", `${pct(sum((o) => o.ours.rightLost), sum((o) => o.ours.rightClaims))} (${sum((o) => o.ours.rightLost)} of ${sum((o) => o.ours.rightClaims)})`, ""],
  ["tokens per page answered (input + output)", perPage((o) => o.ours.tokens, (o) => !o.ours.failed), perPage((o) => o.plain.tokens, (o) => !o.plain.failed)],
  ["pages without an answer (model error, invalid JSON)", String(outcomes.filter((o) => o.ours.failed).length), String(outcomes.filter((o) => o.plain.failed).length)],
  ["pages web/extract would not charge (no value supported)", String(outcomes.filter((o) => !o.ours.failed && o.ours.returned === 0).length), ""],
];
const width = rows.map((r) => r.map((c) => c.length)).reduce((w, r) => w.map((x, i) => Math.max(x, r[i]!)));
for (const r of rows) console.log(r.map((c, i) => c.padEnd(width[i]!)).join("  "));
const failures = outcomes.map((o, i) => [pages[i]!.id, o.ours.failed ?? o.plain.failed] as const).filter(([, f]) => f);
if (failures.length > 0) console.log(`first failures: ${failures.slice(0, 5).map(([id, f]) => `${id}: ${f}`).join(" | ")}`);
await mock?.stop();
