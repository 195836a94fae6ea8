/**
 * The walks of four calls through src/ (issue 39, "each room once"), measured while they run: a paid
 * web read (POST /v1/web/read), a paid MCP tool call (web_read), a paid A2A message (web.read, the
 * message that carries the payment) and a paid job submission (POST /v1/jobs).
 *
 *   node_modules/.bin/bun scripts/walks.ts [--json]
 *
 * How: src/ is loaded through a Bun plugin that inserts, at the start of every function, method and
 * arrow body, a call naming its file (the text is only added to, so lines and columns stay those of
 * the source). The call records the file when it runs inside a measured call (an AsyncLocalStorage
 * entered around the paid request only, so the 402 offer, timers and sweeps are not counted) and
 * reads the stack there (`new Error().stack`, with the async frames JSC keeps). A room (scripts/layout/rooms.ts:
 * the first folder under src/, or a front file) is re-entered when one stack shows it in two
 * segments with another room between (jobs → http → jobs).
 *
 * The payments are real: anvil with the test USDC, the official x402 buyer signing, the server
 * settling through a facilitator over HTTP on loopback that runs in a child process (ours, as
 * test/x402/evm-settlement.test.ts runs it), so the facilitator's use of x402/ is not counted as
 * the server's. The server is test/support/service.ts's, answering in process (service.handle).
 *
 * A job's work runs later, in the worker's loop, outside the submission: only the submission's
 * request is walked.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { roomOf } from "./layout/rooms.ts";

const root = resolve(import.meta.dir, "..");
const srcDir = join(root, "src");

/** The child: our facilitator for the fixture's network over HTTP on loopback; prints its URL. */
async function facilitatorChild(x402Json: string): Promise<void> {
  const { resolveNetworks } = await import("../src/x402/config.ts");
  const { createExactEvmMechanism } = await import("../src/x402/evm/exact.ts");
  const { createLocalFacilitator } = await import("../src/x402/facilitators/local.ts");
  const { startFacilitatorServer } = await import("../test/support/facilitator.ts");
  const network = resolveNetworks(JSON.parse(x402Json))[0] as Parameters<typeof createExactEvmMechanism>[0]["network"];
  const local = createLocalFacilitator([createExactEvmMechanism({ network, settlementMarginSeconds: 6, confirmationTimeoutMs: 10_000, pollingIntervalMs: 20 })]);
  const server = startFacilitatorServer({ verify: (p, r) => local.verify(p, r), settle: (p, r) => local.settle(p, r), supported: () => local.supported() });
  console.log(server.url);
  // Until the parent ends it.
  await new Promise(() => {});
}

// ---------------------------------------------------------------------------------------------
// The instrumentation.

/**
 * `src/a/b.ts` text with a call `__walk("a/b.ts")` at the start of every function body, and every
 * returned expression (an arrow's expression body too) passed through `__kept(…)`: modules are strict
 * code, where JSC drops the frame of a function that returns a call (a proper tail call), and the
 * stack would skip the room that made the call.
 */
export function instrument(source: string, file: string): string {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const walk = `globalThis.__walk(${JSON.stringify(file)});`;
  // Opening texts at one place go outermost first, closing ones innermost first (closings before openings).
  const inserts: { at: number; text: string; order: number }[] = [];
  const wrap = (node: ts.Node, before: string, after: string, depth: number) => {
    inserts.push({ at: node.getStart(sf), text: before, order: 1e6 + depth });
    inserts.push({ at: node.end, text: after, order: -depth });
  };
  const visit = (node: ts.Node, depth: number) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const body = node.body as ts.Node;
      if (ts.isBlock(body)) {
        // A derived class's constructor may not run anything before super(): its first statement is left first.
        const first = body.statements[0];
        const superFirst = ts.isConstructorDeclaration(node) && first && ts.isExpressionStatement(first) && ts.isCallExpression(first.expression) && first.expression.expression.kind === ts.SyntaxKind.SuperKeyword;
        inserts.push({ at: superFirst ? first.end : body.getStart(sf) + 1, text: walk, order: 1e6 + depth });
      } else {
        wrap(body, `(globalThis.__walk(${JSON.stringify(file)}), globalThis.__kept(`, "))", depth);
      }
    }
    if (ts.isReturnStatement(node) && node.expression) wrap(node.expression, "globalThis.__kept(", ")", depth);
    ts.forEachChild(node, (child) => visit(child, depth + 1));
  };
  visit(sf, 0);
  inserts.sort((a, b) => a.at - b.at || a.order - b.order);
  let out = "";
  let from = 0;
  for (const { at, text } of inserts) {
    out += source.slice(from, at) + text;
    from = at;
  }
  return out + source.slice(from);
}

interface Walk {
  readonly name: string;
  /** src/ files in first-visit order. */
  readonly files: string[];
  /** The stacks seen (their src/ files, outermost first, consecutive repeats folded), each once. */
  readonly chains: Map<string, string[]>;
}

const current = new AsyncLocalStorage<Walk>();

