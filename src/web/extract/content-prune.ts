/**
 * @module web/extract/content-prune — empties, before parsing, the subtrees the first main-content try
 * drops unseen: elements never content by tag or attributes (navigation, hidden, chrome roles,
 * asides, buttons...) and chrome named by class or id (comments, sidebars, sharing, related
 * lists...) holding neither an h1 nor anything named as the content. On a typical page that is
 * most of the markup, and happy-dom's cost is per node. Each such element stays, empty, with its
 * tag and attributes, so the walk sees the same elements in the same places and drops them as
 * before: the first try's result is the same as on the whole page. The second try ignores names,
 * so its copy empties only what is never content (`chromeNamed: false`); the last (whole body)
 * parses the page whole.
 *
 * Where a subtree ends is decided as happy-dom 21's HTMLParser builds its tree (the stack rules
 * of its parseEndOfStartTag and parseEndTag, with its element config), simulated on tag names
 * over the whole page. Anything it does not model (a tag it cannot read, `<!`/`<?` markup in the
 * body, a second html/head/body, an element moved out of a table) stops the pruning there: the
 * rest of the page is left as it is. One forward pass.
 */
import HTMLElementConfig from "happy-dom/lib/config/HTMLElementConfig.js";
import {
  CONTENT_NAMED, NEVER_CONTENT, NEVER_CONTENT_TAGS, classifyAttributes, isDroppedByName, marksContent, type AttributeLike,
} from "./content-signals.ts";
import { Finder, createQuoteFinders, isSpace, readStartTag, type StartTag } from "./content-tokens.ts";

type ElementConfig = (typeof HTMLElementConfig)[string];

const config = (name: string | undefined): ElementConfig | undefined => (name === undefined ? undefined : HTMLElementConfig[name]);

interface Region {
  /** The root's index on the stack. */
  depth: number;
  name: string;
  /** Index just past the root's start tag. */
  contentStart: number;
  /** Named as chrome (kept if it holds something named as content). */
  chrome: boolean;
  /** Holds something that keeps it (an h1, content by name, an attribute with an entity). */
  kept: boolean;
}

type Opened = "pushed" | "void" | "ignored" | "moved";

/** Attributes as the parser keeps them: the first of each name. */
function firstOfEachName(tag: StartTag): AttributeLike[] {
  if (!hasRepeatedName(tag.attributes)) return tag.attributes;
  const seen = new Set<string>();
  const attributes: AttributeLike[] = [];
  for (const attribute of tag.attributes) {
    if (seen.has(attribute.name)) continue;
    seen.add(attribute.name);
    attributes.push({ name: attribute.name, value: attribute.value });
  }
  return attributes;
}

/** Whether a name occurs twice (tags have a few attributes: pairs are cheaper than a set). */
function hasRepeatedName(attributes: readonly AttributeLike[]): boolean {
  for (let i = 1; i < attributes.length; i++) {
    const name = (attributes[i] as AttributeLike).name;
    for (let j = 0; j < i; j++) if ((attributes[j] as AttributeLike).name === name) return true;
  }
  return false;
}

/** The attributes classifyAttributes reads. */
const CLASSIFIED = new Set(["class", "id", "hidden", "aria-hidden", "style", "role", "itemprop"]);

/** Values with entities would need the parser's decoding to classify: such tags are not judged. */
function hasEntity(attributes: AttributeLike[]): boolean {
  return attributes.some((attribute) => CLASSIFIED.has(attribute.name) && attribute.value?.includes("&") === true);
}

/**
 * Whether a try drops this element unseen: "never" (whatever it holds), "chrome" (unless it holds content), or
 * no; "content" when it is not dropped and makes what it holds inContent (content-signals' isDroppedByName).
 */
function droppedKind(name: string, attributes: AttributeLike[], chromeNamed: boolean, inContent: boolean): "never" | "chrome" | "content" | undefined {
  const tag = name.toUpperCase();
  // The first h1 is the headline whatever its attributes, so no h1 is emptied (nor anything holding one).
  if (tag === "H1") return undefined;
  if (NEVER_CONTENT_TAGS.has(tag) || tag === "ASIDE") return "never";
  if (tag === "ARTICLE") return "content";
  if (attributes.length === 0) return undefined;
  // Undecoded names are not judged; counted as content, they keep what they hold from being emptied.
  if (hasEntity(attributes)) return "content";
  const flags = classifyAttributes(attributes);
  if (flags & NEVER_CONTENT) return "never";
  if (chromeNamed && isDroppedByName(flags, tag, inContent)) return "chrome";
  return marksContent(tag, flags) ? "content" : undefined;
}

