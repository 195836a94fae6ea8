/** Buys an 8-bullet briefing of one public page with caveats: summarised by the operator's model, or quoted by the extractive engine without one. */
import { ApiError, briefBulletCount, briefModelSentences, defineSkill, extractiveBrief, ModelUsageSchema, refuseByPolicy, selectSentences, t } from "tollbooth";
import { briefPrompt, briefSystem } from "./prompts/web-brief.ts";

const skill = "web.brief";
const priceUsd = 0.06;
const pageChars = 100_000;

const Offsets = t.Array(t.Object({ start: t.Integer({ minimum: 0 }), end: t.Integer({ minimum: 0 }) }, { additionalProperties: false }), {
  description: "The page sentences the bullet rests on: offsets into the page's text (UTF-16 code units, end exclusive), the text being what web/read returns for the URL (text_sha256).",
});

/** The one http(s) URL a text names (trailing punctuation left out), or undefined when it names none or several. */
function onlyUrl(text: string): string | undefined {
  const urls = new Set([...text.matchAll(/https?:\/\/[^\s<>"'`]+/gi)].map((m) => m[0].replace(/[.,;:!?)\]}]+$/, "")));
  return urls.size === 1 ? [...urls][0] : undefined;
}

const noModelCaveat = "No language model summarised this page: each bullet is a sentence quoted from it, chosen by an extractive ranking (engine: extractive).";

export default defineSkill({
  skill,
  summary: "An 8-bullet briefing of one public page with caveats and, for every bullet, the offsets of the page sentences it rests on.",
  description:
    "Reads the page through the same guard, robots.txt and extraction as web/read, ranks its sentences (LexRank-style centrality, a boost for `focus` terms, MMR against repetition) " +
    "and hands the top 60 to one tool-less model call that writes 8 bullets tied to those sentences. Without a model on the server the extractive engine answers: " +
    "the 8 best sentences in page order, with a caveat saying so. `engine` says which answered.",
  input: t.Object(
    {
      url: t.String({ minLength: 1, maxLength: 2048, description: "Public http(s) URL." }),
      focus: t.Optional(t.String({ minLength: 1, maxLength: 300, description: "What the briefing should favour, e.g. 'pricing and limits'." })),
    },
    { additionalProperties: false },
  ),
  output: t.Object(
    {
      ok: t.Literal(true),
      skill: t.Literal(skill),
      url: t.String(),
      final_url: t.String(),
      title: t.String(),
      text_sha256: t.String({ description: "SHA-256 of the page text the offsets point into." }),
      bullets: t.Array(t.Object({ text: t.String(), sentences: Offsets }, { additionalProperties: false }), { maxItems: briefBulletCount }),
      caveats: t.Array(t.String()),
      engine: t.Union([t.Literal("model"), t.Literal("extractive")]),
      usage: t.Optional(ModelUsageSchema),
    },
    { additionalProperties: false },
  ),
  price: String(priceUsd),
  async: true,
  // A text-only A2A message naming one page is a request to brief it.
  freeText: { input: (text) => { const url = onlyUrl(text); return url ? { url } : undefined; }, takes: "a text with one URL in it: that page is briefed" },
  timeoutMs: 180_000,
  errors: ["POLICY_REFUSED", "URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "UNSUPPORTED_CONTENT_TYPE", "PDF_NOT_SUPPORTED_HERE", "BOT_CHALLENGE", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "MODEL_REFUSED"],
  examples: [
    {
      input: { url: "https://example.com/", focus: "what the domain is for" },
      output: {
        ok: true,
        skill,
        url: "https://example.com/",
        final_url: "https://example.com/",
        title: "Example Domain",
        text_sha256: "0".repeat(64),
        bullets: [{ text: "This domain is for use in illustrative examples in documents.", sentences: [{ start: 15, end: 77 }] }],
        caveats: ["The page has only 2 sentences, so the briefing has fewer than 8 bullets.", noModelCaveat],
        engine: "extractive",
      },
    },
  ],
  engine: (llm) => {
    const model = llm.model(skill);
    return llm.configured && model ? { available: true, engine: "model", model } : { available: true, engine: "extractive" };
  },
  admit({ focus }) {
    refuseByPolicy(focus);
  },
  async run({ url, focus }, ctx) {
    const page = await ctx.web.read({ url, format: "text", maxChars: pageChars }, ctx.signal);
    const language = page.language || "en";
    const base = { ok: true as const, skill: "web.brief" as const, url, final_url: page.final_url, title: page.title, text_sha256: page.text_sha256 };
    const caveats: string[] = [];
    if (page.truncated) caveats.push(`The page is longer than ${pageChars} characters; only its first ${pageChars} were read.`);
    const extractive = (reason: string) => {
      const brief = extractiveBrief(page.text, { ...(focus ? { focus } : {}), language });
      if (brief.bullets.length < briefBulletCount) caveats.push(`The page has only ${brief.sentenceCount} sentences, so the briefing has ${brief.bullets.length} bullets.`);
      return { ...base, bullets: brief.bullets, caveats: [...caveats, reason], engine: "extractive" as const };
    };
    if (!ctx.llm.configured) return extractive(noModelCaveat);

    const { chosen } = selectSentences(page.text, { count: briefModelSentences, language, ...(focus ? { focus } : {}) });
    if (chosen.length === 0) return extractive(noModelCaveat);
    const wanted = Math.min(briefBulletCount, chosen.length);
    const schema = t.Object(
      {
        bullets: t.Array(
          t.Object(
            { text: t.String({ minLength: 1, maxLength: 500 }), sentences: t.Array(t.Integer({ minimum: 1, maximum: chosen.length }), { minItems: 1, maxItems: 6 }) },
            { additionalProperties: false },
          ),
          { minItems: wanted, maxItems: wanted },
        ),
        caveats: t.Array(t.String({ maxLength: 300 }), { maxItems: 4 }),
      },
      { additionalProperties: false },
    );
    let answer: { bullets: { text: string; sentences: number[] }[]; caveats: string[] };
    let usage;
    try {
      const out = await ctx.llm.structured<typeof answer>({
        skill,
        system: briefSystem(wanted),
        prompt: briefPrompt(page.title || page.final_url, focus),
        data: chosen.map((s, i) => `[${i + 1}] ${s.text}`).join("\n"),
        schema,
        limits: { maxSteps: 2, maxToolCalls: 0, maxUsd: priceUsd * 0.3 },
        signal: ctx.signal,
      });
      answer = out.value;
      usage = out.usage;
    } catch (error) {
      if (ctx.signal.aborted || (error instanceof ApiError && error.code === "MODEL_REFUSED")) throw error;
      const code = error instanceof ApiError ? error.code : "MODEL_ERROR";
      ctx.log.warn("web.brief: the model failed, the extractive engine answered", { code });
      return extractive(`The language model failed (${code}), so the extractive engine answered: each bullet is a sentence quoted from the page.`);
    }
    const bullets = answer.bullets.map((b) => ({
      text: b.text,
      sentences: [...new Set(b.sentences)].sort((x, y) => x - y).map((n) => ({ start: chosen[n - 1]!.start, end: chosen[n - 1]!.end })),
    }));
    const all: string[] = [...caveats, ...answer.caveats];
    return { ...base, bullets, caveats: all, engine: "model" as const, usage: { ...usage } };
  },
});
