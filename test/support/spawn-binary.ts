/** Starts a Tollbooth command (binary or `bun src/main.ts`) on a free port and waits for /health. */
import type { Subprocess } from "bun";

export interface StartedProcess {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly baseUrl: string;
  /** Milliseconds from spawn to the first 200 from /health. */
  readonly firstResponseMs: number;
  stop(): Promise<void>;
}

/** `env` is added to this process's environment, or is the whole environment with `inheritEnv: false`. */
export async function startProcess(cmd: string[], options: { cwd: string; timeoutMs?: number; env?: Record<string, string>; inheritEnv?: boolean }): Promise<StartedProcess> {
  const started = performance.now();
  const env = options.inheritEnv === false ? options.env : { ...process.env, ...options.env };
  const proc = Bun.spawn(cmd, { cwd: options.cwd, stdout: "pipe", stderr: "pipe", stdin: "ignore", env });
  const reader = proc.stdout.getReader();
  let output = "";
  const deadline = started + (options.timeoutMs ?? 20_000);
  let baseUrl: string | undefined;
  while (!baseUrl) {
    if (performance.now() > deadline) {
      proc.kill();
      throw new Error(`no banner in time; output so far:\n${output}\n${await new Response(proc.stderr).text()}`);
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`process exited before listening (code ${await proc.exited}):\n${output}\n${await new Response(proc.stderr).text()}`);
    output += new TextDecoder().decode(value);
    baseUrl = /listening on (http:\/\/\S+)/.exec(output)?.[1];
  }
  reader.releaseLock();
  // keep draining stdout so the child never blocks on a full pipe
  void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  for (;;) {
    const ok = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (performance.now() > deadline) throw new Error("server never answered /health");
    await Bun.sleep(10);
  }
  return {
    proc,
    baseUrl,
    firstResponseMs: performance.now() - started,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