/** The src/ files of a stack, outermost first. */
function stackFiles(stack: string): string[] {
  const files: string[] = [];
  for (const line of stack.split("\n").slice(1)) {
    const at = line.indexOf(srcDir + "/");
    if (at < 0) continue;
    const path = line.slice(at + srcDir.length + 1).replace(/:\d+(:\d+)?\)?\s*$/, "");
    files.push(path);
  }
  return files.reverse();
}

/** Consecutive repeats folded: a → a → b → a is a → b → a. */
function folded(items: readonly string[]): string[] {
  const out: string[] = [];
  for (const item of items) if (out.at(-1) !== item) out.push(item);
  return out;
}

/** The rooms a stack shows in two segments with another room between, each with the first stack (its files) that shows it so. */
export function reentered(stacks: Iterable<readonly string[]>): Map<string, { rooms: string[]; files: string[] }> {
  const found = new Map<string, { rooms: string[]; files: string[] }>();
  for (const files of stacks) {
    const rooms = folded(files.map(roomOf));
    const seen = new Set<string>();
    for (const room of rooms) {
      if (seen.has(room) && !found.has(room)) found.set(room, { rooms, files: [...files] });
      seen.add(room);
    }
  }
  return found;
}

function record(file: string): void {
  const walk = current.getStore();
  if (!walk) return;
  if (!walk.files.includes(file)) walk.files.push(file);
  const files = folded(stackFiles(new Error().stack ?? ""));
  walk.chains.set(files.join(" "), files);
}

function installInstrumentation(): void {
  Error.stackTraceLimit = 500;
  Object.assign(globalThis, { __walk: record, __kept: <T>(value: T): T => value });
  const escaped = srcDir.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  Bun.plugin({
    name: "walks",
    setup(build) {
      build.onLoad({ filter: new RegExp(`^${escaped}/.*\\.ts$`) }, async ({ path }) => {
        const source = await Bun.file(path).text();
        return { contents: instrument(source, relative(srcDir, path)), loader: "ts" };
      });
    },
  });
}

// ---------------------------------------------------------------------------------------------
// The four calls.

export interface WalkReport {
  readonly name: string;
  readonly ok: boolean;
  readonly files: string[];
  /** Rooms in first-visit order. */
  readonly rooms: string[];
  /** A re-entered room, the rooms of the first stack that shows it so and that stack's files (outermost first). */
  readonly reentered: { readonly room: string; readonly rooms: string[]; readonly stack: string[] }[];
  /** How many distinct stacks were read, and the most src/ frames one showed (the reach of the stacks). */
  readonly stacks: { readonly count: number; readonly deepest: number };
}

