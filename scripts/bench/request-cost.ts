/**
 * A request's fixed cost (issues 15 §6, 27): bare Elysia beside ours on `GET /health` and
 * `GET /v1/capabilities` in the same run, with wrk (Debian: `apt-get install -y wrk`) or, when
 * wrk is missing, an in-process load generator (slower: it shares this process's cores).
 *
 * Each server is its own process: the bare app (Elysia: `/health` answering a small JSON object
 * of the same shape as ours, and `/v1/capabilities` answering the very bytes and content type
 * our server answers there, read from it at start and served as ready bytes, so that route is
 * like for like), and ours started as an operator does (`src/main.ts serve`, payments off, a file
 * database, its log lines on stdout going to a file). The targets take turns, round by round, so
 * drift of a shared machine falls on all of them alike; medians are printed with each round and
 * the ratio ours / bare on the same route.
 *
 *   node_modules/.bin/bun scripts/bench/request-cost.ts [--rounds 5] [--seconds 4] [--connections 50]
 *     [--ours-args "--log-requests errors"] (extra flags for our server)
 *     [--ref-root /tmp/ref] (another checkout served beside ours, same flags: an A/B in one run)
 *     [--duties] (also bare Elysia doing by hand only the duties every answer of ours has under
 *     `--log-requests all`: request id, Host check, CORS and X-Request-Id headers, the client's address
 *     and one access line; the floor under ours with that flag. By default (`calls`) a free document
 *     answered below 400 is counted, not logged, and its client is not looked up)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { median, option } from "./dev-set.ts";

const root = join(import.meta.dir, "..", "..");

// ── child: the bare Elysia app ─────────────────────────────────────────────────────────────────
/** `capabilitiesFile` holds our /v1/capabilities body; `contentType` its content type. */
async function serveBare(capabilitiesFile: string, contentType: string): Promise<void> {
  const { Elysia } = await import("elysia");
  const startedAt = Date.now();
  const capabilities = new Uint8Array(readFileSync(capabilitiesFile));
  const app = new Elysia()
    .get("/health", () => ({
      ok: true,
      service: "bare",
      version: "0.0.0",
      uptime_sec: Math.round((Date.now() - startedAt) / 1000),
      open_for_work: true,
      payments: "off",
    }))
    .get("/v1/capabilities", () => new Response(capabilities, { headers: { "content-type": contentType } }));
  app.listen({ hostname: "127.0.0.1", port: 0 });
  console.log(`listening ${app.server!.port}`);
}

// ── child: bare Elysia doing only a served request's duties ────────────────────────────────────
/**
 * The floor under ours: bare Elysia's /health doing by hand only what every answer of ours must
 * (read the target and Host, a request id, the CORS and X-Request-Id headers, the client's address
 * and one access line, buffered like ours), with none of our structure around it.
 */
async function serveDuties(): Promise<void> {
  const { Elysia } = await import("elysia");
  const { readyHeaders } = await import("../../src/http/respond.ts");
  const { newRequestId } = await import("../../src/http/request-context.ts");
  const { readRequestTarget } = await import("../../src/http/request-target.ts");
  const { stdoutLogOutput } = await import("../../src/log-output.ts");
  const sink = stdoutLogOutput().sink;
  const headers = readyHeaders({ "content-type": "application/json; charset=utf-8" });
  const startedAt = Date.now();
  const app = new Elysia().get("/health", ({ request }) => {
    const id = newRequestId();
    const began = performance.now();
    const target = readRequestTarget(request.url, request.headers.get("host"));
    const body = { ok: true, service: "bare", version: "0.0.0", uptime_sec: Math.round((Date.now() - startedAt) / 1000), open_for_work: true, payments: "off" };
    const response = new Response(JSON.stringify(body), { headers });
    response.headers.set("x-request-id", id);
    const client = app.server!.requestIP(request)?.address ?? "unknown";
    sink(
      `{"time":"${new Date().toISOString()}","level":"info","msg":"request","method":"GET","path":${JSON.stringify(target.path)},"status":200,"ms":${Math.round(performance.now() - began)},"request_id":"${id}","outcome":"ok","client":"${client}"}`,
      "info",
    );
    return response;
  });
  app.listen({ hostname: "127.0.0.1", port: 0 });
  console.error(`listening ${app.server!.port}`);
}

// ── parent ─────────────────────────────────────────────────────────────────────────────────────
async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

