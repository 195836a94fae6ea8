/**
 * What some tests need beyond Node and npm (issue 41), in one table: each requirement, how it is
 * found, and how to get it. A test file asks `skipWithout(id, what)` at collection time; when the
 * requirement is missing it prints ONE line (what is skipped, why, how to install it), records the
 * skip for the run's summary (scripts/test.ts prints it), and the file skips those tests.
 *
 * Under CI (CI=true: .ci/run installs everything) nothing may be missing: the file gets a failing
 * test that names what is missing instead of a silent skip.
 *
 * TOLLBOOTH_TEST_HIDE=chromium,postgres,… makes this module report those requirements missing, so
 * the skipping path can be run on a machine that has them (nothing else reads it).
 */
import { spawnSync } from "node:child_process";
import { accessSync, appendFileSync, constants, existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "bun:test";
import { findBrowser, USUAL_BROWSER_PATHS } from "../../src/web/render/browser-discovery.ts";

interface Requirement {
  /** Why it cannot be used here, or undefined when it can. */
  readonly probe: () => string | undefined;
  /** How to get it on Debian/Ubuntu (the commands .ci/run runs). */
  readonly install: string;
}

/** Debian keeps PostgreSQL's binaries off PATH: the newest version's folder under /usr/lib/postgresql. */
export function postgresBinDir(): string | undefined {
  const onPath = spawnSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" }).stdout?.trim();
  if (onPath) return join(onPath, "..");
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin/pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

function probeChromium(): string | undefined {
  return findBrowser().found ? undefined : `no Chromium at ${USUAL_BROWSER_PATHS[0]} or the other usual paths`;
}

function probePostgres(): string | undefined {
  if (!postgresBinDir()) return "PostgreSQL is not installed (no pg_ctl on PATH or in /usr/lib/postgresql/*/bin)";
  if (process.getuid?.() === 0 && spawnSync("id", ["-u", "postgres"]).status !== 0) return "running as root but there is no postgres user to run PostgreSQL as";
  return undefined;
}

function probePythonCryptography(): string | undefined {
  const run = spawnSync("python3", ["-c", "import cryptography"], { encoding: "utf8" });
  if (run.error) return `no python3 (${run.error.message})`;
  return run.status === 0 ? undefined : "python3 cannot import the cryptography package";
}

function probeNetworkNamespace(): string | undefined {
  const run = spawnSync("unshare", ["-n", "sh", "-c", "ip link set lo up"], { encoding: "utf8" });
  if (run.error) return `unshare is unavailable (${run.error.message})`;
  return run.status === 0 ? undefined : `unshare -n with ip link failed (needs root and iproute2): ${run.stderr.trim()}`;
}

function probeSearx(): string | undefined {
  try {
    accessSync("/usr/bin/searx-run", constants.X_OK);
  } catch {
    return "Debian's searx is not installed (no runnable /usr/bin/searx-run)";
  }
  return existsSync("/usr/share/python3-searx") ? undefined : "Debian's searx is not installed whole (no /usr/share/python3-searx)";
}

function probeSystemdAnalyze(): string | undefined {
  return spawnSync("systemd-analyze", ["--version"]).status === 0 ? undefined : "no systemd-analyze on PATH";
}

const requirements = {
  chromium: { probe: probeChromium, install: "apt-get install chromium" },
  postgres: { probe: probePostgres, install: "apt-get install postgresql" },
  "python-cryptography": { probe: probePythonCryptography, install: "apt-get install python3-cryptography (or pip install cryptography)" },
  "network-namespace": { probe: probeNetworkNamespace, install: "run as root with util-linux's unshare and apt-get install iproute2" },
  "systemd-analyze": { probe: probeSystemdAnalyze, install: "apt-get install systemd" },
  searx: { probe: probeSearx, install: "apt-get install searx" },
  curl: { probe: () => (Bun.which("curl") ? undefined : "no curl on PATH"), install: "apt-get install curl" },
} satisfies Record<string, Requirement>;

export type RequirementId = keyof typeof requirements;

/** How to get `id` (for the run's summary). */
export function installHint(id: RequirementId): string {
  return requirements[id].install;
}

const hidden = new Set((process.env.TOLLBOOTH_TEST_HIDE ?? "").split(",").map((name) => name.trim()).filter(Boolean));
const problems = new Map<RequirementId, string | undefined>();

/** Why `id` cannot be used on this machine, or undefined when it can (probed once per process). */
export function requirementProblem(id: RequirementId): string | undefined {
  if (hidden.has(id)) return `hidden by TOLLBOOTH_TEST_HIDE=${process.env.TOLLBOOTH_TEST_HIDE}`;
  if (!problems.has(id)) problems.set(id, requirements[id].probe());
  return problems.get(id);
}

/** One line of the run's skip log (TOLLBOOTH_TEST_SKIP_LOG, written by this module, read by scripts/test.ts). */
export interface SkipRecord {
  readonly file: string;
  readonly requirement: RequirementId;
  readonly what: string;
  readonly problem: string;
}

const repoRoot = join(import.meta.dir, "../..");

/**
 * True when the tests described by `what` must be skipped because `id` is missing: the one line
 * is printed and the skip recorded. Under CI a failing test takes the skip's place.
 */
export function skipWithout(id: RequirementId, what: string): boolean {
  const problem = requirementProblem(id);
  if (problem === undefined) return false;
  const { install } = requirements[id];
  const record: SkipRecord = { file: relative(repoRoot, Bun.main), requirement: id, what, problem };
  console.warn(`SKIPPED ${what}: needs ${id}: ${problem}. To run them: ${install}`);
  const log = process.env.TOLLBOOTH_TEST_SKIP_LOG;
  if (log) appendFileSync(log, `${JSON.stringify(record)}\n`);
  if (process.env.CI === "true") {
    test(`${what} (needs ${id})`, () => {
      throw new Error(`CI runs every test, but ${id} is missing: ${problem}. ${install}`);
    });
  }
  return true;
}

/** The browser the tests drive (call only where skipWithout("chromium", …) did not skip). */
export function chromiumPath(): string {
  const browser = findBrowser();
  if (!browser.found || hidden.has("chromium")) throw new Error("no Chromium: guard the test with skipWithout(\"chromium\", …)");
  return browser.path;
}

/** The PostgreSQL binaries' folder (call only where skipWithout("postgres", …) did not skip). */
export function postgresBin(): string {
  const problem = requirementProblem("postgres");
  if (problem) throw new Error(problem);
  return postgresBinDir()!;
}