async function runWalks(): Promise<WalkReport[]> {
  installInstrumentation();
  const { x402Client, x402HTTPClient } = await import("@x402/core/client");
  const { registerExactEvmScheme } = await import("@x402/evm/exact/client");
  const { privateKeyToAccount } = await import("viem/accounts");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { Role } = await import("@a2a-js/sdk");
  const { LegacyJsonRpcTransport } = await import("@a2a-js/sdk/compat/v0_3/client");
  const { startEvmFixture, NETWORK } = await import("../test/x402/evm-fixture.ts");
  const { testService } = await import("../test/support/service.ts");
  const { startSiteServer } = await import("../test/support/site-server.ts");
  const { gatedSkill, jobSkillFolder } = await import("../test/jobs/job-skills.ts");

  const reports: WalkReport[] = [];
  const fx = await startEvmFixture();
  const site = startSiteServer();
  site.set("/page", "<html><head><title>Walk</title></head><body><main><h1>Walk</h1><p>The page a walk reads, long enough to be text for the reader.</p></main></body></html>");
  const child = Bun.spawn([process.execPath, import.meta.path, "--facilitator", JSON.stringify(fx.config())], { stdout: "pipe", stderr: "inherit" });
  let service: Awaited<ReturnType<typeof testService>> | undefined;
  let mcp: InstanceType<typeof Client> | undefined;
  try {
    const facilitatorUrl = await firstLine(child.stdout);
    const x402 = fx.config({ facilitator: { url: facilitatorUrl } }, { settlement: "remote", rpcUrl: undefined, settlerPrivateKey: undefined });
    const plugins = jobSkillFolder({ "walk-job.ts": gatedSkill("walk.job", { price: "0.003" }) });
    service = await testService(
      ["--plugins", plugins, "--payments", "on", "--public-url", "http://127.0.0.1:8402", "--x402", JSON.stringify(x402), "--unsafe-allow-loopback-targets", "--render", "off", "--extract-workers", "0", "--rate-limit-per-min", "10000"],
      { pollingIntervalMs: 20 },
    );
    const served = service;
    const buyer = new x402Client();
    registerExactEvmScheme(buyer, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
    buyer.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
    const http = new x402HTTPClient(buyer);
    const sign = async (offer: unknown) => (await buyer.createPaymentPayload(offer as never)) as unknown as Record<string, unknown>;

    // Every request goes to the server in process; a request made while a walk is measured runs inside it.
    let measuring: Walk | undefined;
    const serverFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      return measuring ? current.run(measuring, () => served.handle(request, "127.0.0.1")) : served.handle(request, "127.0.0.1");
    }) as typeof fetch;
    const measure = async (name: string, paid: () => Promise<boolean>): Promise<void> => {
      const walk: Walk = { name, files: [], chains: new Map() };
      measuring = walk;
      let ok: boolean;
      try {
        ok = await paid();
      } finally {
        measuring = undefined;
      }
      const rooms: string[] = [];
      for (const file of walk.files) if (!rooms.includes(roomOf(file))) rooms.push(roomOf(file));
      reports.push({ name, ok, files: walk.files, rooms, reentered: [...reentered(walk.chains.values())].map(([room, { rooms, files }]) => ({ room, rooms, stack: files })),
        stacks: { count: walk.chains.size, deepest: Math.max(0, ...[...walk.chains.values()].map((f) => f.length)) },
      });
    };

    const base = "http://127.0.0.1:8402";
    const page = site.url("/page");
    /** POST over HTTP: the 402 offer unmeasured, then the paid request measured. */
    const paidPost = async (name: string, path: string, body: Record<string, unknown>, status: number) => {
      const post = (headers: Record<string, string>) => serverFetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
      const unpaid = await post({});
      if (unpaid.status !== 402) throw new Error(`${path}: ${unpaid.status} where a 402 offer was expected`);
      const offer = http.getPaymentRequiredResponse((n) => unpaid.headers.get(n), await unpaid.json());
      const headers = http.encodePaymentSignatureHeader(await sign(offer) as never);
      await measure(name, async () => {
        const res = await post(headers);
        await res.text();
        return res.status === status && res.headers.get("payment-response") !== null || (status === 202 && res.status === 202);
      });
    };

    await paidPost("paid web read (POST /v1/web/read)", "/v1/web/read", { url: page }, 200);

    mcp = new Client({ name: "walks", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: serverFetch }));
    const client = mcp;
    const tool = (meta?: Record<string, unknown>) => client.callTool({ name: "web_read", arguments: { url: page }, ...(meta ? { _meta: meta } : {}) });
    const mcpOffer = (await tool()).structuredContent;
    const mcpPayment = await sign(mcpOffer);
    await measure("paid MCP tool call (web_read)", async () => {
      const result = await tool({ "x402/payment": mcpPayment });
      return !result.isError && (result._meta as Record<string, { success?: boolean }> | undefined)?.["x402/payment-response"]?.success === true;
    });

    const a2a = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a`, fetchImpl: serverFetch });
    const send = async (content: { $case: "data"; value: Record<string, unknown> } | { $case: "text"; value: string }, taskId = "", metadata?: Record<string, unknown>) =>
      a2a.sendMessage({
        tenant: "",
        message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts: [{ content, metadata: undefined, filename: "", mediaType: "" }], metadata, extensions: [], referenceTaskIds: [] },
        configuration: undefined,
        metadata: undefined,
      }) as Promise<{ id: string; status?: { message?: { metadata?: Record<string, unknown> } } }>;
    const offered = await send({ $case: "data", value: { skill: "web.read", url: page } });
    const a2aPayment = await sign(offered.status?.message?.metadata?.["x402.payment.required"]);
    await measure("paid A2A message (web.read, the paying message)", async () => {
      const done = await send({ $case: "text", value: "payment" }, offered.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": a2aPayment });
      return done.status?.message?.metadata?.["x402.payment.status"] === "payment-completed";
    });

    await paidPost("paid job submission (POST /v1/jobs)", "/v1/jobs", { skill: "walk.job", tag: "walk" }, 202);
  } finally {
    await mcp?.close().catch(() => {});
    await service?.close();
    child.kill();
    await site.stop();
    await fx.stop();
  }
  return reports;
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the facilitator ended before printing its URL");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0] as string;
}

export function printWalks(reports: readonly WalkReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    lines.push(`## ${r.name}${r.ok ? "" : " (the call did not succeed)"}`);
    lines.push(`files (${r.files.length}, first visit first):`);
    for (const file of r.files) lines.push(`  ${file}`);
    lines.push(`rooms (${r.rooms.length}): ${r.rooms.join(" ")}`);
    lines.push(`stacks read: ${r.stacks.count}, deepest ${r.stacks.deepest} src/ frames`);
    if (r.reentered.length === 0) lines.push("re-entered: none (each room once on every stack)");
    else for (const { room, rooms, stack } of r.reentered) lines.push(`re-entered: ${room}   ${rooms.join(" → ")}   (${stack.join(" → ")})`);
    lines.push("");
  }
  return lines.join("\n");
}

if (process.argv[2] === "--facilitator") {
  await facilitatorChild(process.argv[3] as string);
} else if (import.meta.main) {
  const reports = await runWalks();
  console.log(process.argv.includes("--json") ? JSON.stringify(reports, null, 2) : printWalks(reports));
  process.exit(reports.every((r) => r.ok) ? 0 : 1);
}
