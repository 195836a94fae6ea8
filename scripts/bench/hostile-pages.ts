/**
 * Extraction time on pages built to be slow (deep nesting, stray end tags, thousands of siblings or link lines),
 * the working tree beside a revision (reference-tree.ts) in the same run, each page in a fresh process so one
 * slow page cannot slow the next. A page's time should grow with its size, not with its size times its depth:
 * each is a few hundred KB, as a fetched page can be.
 *
 *   node_modules/.bin/bun scripts/bench/hostile-pages.ts [--ref REV] [--markdown]
 */
import { join } from "node:path";
import { option } from "./dev-set.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";

const PAGES: Record<string, string> = {
  "20,000 nested divs, 60,000 stray </b>": "<div>".repeat(20_000) + "</b>".repeat(60_000),
  "20,000 nested spans, 60,000 stray </div>": "<span>".repeat(20_000) + "</div>".repeat(60_000),
  "3,000 nested comment threads": `<body>${'<div class="comment"><p>x y z</p>'.repeat(3_000)}${"</div>".repeat(3_000)}`,
  "3,000 nested sidebars": `<body>${'<div class="sidebar"><p>some text here, with commas, and more</p>'.repeat(3_000)}`,
  "3,000 nested content blocks": `<body>${'<div class="content"><p>some text here, with commas, and more</p>'.repeat(3_000)}`,
  "2,000 nested tables": `<body>${"<table><tr><td><p>some text here, with commas, and more</p>".repeat(2_000)}`,
  "20,000 sibling content blocks": `<body><div>${'<div class="content"><p>some text here, with commas, and more and more and more</p></div>'.repeat(20_000)}`,
  "20,000 'Comments' headings": `<body><div>${"<h2>Comments</h2><p>some text here, with commas, and more and more and more</p>".repeat(20_000)}`,
  "an ordered list of 20,000 items": `<body><div class="content"><p>${"Intro, with commas, and words. ".repeat(4)}</p><ol>${"<li>item text number here</li>".repeat(20_000)}</ol></div>`,
  "20,000 captions beside one picture": `<body><div class="content"><p>${"Prose, with commas, and words. ".repeat(8)}</p><img src="/a.jpg">${'<span class="caption">the dam at dusk</span>'.repeat(20_000)}</div>`,
  "3,000 nested captions and pictures": `<body><div class="content"><p>${"Prose, with commas, and words. ".repeat(8)}</p>${'<div class="caption"><img src="/a.jpg"><p>the dam at dusk, with commas</p><figure><figcaption>the crest</figcaption>'.repeat(3_000)}`,
  "30,000 link lines": `<body><div><p>${"word ".repeat(200)}</p>${'<span><a href="/x">link text here</a></span><br>'.repeat(30_000)}`,
};

if (process.argv[2] === "--child") {
  const [, , , tree, name, markdown] = process.argv;
  const { extractHtmlSync } = await import(moduleIn(tree as string, "src/web/extract/extract.ts"));
  const started = performance.now();
  let outcome = "ok";
  try {
    extractHtmlSync({ html: PAGES[name as string], url: "https://example.com/", markdown: markdown === "1" });
  } catch (error) {
    outcome = String((error as { code?: string }).code ?? error);
  }
  console.log(JSON.stringify({ ms: performance.now() - started, outcome }));
  process.exit(0);
}

const ref = option("ref", "");
const markdown = process.argv.includes("--markdown") ? "1" : "0";
const root = join(import.meta.dir, "..", "..");
const reference = ref ? createReferenceTree(ref) : undefined;
const trees: [string, string][] = [["working tree", root], ...(reference ? [[`ref ${reference.name}`, reference.dir] as [string, string]] : [])];

function run(tree: string, name: string): string {
  const child = Bun.spawnSync([process.execPath, import.meta.path, "--child", tree, name, markdown], { stderr: "pipe", timeout: 600_000 });
  try {
    const { ms, outcome } = JSON.parse(child.stdout.toString()) as { ms: number; outcome: string };
    return `${ms.toFixed(0).padStart(7)} ms${outcome === "ok" ? "" : ` (${outcome})`}`;
  } catch {
    return "  no answer (killed after 600 s?)";
  }
}

try {
  console.log(`markdown: ${markdown === "1" ? "yes" : "no"}; ${trees.map(([label]) => label).join(" | ")}`);
  for (const name of Object.keys(PAGES)) {
    console.log(`${name.padEnd(42)} ${(PAGES[name] as string).length.toString().padStart(8)} chars  ${trees.map(([, tree]) => run(tree, name)).join("  |")}`);
  }
} finally {
  reference?.remove();
}
