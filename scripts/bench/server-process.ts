/**
 * Our server as an operator runs it, in its own process, for the load benches (soak, crash, slow
 * clients, request cost): `src/main.ts serve` under this Bun, or a compiled binary (`--binary`),
 * on a free loopback port, its log lines going to a file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

export interface ServerProcess {
  readonly pid: number;
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly base: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** SIGTERM and wait (a normal stop: logs flushed, database closed). */
  stop(): Promise<void>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

export interface StartOptions {
  readonly data: string;
  /** Where stdout and stderr go (appended). */
  readonly logPath: string;
  readonly args?: readonly string[];
  /** A compiled `tollbooth` to run instead of the source. */
  readonly binary?: string;
  readonly port?: number;
  /** Open-file limit of the server process (`ulimit -n`). */
  readonly fdLimit?: number;
  /** Variables added to the server's environment (e.g. JavaScriptCore's `BUN_JSC_*` options, read at its start). */
  readonly env?: Readonly<Record<string, string>>;
}

/** `K=V` pairs (a bench's repeated `--env K=V`) as an environment. */
export function parseEnvPairs(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf("=");
      if (at <= 0) throw new Error(`--env wants K=V, not ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** An environment's variables as ` K=V` words, for a bench's heading line. */
export function envLabel(env: Readonly<Record<string, string>>): string {
  return Object.entries(env).map(([name, value]) => ` ${name}=${value}`).join("");
}

/** Every value of a repeated `--NAME VALUE` on the command line. */
export function repeatedOption(name: string): string[] {
  return process.argv.flatMap((arg, at) => (arg === `--${name}` && process.argv[at + 1] !== undefined ? [process.argv[at + 1]!] : []));
}

/** Starts the server and waits until /health answers. */
export async function startServerProcess(options: StartOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const command = [
    ...(options.binary ? [options.binary] : [process.execPath, join(root, "src", "main.ts")]),
    "serve",
    "--host", "127.0.0.1",
    "--port", String(port),
    "--data", options.data,
    ...(options.args ?? []),
  ];
  const logFd = openSync(options.logPath, "a");
  const env = { ...process.env, ...options.env };
  const quoted = command.map((c) => `'${c.replaceAll("'", "'\\''")}'`).join(" ");
  const child = options.fdLimit
    ? spawn("sh", ["-c", `ulimit -n ${options.fdLimit} && exec ${quoted}`], { stdio: ["ignore", logFd, logFd], cwd: root, env })
    : spawn(command[0]!, command.slice(1), { stdio: ["ignore", logFd, logFd], cwd: root, env });
  closeSync(logFd);
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} (log: ${options.logPath})`);
    if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break;
    if (tries > 600) throw new Error(`server did not answer in 30 s (log: ${options.logPath})`);
    await Bun.sleep(50);
  }
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { pid: child.pid!, base, port, child, stop: () => end("SIGTERM"), kill: () => end("SIGKILL") };
}

/** The standard flags of a load bench: payments off, loopback pages allowed, no rate limit, no browser. */
export const loadBenchArgs = ["--payments", "off", "--unsafe-allow-loopback-targets", "--rate-limit-per-min", "1000000000", "--render", "off", "--max-queued-jobs", "10000"];
