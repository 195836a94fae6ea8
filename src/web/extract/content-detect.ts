/**
 * @module web/extract/content-detect — finds a page's main content: scores every element in one walk
 * (content-score), chooses the block and the siblings that make the content (content-choose), gathers them
 * and cleans chrome from inside them (content-clean). What each step may do is said at the top of its module;
 * this one only runs them in order.
 */
import type { DomChanges } from "./content-changes.ts";
import { createElement, parentElementOf, type Element } from "./dom.ts";
import { filterBlocks } from "./block-filter.ts";
import { chooseContent } from "./content-choose.ts";
import { cleanContent } from "./content-clean.ts";
import { ownProse, walkDocument, type DetectOptions, type Info } from "./content-score.ts";

export type { DetectOptions } from "./content-score.ts";

/**
 * The main content of the page whose body is `body`, as an element of it (the container itself, or a new
 * div holding it and the siblings that join it), cleaned of chrome; undefined when nothing scored. Mutates
 * the tree, each change recorded in `changes` (so it can be undone).
 */
export function detectMainContent(body: Element, options: DetectOptions, changes: DomChanges): Element | undefined {
  const walk = walkDocument(body, options);
  const choice = chooseContent(walk, body, options.title ?? "");
  if (!choice) return undefined;
  const { top, members, lead } = choice;
  let root: Element;
  if (members.length === 1) {
    root = top.element;
  } else {
    root = createElement("div");
    const parent = parentElementOf(top.element) as Element;
    changes.insert(parent, root, members[0] as Element);
    for (const member of members) changes.append(root, member);
  }
  const first = root.children[0] ?? null;
  for (const element of lead) changes.move(root, element, first);
  const prose = members.reduce((sum, member) => sum + ownProse(walk.infos.get(member) as Info), 0);
  cleanContent(walk, root, prose, changes, options.statesArticleInJsonLd);
  if (options.blocks) filterBlocks(root, body, options.title ?? "", options.blocks, changes);
  return root;
}
