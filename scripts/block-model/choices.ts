/**
 * Named training choices of the block model (training.ts TrainOptions), judged leave-one-source-out by
 * loso-proxy.ts (fast) and scripts/bench/extraction-loso.ts --choice NAME (real extractions), and used by
 * scripts/train-block-model.ts --choice NAME. SHIPPED_CHOICE is the one the shipped model is trained with.
 */
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
};

export const SHIPPED_CHOICE = "tail-names";
