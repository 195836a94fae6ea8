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
  "all-names": { words: false, l2: 1e-3, criterion: "maximin", tolerance: 0 },
};

export const SHIPPED_CHOICE = "tail-names";
