/**
 * Every command the README and docs/ show is run, so none can go stale. Each ```sh or ```bash block
 * of README.md and docs/*.md runs unless the line right above it is `<!-- not run: REASON -->`, and
 * the reason must say why (the internet, root, a real chain, …). A file's blocks run in order as one
 * bash script (`set -euo pipefail`; what one block starts or sets, the next one sees, as in a
 * reader's terminal), in a scratch folder that links the checkout's files, so what the commands
 * write stays out of the checkout. One change is made to the text: port 8402, the default that
 * another server on this machine may hold, becomes a free port (written 8402, and the default through
 * TOLLBOOTH_PORT). Jobs a script leaves running are
 * stopped when it ends, and its whole process group when it runs out of time.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repoRoot } from "./support/binary-build.ts";
import { freePort } from "./support/ports.ts";
import { skipWithout } from "./support/requirements.ts";

const docFiles = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
const NOT_RUN = /^<!-- not run: (.+) -->$/;

interface Block {
  readonly file: string;
  readonly line: number;
  readonly code: string;
  /** Why the block is not run; undefined when it runs. */
  readonly notRun: string | undefined;
}

function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block is never closed`);
    if (fence[1] === "sh" || fence[1] === "bash") {
      blocks.push({ file, line: i + 1, code: lines.slice(i + 1, end).join("\n"), notRun: NOT_RUN.exec(lines[i - 1] ?? "")?.[1] });
    }
    i = end;
  }
  return blocks;
}

const blocks = docFiles.flatMap(shellBlocks);
const scratch = mkdtempSync(join(tmpdir(), "tb-doc-commands-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder that holds the checkout's files as links, and nothing a previous command wrote. */
function scratchCheckout(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  for (const entry of readdirSync(repoRoot)) {
    if (entry.startsWith(".") || ["data", "try", "dist", "my-plugins", "my-data"].includes(entry)) continue;
    symlinkSync(join(repoRoot, entry), join(dir, entry));
  }
  return dir;
}

/** Runs `script` with bash in `cwd`, in a process group of its own that is killed at `timeoutMs`. */
function runScript(script: string, cwd: string, port: number, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), npm_config_update_notifier: "false", npm_config_fund: "false" };
  for (const key of Object.keys(env)) if (key.startsWith("TOLLBOOTH_")) delete env[key];
  env.TOLLBOOTH_PORT = String(port); // a server started without --port listens where the commands look
  const child = spawn("bash", ["-c", script], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    output += `\n[timed out after ${timeoutMs} ms]`;
    killGroup();
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      clearTimeout(timer);
      // Whatever the script left behind (a server whose stop failed) goes with its group.
      setTimeout(() => {
        killGroup();
        resolve({ code, output });
      }, 200);
    });
  });
}

describe("the documentation's shell blocks", () => {
  it("are found in README.md and docs/", () => {
    // The tour (seven blocks) and the command line's block run; only the suite itself is not.
    expect(blocks.filter((b) => b.file === "README.md" && b.notRun === undefined).length).toBeGreaterThanOrEqual(8);
    expect(blocks.filter((b) => b.file.startsWith("docs/")).length).toBeGreaterThanOrEqual(10);
  });

  it("say why when they are not run, and no marker stands anywhere but right above a block", () => {
    for (const block of blocks.filter((b) => b.notRun !== undefined)) {
      expect(`${block.file}:${block.line} ${block.notRun!.length >= 30 ? "has a reason" : `reason too short: ${block.notRun}`}`).toBe(`${block.file}:${block.line} has a reason`);
    }
    for (const file of docFiles) {
      const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (line.includes("not run:")) expect(`${file}:${i + 1} ${NOT_RUN.test(line) && /^```(sh|bash)$/.test(lines[i + 1] ?? "") ? "marks a block" : "stands alone"}`).toBe(`${file}:${i + 1} marks a block`);
      });
    }
  });
});

describe("the README and docs/", () => {
  it("keep the README to 400 lines", () => {
    expect(readFileSync(join(repoRoot, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(400);
  });

  it("link only to files that exist", () => {
    for (const file of docFiles) {
      const text = readFileSync(join(repoRoot, file), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        expect(`${file} → ${target} ${existsSync(join(repoRoot, dirname(file), target!)) ? "exists" : "is missing"}`).toBe(`${file} → ${target} exists`);
      }
    }
  });
});

/** What a file's run must print besides exiting 0, so a block that quietly does nothing fails. */
const printed: Record<string, readonly string[]> = {
  "README.md": ["LOCAL-TRY MODE (--local-try)", '"local_try"', '"error":"PAYMENT_REQUIRED"', '"success": true', "VALID: 1 signed result, every check holds", "settled  eip155:31337"],
  "docs/plugins.md": ['"skill":"word.count","result":{"words":3,"lines":1,"characters":19}', "text-shout.ts", "page-title.ts"],
};

// The commands use curl, as a reader's terminal would; a machine without it cannot run them.
const noCurl = skipWithout("curl", "the documented commands (README, docs/)");

for (const file of docFiles) {
  const runnable = blocks.filter((b) => b.file === file && b.notRun === undefined);
  if (runnable.length === 0) continue;
  it.skipIf(noCurl)(`${file}: its ${runnable.length} runnable block${runnable.length === 1 ? "" : "s"} run in order and succeed`, async () => {
    const port = await freePort();
    const body = runnable.map((b) => `# ${b.file}:${b.line}\n${b.code.replaceAll("8402", String(port))}`).join("\n\n");
    const script = `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${body}\n`;
    const { code, output } = await runScript(script, scratchCheckout(file.replace(/\W/g, "-")), port, 280_000);
    if (code !== 0) console.error(`${file} printed:\n${output.slice(-6000)}`);
    expect(code).toBe(0);
    for (const text of printed[file] ?? []) expect(output).toContain(text);
    if (file === "README.md") expect(output.split("VALID: 1 signed result").length - 1).toBe(3); // verify twice over HTTP (server keys, saved keys), once over MCP
  }, 300_000);
}
