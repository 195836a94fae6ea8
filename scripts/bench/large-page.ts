/**
 * A seeded generated article page of ~600 KB (navigation, paragraphs, lists, tables, a sidebar,
 * scripts): the large page of soak.ts and large-page-memory.ts.
 */
/** A seeded generator, so every run serves the same pages. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = "tollbooth agent evidence payment settlement network extraction paragraph article market harbour river council budget research figure report season weather archive library station".split(" ");

/** A ~600 KB article page: navigation, a long article of paragraphs, lists and tables, a sidebar, scripts. */
export function largePage(seed: number, bytes = 600_000): Uint8Array<ArrayBuffer> {
  const next = random(seed);
  const pick = () => words[Math.floor(next() * words.length)]!;
  const sentence = () => Array.from({ length: 8 + Math.floor(next() * 14) }, pick).join(" ") + ".";
  const parts = [
    `<!doctype html><html><head><meta charset="utf-8"><title>Soak page ${seed}</title><meta name="description" content="${sentence()}"><style>${".c{color:red}".repeat(500)}</style></head><body>`,
    `<header><nav>${Array.from({ length: 60 }, (_, i) => `<a href="/n/${i}">${pick()}</a>`).join(" ")}</nav></header><main><article><h1>${sentence()}</h1>`,
  ];
  let size = parts.join("").length;
  let n = 0;
  while (size < bytes - 20_000) {
    const block =
      n % 25 === 0
        ? `<h2>${sentence()}</h2>`
        : n % 17 === 0
          ? `<table>${Array.from({ length: 6 }, () => `<tr><td>${pick()}</td><td>${Math.floor(next() * 1e6)}</td><td>${pick()}</td></tr>`).join("")}</table>`
          : n % 11 === 0
            ? `<ul>${Array.from({ length: 5 }, () => `<li><a href="/a/${Math.floor(next() * 1e6)}">${sentence()}</a></li>`).join("")}</ul>`
            : `<p>${Array.from({ length: 3 + Math.floor(next() * 5) }, sentence).join(" ")}</p>`;
    parts.push(block);
    size += block.length;
    n++;
  }
  parts.push(`</article><aside>${Array.from({ length: 100 }, (_, i) => `<a href="/s/${i}">${sentence()}</a>`).join("<br>")}</aside></main>`);
  parts.push(`<script>${"var x=1;".repeat(1500)}</script><footer>${sentence()}</footer></body></html>`);
  return new TextEncoder().encode(parts.join(""));
}