/** The open elements (lower-case names; the document itself is not on it), as happy-dom's parser keeps them. */
class OpenElements {
  readonly names: string[] = [];
  /** Each open element's config (parallel to names), so the rules below look up only the new tag's. */
  private readonly configs: (ElementConfig | undefined)[] = [];
  /** Which open elements make what they hold inContent (parallel to names), and how many are open. */
  private readonly marks: boolean[] = [];
  contentOpen = 0;
  /** How many elements of each name are open: a name not open is answered without a scan. */
  private readonly openCounts = new Map<string, number>();
  /** Called with the stack height after every pop. */
  constructor(private readonly popped: (height: number) => void) {}

  private pop(): void {
    const name = this.names.pop() as string;
    this.configs.pop();
    if (this.marks.pop()) this.contentOpen--;
    this.openCounts.set(name, (this.openCounts.get(name) ?? 1) - 1);
    this.popped(this.names.length);
  }

  private push(name: string, nameConfig: ElementConfig | undefined): void {
    this.names.push(name);
    this.configs.push(nameConfig);
    this.marks.push(false);
    this.openCounts.set(name, (this.openCounts.get(name) ?? 0) + 1);
  }

  private isOpen(name: string): boolean {
    return (this.openCounts.get(name) ?? 0) > 0;
  }

  /** Marks the element last opened as one that makes what it holds inContent. */
  markTop(): void {
    if (this.marks[this.marks.length - 1] === false) {
      this.marks[this.marks.length - 1] = true;
      this.contentOpen++;
    }
  }

  /** A start tag (parseEndOfStartTag's stack rules). */
  open(name: string): Opened {
    const own = config(name);
    for (;;) {
      const parent = this.names[this.names.length - 1];
      const atRoot = parent === undefined;
      const parentConfig = this.configs[this.configs.length - 1];
      const added = own?.addPermittedParent ? config(own.addPermittedParent) : undefined;
      const closesParent =
        (own?.contentModel === "noFirstLevelSelfDescendants" && parent === name) ||
        parentConfig?.contentModel === "textOrComments" ||
        (parentConfig?.contentModel === "noForbiddenFirstLevelDescendants" && parentConfig.forbiddenDescendants?.includes(name) === true) ||
        (parentConfig?.contentModel === "permittedDescendants" &&
          parentConfig.permittedDescendants?.includes(name) !== true &&
          (!own || !own.addPermittedParent || !added ||
            (added.permittedParents !== undefined && !added.permittedParents.includes(parent as string)) ||
            (added.permittedDescendants !== undefined && !added.permittedDescendants.includes(name))));
      if (closesParent) {
        if (parentConfig?.contentModel === "permittedDescendants" && parentConfig.moveForbiddenDescendant && !parentConfig.moveForbiddenDescendant.exclude.includes(name)) {
          return "moved";
        }
        this.pop();
      } else if (own?.contentModel === "noSelfDescendants" && this.isOpen(name)) {
        while (this.names.length > 0) {
          const top = this.names[this.names.length - 1];
          this.pop();
          if (top === name) break;
        }
      } else if (own?.permittedParents && !own.permittedParents.includes(parent as string)) {
        const wrapper = own.addPermittedParent;
        const wrapperConfig = config(wrapper);
        if (
          !wrapper || !wrapperConfig ||
          (wrapperConfig.permittedParents !== undefined && !wrapperConfig.permittedParents.includes(parent as string)) ||
          (wrapperConfig.permittedDescendants !== undefined && !wrapperConfig.permittedDescendants.includes(name))
        ) {
          return "ignored";
        }
        this.push(wrapper, wrapperConfig);
      } else {
        break;
      }
      if (atRoot) break;
    }
    if (own?.contentModel === "noDescendants") return "void";
    this.push(name, own);
    return "pushed";
  }

  /** An end tag (parseEndTag): closes up to the nearest open element of that name, if any. */
  close(name: string): void {
    // The scan below stops at the element it closes, so it costs what the pops cost.
    if (!this.isOpen(name)) return;
    const index = this.names.lastIndexOf(name);
    if (index < 0) return;
    while (this.names.length > index) this.pop();
  }
}

