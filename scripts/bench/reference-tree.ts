/**
 * A temporary git worktree of a revision, for benchmarks that set a revision beside the working
 * tree (read-ab.ts, extraction-ab.ts). It gets this tree's node_modules linked (the same
 * dependencies) and this tree's scripts/bench copied in (the same bench), so only src/ differs, and
 * the happy-dom patch when the revision has another one: then the revision gets its own copy of
 * each package it patches differently, with this tree's patch (as installed) reversed and the
 * revision's applied.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

export interface ReferenceTree {
  /** The worktree's directory. */
  dir: string;
  /** The revision's short name. */
  name: string;
  /** Packages the revision runs on its own patched copy of. */
  ownCopies: string[];
  remove(): void;
}

function git(...args: string[]): string {
  const run = Bun.spawnSync(["git", ...args], { cwd: root, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

/** Applies (or with `reverse`, takes back) a patch-package patch to the tree at `dir`. */
function applyPatch(dir: string, patch: string, reverse: boolean): void {
  const run = Bun.spawnSync(["patch", "-p1", "--quiet", "--forward", ...(reverse ? ["-R"] : [])], {
    cwd: dir,
    stdin: new TextEncoder().encode(patch),
    stderr: "pipe",
    stdout: "pipe",
  });
  if (run.exitCode !== 0) throw new Error(`patch ${reverse ? "-R " : ""}in ${dir}: ${run.stdout.toString()}${run.stderr.toString()}`);
}

/**
 * The reference's node_modules: this tree's, linked, unless the reference patches a dependency
 * differently. Then every other package is linked and each patched one is a copy with this tree's
 * patch reversed and the reference's applied.
 */
function linkDependencies(refTree: string): string[] {
  const patchDir = (tree: string) => join(tree, "patches");
  const patchFiles = (tree: string) => (existsSync(patchDir(tree)) ? readdirSync(patchDir(tree)).filter((f) => f.endsWith(".patch")) : []);
  const readPatch = (tree: string, file: string) => (existsSync(join(patchDir(tree), file)) ? readFileSync(join(patchDir(tree), file), "utf8") : "");
  // patch-package names a file <name>+<version>.patch, a scoped one @scope+name+<version>.patch.
  const packageOf = (file: string) => file.slice(0, file.lastIndexOf("+")).replace("+", "/");
  const changed = [...new Set([...patchFiles(root), ...patchFiles(refTree)])].filter((file) => readPatch(root, file) !== readPatch(refTree, file));
  const modules = join(refTree, "node_modules");
  if (changed.length === 0) {
    symlinkSync(join(root, "node_modules"), modules);
    return [];
  }
  const copied = new Set(changed.map(packageOf));
  mkdirSync(modules);
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry.startsWith("@") && [...copied].some((name) => name.startsWith(`${entry}/`))) {
      mkdirSync(join(modules, entry));
      for (const inner of readdirSync(join(root, "node_modules", entry))) {
        if (!copied.has(`${entry}/${inner}`)) symlinkSync(join(root, "node_modules", entry, inner), join(modules, entry, inner));
      }
    } else if (!copied.has(entry)) {
      symlinkSync(join(root, "node_modules", entry), join(modules, entry));
    }
  }
  for (const name of copied) cpSync(join(root, "node_modules", name), join(modules, name), { recursive: true, dereference: true });
  for (const file of changed) {
    const ours = readPatch(root, file);
    const theirs = readPatch(refTree, file);
    if (ours) applyPatch(refTree, ours, true);
    if (theirs) applyPatch(refTree, theirs, false);
  }
  return [...copied];
}

export function createReferenceTree(revision: string): ReferenceTree {
  const dir = join(mkdtempSync(join(tmpdir(), "tb-reference-")), "ref");
  git("worktree", "add", "--detach", dir, revision);
  const remove = () => {
    git("worktree", "remove", "--force", dir);
    rmSync(join(dir, ".."), { recursive: true, force: true });
  };
  try {
    const ownCopies = linkDependencies(dir);
    cpSync(join(root, "scripts", "bench"), join(dir, "scripts", "bench"), { recursive: true });
    if (ownCopies.length > 0) console.log(`${revision} patches ${ownCopies.join(", ")} differently: it runs on its own copy`);
    return { dir, name: git("rev-parse", "--short", revision), ownCopies, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * A module's path in a tree that may predate src/web/'s rooms (issue 19): `src/web/extract/extract.ts` in a
 * revision from before them is `src/web/extract.ts`.
 */
export function moduleIn(dir: string, path: string): string {
  const here = join(dir, path);
  if (existsSync(here)) return here;
  const flat = join(dir, path.replace(/^src\/web\/[a-z]+\//, "src/web/"));
  return existsSync(flat) ? flat : here;
}
