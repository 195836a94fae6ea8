/**
 * @module llm/answer-urls — a model's answer may only cite URLs it was given: the pages read, the
 * text of those pages, or the buyer's own prompt. Any other URL is removed (and counted), so an
 * answer never sends a buyer to a link the model invented or a page slipped in.
 */
const urlPattern = /\bhttps?:\/\/[^\s<>"'`\\)\]}]+/gi;

function trimUrl(url: string): string {
  return url.replace(/[.,;:!?]+$/, "");
}

/** Comparable form: no fragment, no trailing slash, lowercase scheme and host. */
function key(url: string): string {
  try {
    const u = new URL(url);
    u.hash = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return url.replace(/\/$/, "");
  }
}

export function urlsIn(text: string): string[] {
  return [...text.matchAll(urlPattern)].map((m) => trimUrl(m[0]));
}

export const removedUrlMark = "[unverified link removed]";

/** The answer with every URL not found in `known` (texts and URLs) replaced, and the removed URLs. */
export function keepKnownUrls(answer: string, known: readonly string[]): { text: string; removed: string[] } {
  const allowed = new Set<string>();
  for (const source of known) {
    for (const url of urlsIn(source)) allowed.add(key(url));
    if (/^https?:\/\//i.test(source)) allowed.add(key(source));
  }
  const removed: string[] = [];
  const text = answer.replace(urlPattern, (raw) => {
    const url = trimUrl(raw);
    if (allowed.has(key(url))) return raw;
    removed.push(url);
    return removedUrlMark + raw.slice(url.length);
  });
  return { text, removed };
}
