/**
 * @module web/extract/source-text — text, Markdown, CSV and JSON sources: text in canonical form (JSON
 * pretty-printed first), Markdown as the source says it (or fenced for CSV/JSON), title and
 * headings from Markdown `#` lines.
 */
import { normalizeText } from "../text/canonical-text.ts";
import type { Heading, Link } from "./extract.ts";
import { makeWellFormed } from "../text/text-output.ts";

export type PlainKind = "text" | "markdown" | "csv" | "json";

export interface PlainExtraction {
  title: string;
  text: string;
  markdown: string;
  headings: Heading[];
  links: Link[];
  warnings: string[];
}

function readMarkdownHeadings(source: string): Heading[] {
  const headings: Heading[] = [];
  let fenced = false;
  for (const line of source.split("\n")) {
    if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (match?.[1] && match[2]) headings.push({ level: match[1].length, text: match[2] });
  }
  return headings;
}

function readMarkdownLinks(source: string, base: string): Link[] {
  const links = new Map<string, Link>();
  for (const match of source.matchAll(/\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    try {
      const url = new URL(match[2] ?? "", base);
      if ((url.protocol === "http:" || url.protocol === "https:") && !links.has(url.href)) {
        links.set(url.href, { text: (match[1] ?? "").trim(), url: url.href });
      }
    } catch {
      // not a URL
    }
  }
  return [...links.values()];
}

function fence(language: string, body: string): string {
  const longest = Math.max(2, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
  const marker = "`".repeat(longest + 1);
  return `${marker}${language}\n${body}\n${marker}`;
}

export function extractPlain(kind: PlainKind, decoded: string, url: string): PlainExtraction {
  const source = makeWellFormed(decoded).replace(/\r\n?/g, "\n");
  const warnings: string[] = [];
  switch (kind) {
    case "json": {
      let pretty: string;
      try {
        pretty = JSON.stringify(JSON.parse(source), null, 2);
      } catch {
        pretty = source;
        warnings.push("The source is labelled JSON but does not parse; its text is returned as sent.");
      }
      const text = normalizeText(pretty);
      return { title: "", text, markdown: fence("json", pretty.trim()), headings: [], links: [], warnings };
    }
    case "csv": {
      const text = normalizeText(source);
      return { title: "", text, markdown: fence("csv", source.trim()), headings: [], links: [], warnings };
    }
    case "markdown": {
      const headings = readMarkdownHeadings(source);
      const markdown = source.replace(/[ \t]+$/gm, "").replace(/\n{3,}/g, "\n\n").trim();
      return {
        title: headings[0]?.text ?? "",
        text: normalizeText(source),
        markdown,
        headings,
        links: readMarkdownLinks(source, url),
        warnings,
      };
    }
    case "text": {
      const text = normalizeText(source);
      return { title: "", text, markdown: text, headings: [], links: [], warnings };
    }
  }
}