/** `</name>` as happy-dom's markup pattern reads an end tag (`<\/([^\s/!>?]+)\s*>`), or undefined. */
function readEndTag(html: string, at: number): { name: string; end: number } | undefined {
  let i = at + 2;
  while (i < html.length) {
    const c = html.charCodeAt(i);
    if (isSpace(c) || c === 47 || c === 33 || c === 62 || c === 63) break;
    i++;
  }
  if (i === at + 2) return undefined;
  const name = html.slice(at + 2, i).toLowerCase();
  while (i < html.length && isSpace(html.charCodeAt(i))) i++;
  return html.charCodeAt(i) === 62 ? { name, end: i + 1 } : undefined;
}

/** Whether happy-dom reads a start tag at `at`: `<` then anything but a space, `/`, `!`, `>` or `?`. */
function startsTag(html: string, at: number): boolean {
  const c = html.charCodeAt(at + 1);
  return !(Number.isNaN(c) || isSpace(c) || c === 47 || c === 33 || c === 62 || c === 63);
}

export interface PruneOptions {
  /** Empty chrome named by class or id too, as the first try drops it (default); false for the try that ignores names. */
  chromeNamed?: boolean;
}

/** HTML (already trimmed) with the subtrees a main-content try drops unseen emptied (see the module comment). */
export function pruneDroppedSubtrees(html: string, options: PruneOptions = {}): string {
  const chromeNamed = options.chromeNamed ?? true;
  const out: string[] = [];
  const quotes = createQuoteFinders(html);
  const lessThan = new Finder(html, "<");
  let copied = 0;
  let bodyDepth = -1;
  let region: Region | undefined;
  /** Where the tag being handled starts (a region closed by it ends there). */
  let at = 0;
  let stopped = false;

  const stack = new OpenElements((height) => {
    if (region && height <= region.depth) {
      if (!region.kept) {
        // The tag closing it (its end tag, an ancestor's, or a start tag that implies it) stays: it closes the emptied root alike.
        out.push(html.slice(copied, region.contentStart));
        copied = at;
      }
      region = undefined;
    }
    if (bodyDepth >= 0 && height <= bodyDepth) stopped = true;
  });

  for (at = lessThan.next(0); at >= 0 && !stopped; ) {
    const next = html.charCodeAt(at + 1);
    if (next === 47) {
      const endTag = readEndTag(html, at);
      if (endTag) {
        stack.close(endTag.name);
        at = lessThan.next(endTag.end);
      } else {
        at = lessThan.next(at + 1);
      }
      continue;
    }
    if (next === 33 || next === 63) {
      if (bodyDepth >= 0) break;
      at = lessThan.next(at + 1);
      continue;
    }
    if (!startsTag(html, at)) {
      at = lessThan.next(at + 1);
      continue;
    }
    const tag = readStartTag(html, at, quotes);
    if (typeof tag === "number" || /[!?]/.test(tag.name)) break;
    const name = tag.name;
    if (bodyDepth >= 0 && (name === "html" || name === "head" || name === "body")) break;
    const attributes = firstOfEachName(tag);
    const opened = stack.open(name);
    if (stopped) break;
    if (region) {
      // Still open after the tag's implicit closes: the tag is inside it.
      if (opened === "moved") region.kept = true; // placed before a table, maybe outside the region
      else if (opened !== "ignored" && !region.kept) {
        if (name === "h1") region.kept = true;
        else if (region.chrome && attributes.length > 0 && (hasEntity(attributes) || classifyAttributes(attributes) & CONTENT_NAMED)) region.kept = true;
      }
    } else if (opened === "pushed") {
      if (name === "body" && bodyDepth < 0) bodyDepth = stack.names.length - 1;
      else if (bodyDepth >= 0) {
        const kind = droppedKind(name, attributes, chromeNamed, stack.contentOpen > 0);
        if (kind === "content") stack.markTop();
        else if (kind) region = { depth: stack.names.length - 1, name, contentStart: tag.end, chrome: kind === "chrome", kept: false };
      }
    }
    at = lessThan.next(tag.end);
  }
  if (copied === 0) return html;
  out.push(html.slice(copied));
  return out.join("");
}
