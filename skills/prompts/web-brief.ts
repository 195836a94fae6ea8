/** What web.brief asks of the model: the system text and the prompt that point at the numbered sentences in the data block. */
export function briefSystem(bullets: number): string {
  return (
    `You write a briefing of a web page in exactly ${bullets} bullets. Each bullet is one short, factual sentence in your own words that rests only on the numbered page sentences you list for it. ` +
    "Caveats name what the page does not settle (missing dates, claims without sources, marketing language, a page cut short); give none when there is nothing to say."
  );
}

export function briefPrompt(pageName: string, focus: string | undefined): string {
  return `Page: ${pageName}${focus ? `\nFocus the briefing on: ${focus}` : ""}\nThe page's most central sentences, numbered, in page order, are in the data block.`;
}
