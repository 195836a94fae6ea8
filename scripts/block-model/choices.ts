/**
 * Named training choices of the block model (training.ts TrainOptions), judged leave-one-source-out by
 * loso-proxy.ts (fast) and scripts/bench/extraction-loso.ts --choice NAME (real extractions), and used by
 * scripts/train-block-model.ts --choice NAME. SHIPPED_CHOICE is the one the shipped model is trained with.
 */
import { option } from "../bench/dev-set.ts";
import type { TrainOptions } from "./training.ts";

/** The training choices this loop knows, by name. */
export const CHOICES: Record<string, TrainOptions> = {
  "all-words": { criterion: "mean" },
  "edges-words": { gate: "edges", criterion: "maximin", tolerance: 0 },
  "edges-names": { gate: "edges", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "edges-names-mean": { gate: "edges", words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  "tail-names": { gate: "tail", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "tail-words": { gate: "tail", criterion: "maximin", tolerance: 0 },
  "after-names": { gate: "after", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "after-words": { gate: "after", criterion: "maximin", tolerance: 0 },
  "after-names-mean": { gate: "after", words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  // Gated by kind as well (block-filter.ts blockKind; scripts/block-model/categories.ts: how each source's truth treats each kind).
  "widgets-names": { gate: "tail", kinds: ["link", "social", "comment", "related"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "link-names": { kinds: ["link"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "no-caption-meta-names": { gate: "tail", kinds: ["link", "social", "comment", "related", "tail", "island", "chrome"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "no-caption-meta-words": { gate: "tail", kinds: ["link", "social", "comment", "related", "tail", "island", "chrome"], criterion: "maximin", tolerance: 0 },
  "tail-kinds-names": { gate: "tail", kinds: ["social", "comment", "related", "tail", "island", "chrome"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "after-widgets-names": { gate: "after", kinds: ["link", "social", "comment", "related"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "phrase-names": { kinds: ["phrase"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "phrase-tail-names": { gate: "tail", kinds: ["phrase"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  // Agreed scoring (training.ts keptKinds): each training source fitted and scored only on the kinds its truth calls boilerplate.
  "agreed-phrase-names": { kinds: ["phrase"], agreed: true, words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "agreed-tail-names": { gate: "tail", agreed: true, words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "agreed-all-names": { agreed: true, words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "all-names": { words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  // Fourth try: the page's own repeated structures and main column (block-features.ts sibling_items, outside_prose_cluster).
  "repeated-names": { kinds: ["repeated"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "outside-names": { gate: "outside", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "outside-widgets-names": { gate: "outside", kinds: ["repeated", "related", "link", "social", "comment", "island", "chrome"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "repeated-link-names": { kinds: ["repeated", "link"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "agreed-outside-names": { gate: "outside", agreed: true, words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "outside-words": { gate: "outside", criterion: "maximin", tolerance: 0 },
  "agreed-repeated-names": { kinds: ["repeated", "link", "related"], agreed: true, words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  // Sixth try: only on pages the publisher declares an article (content-declared.ts), fitted there too or on every page ("fit-all").
  "declared-all-names": { pages: "declared", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-all-words": { pages: "declared", criterion: "maximin", tolerance: 0 },
  "declared-edges-names": { pages: "declared", gate: "edges", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-tail-names": { pages: "declared", gate: "tail", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-after-names": { pages: "declared", gate: "after", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-phrase-names": { pages: "declared", kinds: ["phrase"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-outside-names": { pages: "declared", gate: "outside", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-fit-all-names": { pages: "declared", fitPages: "all", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-fit-all-tail-names": { pages: "declared", fitPages: "all", gate: "tail", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-fit-all-phrase-names": { pages: "declared", fitPages: "all", kinds: ["phrase"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  // Only on pages declaring it in schema.org terms or with a publication time (og:type "article" alone is not enough).
  "stated-all-names": { pages: "stated", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-tail-names": { pages: "stated", gate: "tail", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-edges-names": { pages: "stated", gate: "edges", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-outside-names": { pages: "stated", gate: "outside", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-names": { pages: "stated", fitPages: "all", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-tail-names": { pages: "stated", fitPages: "all", gate: "tail", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-edges-names": { pages: "stated", fitPages: "all", gate: "edges", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-edges-words": { pages: "stated", fitPages: "all", gate: "edges", criterion: "maximin", tolerance: 0 },
  "stated-fit-all-after-names": { pages: "stated", fitPages: "all", gate: "after", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-outside-names": { pages: "stated", fitPages: "all", gate: "outside", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-names": { pages: "stated", fitPages: "all", kinds: ["phrase"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  // Eighth try: captions, the largest kind kept on modern news, on pages stating an article only.
  "stated-fit-all-phrase-caption-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-caption-names": { pages: "stated", fitPages: "all", kinds: ["caption"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-meta-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "meta"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-link-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "link"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-related-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "related"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-repeated-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "repeated"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-tail-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "tail"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-head-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "head"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-island-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "island"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-fit-all-phrase-caption-names": { pages: "declared", fitPages: "all", kinds: ["phrase", "caption"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-names-mean": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption"], words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  "stated-phrase-caption-names": { pages: "stated", kinds: ["phrase", "caption"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-words": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption"], criterion: "maximin", tolerance: 0 },
  "stated-fit-all-phrase-caption-social-names": { pages: "stated", fitPages: "all", kinds: ["phrase", "caption", "social"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-edges-names-mean": { pages: "stated", fitPages: "all", gate: "edges", words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  "stated-fit-all-tail-names-mean": { pages: "stated", fitPages: "all", gate: "tail", words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  "stated-fit-all-names-mean": { pages: "stated", fitPages: "all", words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  "stated-fit-all-edges-names-l2": { pages: "stated", fitPages: "all", gate: "edges", words: false, l2: 1e-4, criterion: "maximin", tolerance: 0 },
  "stated-fit-all-edges-widgets-names": { pages: "stated", fitPages: "all", gate: "edges", kinds: ["phrase", "link", "social", "comment", "related", "repeated", "tail", "island", "chrome"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "stated-agreed-edges-names": { pages: "stated", fitPages: "all", gate: "edges", agreed: true, words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-fit-all-edges-names": { pages: "declared", fitPages: "all", gate: "edges", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "declared-fit-all-outside-names": { pages: "declared", fitPages: "all", gate: "outside", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  // Ninth try: a second model for pages stating the article in JSON-LD, as today's publishers do (block-filter.ts BlockModel.also).
  "jsonld-fit-all-names": { pages: "json-ld", fitPages: "all", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "jsonld-fit-all-names-mean": { pages: "json-ld", fitPages: "all", words: false, l2: 1e-3, criterion: "mean", tolerance: 0 },
  "jsonld-all-names": { pages: "json-ld", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "jsonld-fit-all-edges-names": { pages: "json-ld", fitPages: "all", gate: "edges", words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
  "jsonld-fit-all-words": { pages: "json-ld", fitPages: "all", criterion: "maximin", tolerance: 0 },
  "jsonld-fit-all-phrase-caption-link-names": { pages: "json-ld", fitPages: "all", kinds: ["phrase", "caption", "link"], words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
};

for (const also of ["jsonld-fit-all-names", "jsonld-fit-all-names-mean", "jsonld-all-names", "jsonld-fit-all-edges-names", "jsonld-fit-all-words", "jsonld-fit-all-phrase-caption-link-names"]) {
  CHOICES[`stated-fit-all-phrase-caption-names+${also}`] = { ...CHOICES["stated-fit-all-phrase-caption-names"], also: CHOICES[also] };
}

/** The ninth try's choice: the eighth's (phrase lines and captions on pages stating an article) joined by a model of every kind on pages stating it in JSON-LD, accepted leave-one-source-out with human truths deciding (docs/extraction-model.md). */
export const SHIPPED_CHOICE = "stated-fit-all-phrase-caption-names+jsonld-fit-all-names";
/**
 * The measured-only sources the shipped model trains on after all: chaos-read (modern news, human truth, read and
 * studied; chaos-unread and big9 stay unseen). The scripts' --train-on default; `--train-on none` trains without.
 */
export const SHIPPED_TRAIN_ON = ["chaos-read"];

/** The sources the command line's `--train-on` names (`none`: none), SHIPPED_TRAIN_ON when it names none. */
export function trainOnSources(): string[] {
  return option("train-on", SHIPPED_TRAIN_ON.join(",")).split(",").filter((name) => name !== "" && name !== "none");
}