/** The port a child server prints ("listening N") on `stream`. */
function listeningPort(child: ChildProcess, stream: NodeJS.ReadableStream, name: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => {
      const port = /listening (\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve(Number(port));
    });
    child.once("exit", (code) => reject(new Error(`${name} server exited with ${code}`)));
  });
}

async function waitUp(url: string, child: ChildProcess): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (child.exitCode !== null) throw new Error(`server for ${url} exited with ${child.exitCode}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not answer`);
}

interface Target {
  name: string;
  url: string;
  pid: number;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 per second on Linux)
  } catch {
    return Number.NaN;
  }
}

const hasWrk = Bun.spawnSync(["sh", "-c", "command -v wrk"]).exitCode === 0;

/** Requests per second and non-2xx answers over `seconds` with `connections` keep-alive connections. */
async function load(url: string, seconds: number, connections: number): Promise<{ rps: number; bad: number }> {
  if (hasWrk) {
    const run = Bun.spawnSync(["wrk", "-t2", `-c${connections}`, `-d${seconds}s`, "--latency", url], { stdout: "pipe", stderr: "pipe" });
    const out = run.stdout.toString();
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    const bad = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0);
    if (!Number.isFinite(rps)) throw new Error(`wrk printed no rate:\n${out}${run.stderr.toString()}`);
    return { rps, bad };
  }
  let count = 0;
  let bad = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status !== 200) bad++;
        count++;
      }
    }),
  );
  return { rps: count / seconds, bad };
}

