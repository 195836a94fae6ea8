/**
 * web.brief through the service: the extractive engine without a model (fixed page), the model
 * engine against a loopback Chat Completions server, and the sentence splitter.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { splitSentences } from "../../src/brief/sentences.ts";
import { DATAMARK } from "../../src/llm/untrusted.ts";
import { offeredTools, requestText, startChatServer } from "../support/chat-server.ts";
import { type TestService, testService } from "../support/service.ts";
import { startSiteServer } from "../support/site-server.ts";
import { until } from "../jobs/job-skills.ts";

type Json = Record<string, any>;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const paragraphs = [
  "Acme Cloud is a hosting service for small teams that launched in 2019 in Berlin.",
  "Dr. Jane Smith founded the company after ten years at a large U.S. provider, e.g. as head of operations.",
  "The service runs containers, managed databases and object storage in three regions.",
  "Pricing starts at 5 dollars a month for the smallest plan, and every plan is billed by the hour.",
  "The free tier includes one container and one gigabyte of storage with no time limit.",
  "Customers in Europe can keep their data in the Frankfurt region to meet local rules.",
  "Support answers by email within one business day on every plan, and by phone on the business plan.",
  "In 2024 the company reported twelve thousand paying customers and a yearly revenue of 9 million euros.",
  "The status page lists two outages in the last year, each shorter than one hour.",
  "Backups of managed databases are taken every night and kept for fourteen days.",
  "A command line tool and a web console manage every resource, and an API covers the same actions.",
  "The company plans to open a region in North America next year, according to its blog.",
];
const html = `<!doctype html><html lang="en"><head><title>Acme Cloud</title></head><body><main><h1>About Acme Cloud</h1>${paragraphs.map((p) => `<p>${p}</p>`).join("")}</main></body></html>`;

function site() {
  const s = startSiteServer();
  cleanups.push(() => s.stop());
  s.set("/about", html);
  return s;
}

async function start(argv: string[] = []): Promise<TestService> {
  const s = await testService(["--unsafe-allow-loopback-targets", "--rate-limit-per-min", "10000", ...argv]);
  cleanups.push(() => s.close());
  return s;
}

async function brief(s: TestService, body: Json): Promise<Json> {
  const accepted = (await (await s.request("/v1/jobs", { method: "POST", json: { skill: "web.brief", ...body } })).json()) as Json;
  expect(accepted.status).toBe("queued");
  return until(async () => {
    const job = (await (await s.request(`/v1/jobs/${accepted.job_id}`)).json()) as Json;
    return ["completed", "failed", "expired"].includes(job.status) ? job : undefined;
  }, 10_000);
}

async function pageText(s: TestService, url: string): Promise<string> {
  const read = (await (await s.request("/v1/web/read", { method: "POST", json: { url } })).json()) as Json;
  return read.text;
}

describe("sentences", () => {
  it("merges back what Intl.Segmenter splits after abbreviations and initials, and keeps offsets", () => {
    const text = "Dr. Smith met Mr. J. R. Jones at 5 p.m. at the U.S. Capitol.\nHeading\nPrices rose 3.5% vs. last year. See Fig. 2 for details.";
    const sentences = splitSentences(text);
    expect(sentences.map((s) => s.text)).toEqual(["Dr. Smith met Mr. J. R. Jones at 5 p.m. at the U.S. Capitol.", "Heading", "Prices rose 3.5% vs. last year.", "See Fig. 2 for details."]);
    for (const s of sentences) expect(text.slice(s.start, s.end)).toBe(s.text);
  });
});

describe("web.brief without a model (extractive engine)", () => {
  it("answers 8 ranked sentences in page order with offsets into the page text, and says no model summarised them", async () => {
    const web = site();
    const s = await start();
    const job = await brief(s, { url: web.url("/about") });
    expect(job.status).toBe("completed");
    const r = job.result;
    expect(r.engine).toBe("extractive");
    expect(r.bullets.length).toBe(8);
    expect(r.caveats.join(" ")).toContain("No language model summarised this page");
    const text = await pageText(s, web.url("/about"));
    const starts = r.bullets.map((b: Json) => b.sentences[0].start);
    expect(starts).toEqual([...starts].sort((a: number, b: number) => a - b));
    for (const b of r.bullets) expect(text.slice(b.sentences[0].start, b.sentences[0].end)).toBe(b.text);
    // The abbreviation sentence stays whole wherever it is chosen.
    for (const b of r.bullets) expect(b.text).not.toBe("Dr.");
  });

  it("favours the focus terms", async () => {
    const web = site();
    const s = await start();
    const plain = (await brief(s, { url: web.url("/about") })).result.bullets.map((b: Json) => b.text);
    const focused = (await brief(s, { url: web.url("/about"), focus: "backups outages status" })).result.bullets.map((b: Json) => b.text);
    const about = (list: string[]) => list.filter((t) => /backups|outages/i.test(t)).length;
    expect(about(focused)).toBe(2);
    expect(about(focused)).toBeGreaterThanOrEqual(about(plain));
  });

  it("gives 8 bullets whenever the page has 8 sentences, short ones included when the prose runs out", async () => {
    const web = site();
    web.set("/terse", `<html><head><title>Terse</title></head><body><p>${["Open daily.", "Cash only.", "No pets.", "Free wifi.", "Parking behind.", "Kids welcome.", "Closed Mondays in winter and on public holidays.", "Call ahead."].join(" ")}</p></body></html>`);
    const s = await start();
    const r = (await brief(s, { url: web.url("/terse") })).result;
    expect(r.bullets.length).toBe(8);
  });

  it("says so when the page has fewer than 8 sentences", async () => {
    const web = site();
    web.set("/short", `<html><head><title>Short</title></head><body><p>${paragraphs.slice(0, 3).join(" ")}</p></body></html>`);
    const s = await start();
    const r = (await brief(s, { url: web.url("/short") })).result;
    expect(r.bullets.length).toBe(3);
    expect(r.caveats.join(" ")).toContain("only 3 sentences");
  });
});

describe("web.brief with a model", () => {
  it("sends the top sentences to one tool-less call, spotlighted, and maps the bullets' sentence numbers to offsets", async () => {
    const web = site();
    const bullets = Array.from({ length: 8 }, (_, i) => ({ text: `Point ${i + 1}.`, sentences: [i + 1] }));
    const chat = startChatServer(() => ({ content: JSON.stringify({ bullets, caveats: ["Revenue figures are not sourced."] }), usage: { prompt_tokens: 900, completion_tokens: 120 } }));
    cleanups.push(() => chat.stop());
    const s = await start(["--llm-base-url", chat.baseUrl, "--llm-model", "brief-model"]);
    const job = await brief(s, { url: web.url("/about") });
    expect(job.status).toBe("completed");
    const r = job.result;
    expect(r.engine).toBe("model");
    expect(r.bullets.map((b: Json) => b.text)).toEqual(bullets.map((b) => b.text));
    expect(r.caveats).toEqual(["Revenue figures are not sourced."]);
    expect(r.usage).toMatchObject({ model: "brief-model", steps: 1, input_tokens: 900, output_tokens: 120 });
    expect(chat.requests.length).toBe(1);
    expect(offeredTools(chat.requests[0]!)).toBe(false);
    expect(requestText(chat.requests[0]!)).toContain(`[1]${DATAMARK}`);
    const text = await pageText(s, web.url("/about"));
    // Bullet n rests on the n-th of the sentences sent, which are in page order.
    const sent = requestText(chat.requests[0]!);
    const first = /\[1\]ˆ([^\n]*)/.exec(sent)![1]!.replaceAll(DATAMARK, " ");
    expect(text.slice(r.bullets[0].sentences[0].start, r.bullets[0].sentences[0].end)).toBe(first);
  });

  it("falls back to the extractive engine, saying so, when the model's answer never fits the schema", async () => {
    const web = site();
    const chat = startChatServer(() => ({ content: '{"bullets": []}' }));
    cleanups.push(() => chat.stop());
    const s = await start(["--llm-base-url", chat.baseUrl, "--llm-model", "brief-model"]);
    const r = (await brief(s, { url: web.url("/about") })).result;
    expect(chat.requests.length).toBe(2);
    expect(r.engine).toBe("extractive");
    expect(r.bullets.length).toBe(8);
    expect(r.caveats.join(" ")).toContain("MODEL_OUTPUT_INVALID");
  });
});