async function runParent(): Promise<void> {
  const rounds = Number(option("rounds", "5"));
  const seconds = Number(option("seconds", "4"));
  const connections = Number(option("connections", "50"));
  const oursArgs = option("ours-args", "").split(/\s+/).filter(Boolean);
  const work = mkdtempSync(join(tmpdir(), "tb-bench-cost-"));
  const logPath = join(work, "server.log");
  const logFd = openSync(logPath, "w");

  const port = await freePort();
  const serveFrom = (tree: string, at: number, data: string) =>
    spawn(
      process.execPath,
      [join(tree, "src", "main.ts"), "serve", "--host", "127.0.0.1", "--port", String(at), "--data", join(work, data), "--payments", "off", "--render", "off", ...oursArgs],
      { stdio: ["ignore", logFd, "inherit"], cwd: tree },
    );
  const ours = serveFrom(root, port, "data");
  await waitUp(`http://127.0.0.1:${port}/health`, ours);
  // The bare app answers /v1/capabilities with the bytes ours answers there.
  const ourCapabilities = await fetch(`http://127.0.0.1:${port}/v1/capabilities`);
  const capabilitiesFile = join(work, "capabilities.body");
  writeFileSync(capabilitiesFile, new Uint8Array(await ourCapabilities.arrayBuffer()));
  const capabilitiesType = ourCapabilities.headers.get("content-type") ?? "application/json";
  const bare = spawn(process.execPath, [import.meta.path, "--serve-bare", capabilitiesFile, capabilitiesType], { stdio: ["ignore", "pipe", "inherit"] });
  const barePort = await listeningPort(bare, bare.stdout!, "bare");
  // --duties: the floor, bare Elysia doing by hand only the duties every answer of ours has (its log lines go to our log file).
  const duties = process.argv.includes("--duties")
    ? spawn(process.execPath, [import.meta.path, "--serve-duties"], { stdio: ["ignore", logFd, "pipe"] })
    : undefined;
  const dutiesPort = duties ? await listeningPort(duties, duties.stderr!, "duties") : 0;
  // --ref-root: another checkout of this project (e.g. `git worktree add /tmp/ref <rev>` + npm install), served beside ours for an A/B in one run.
  const refRoot = option("ref-root", "");
  const refPort = refRoot ? await freePort() : 0;
  const ref = refRoot ? serveFrom(refRoot, refPort, "ref-data") : undefined;
  const targets: Target[] = [
    { name: "bare Elysia GET /health", url: `http://127.0.0.1:${barePort}/health`, pid: bare.pid! },
    { name: "bare Elysia GET /v1/capabilities", url: `http://127.0.0.1:${barePort}/v1/capabilities`, pid: bare.pid! },
    { name: "ours GET /health", url: `http://127.0.0.1:${port}/health`, pid: ours.pid! },
    { name: "ours GET /v1/capabilities", url: `http://127.0.0.1:${port}/v1/capabilities`, pid: ours.pid! },
    ...(duties ? [{ name: "duties GET /health", url: `http://127.0.0.1:${dutiesPort}/health`, pid: duties.pid! }] : []),
    ...(ref
      ? [
          { name: "ref GET /health", url: `http://127.0.0.1:${refPort}/health`, pid: ref.pid! },
          { name: "ref GET /v1/capabilities", url: `http://127.0.0.1:${refPort}/v1/capabilities`, pid: ref.pid! },
        ]
      : []),
  ];
  await waitUp(targets[0]!.url, bare);
  if (ref) await waitUp(`http://127.0.0.1:${refPort}/health`, ref);

  console.log(`/v1/capabilities: ${ourCapabilities.headers.get("content-length") ?? "?"} bytes of ${capabilitiesType}, the same bytes from both servers`);
  console.log(
    `load: ${hasWrk ? `wrk -t2 -c${connections}` : `in-process fetch, ${connections} clients (wrk not found)`}, ${seconds} s per turn, ${rounds} rounds taking turns; ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)} at start`,
  );
  if (oursArgs.length) console.log(`our server's extra flags: ${oursArgs.join(" ")}`);
  for (const t of targets) await load(t.url, 1, connections); // warm-up (JIT)
  const results = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  // The server's own CPU per answered request: what a request costs even when a shared machine slows everyone.
  const cpuPerRequest = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  let bad = 0;
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const t of targets) {
      const cpuBefore = cpuSeconds(t.pid);
      const r = await load(t.url, seconds, connections);
      results.get(t.name)!.push(r.rps);
      cpuPerRequest.get(t.name)!.push(((cpuSeconds(t.pid) - cpuBefore) * 1e6) / (r.rps * seconds));
      bad += r.bad;
      line.push(`${t.name.split(" ")[0]} ${t.name.split(" ").slice(-1)[0]} ${(r.rps / 1000).toFixed(1)}k`);
    }
    console.log(`  round ${round}: ${line.join("   ")}`);
  }
  // Each target beside the bare app on the same route.
  const bareOf = (t: Target) => (t.url.endsWith("/health") ? targets[0]! : targets[1]!);
  console.log("\nmedian requests per second:");
  for (const t of targets) {
    const m = median(results.get(t.name)!);
    const ratio = m / median(results.get(bareOf(t).name)!);
    console.log(`  ${t.name.padEnd(34)} ${(m / 1000).toFixed(1).padStart(6)}k req/s   ${ratio.toFixed(2)}× bare${t.name.startsWith("bare") ? "" : "   (target ≥ 0.75×)"}`);
  }
  if (Number.isFinite(median(cpuPerRequest.get(targets[0]!.name)!))) {
    console.log("\nserver CPU per request (median; less sensitive to other load than the rates):");
    for (const t of targets) {
      const us = median(cpuPerRequest.get(t.name)!);
      console.log(`  ${t.name.padEnd(34)} ${us.toFixed(1).padStart(6)} µs   bare/ours ${(median(cpuPerRequest.get(bareOf(t).name)!) / us).toFixed(2)}`);
    }
  }
  for (const t of targets.slice(2, 4)) {
    const bareRuns = results.get(bareOf(t).name)!;
    const perRound = results.get(t.name)!.map((rps, i) => rps / bareRuns[i]!);
    console.log(`  ours/bare on ${t.url.replace(/^http:\/\/[^/]+/, "")} round by round: ${perRound.map((r) => r.toFixed(2)).join(", ")} (median ${median(perRound).toFixed(2)})`);
  }
  if (bad > 0) console.log(`  non-2xx answers or socket errors: ${bad}`);
  console.log(`  our log: ${(statSync(logPath).size / 1024 / 1024).toFixed(1)} MB written in the run; load average ${loadavg()[0]!.toFixed(1)} at end (shared machine: other work skews both sides alike)`);

  bare.kill("SIGTERM");
  ours.kill("SIGTERM");
  ref?.kill("SIGTERM");
  duties?.kill("SIGTERM");
  await Promise.all([bare, ours, ...(ref ? [ref] : []), ...(duties ? [duties] : [])].map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once("exit", r)))));
  closeSync(logFd);
  rmSync(work, { recursive: true, force: true });
}

if (process.argv[2] === "--serve-bare") await serveBare(process.argv[3]!, process.argv[4]!);
else if (process.argv[2] === "--serve-duties") await serveDuties();
else await runParent();
