/**
 * @module cli/core-commands — how each of the core's commands runs (its words and flags are in
 * cli/commands.ts; a feature module's commands run from its module.ts). main.ts looks a command up
 * here or among the modules' and runs it: it names none.
 */
import { banner, startService } from "../boot.ts";
import type { Config } from "../config.ts";
import { openOperatorStore } from "../database.ts";
import { runDoctor } from "../doctor/doctor.ts";
import { upstreamsLine } from "../doctor/payment-upstreams.ts";
import { loadConfiguredRegistry } from "../loader/registry.ts";
import type { CommandContext } from "../module/define.ts";
import { buildCatalogue } from "../plugin/catalogue.ts";

export type CoreRun = (context: CommandContext<Config>) => Promise<number>;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n");
}

async function serve({ config }: CommandContext<Config>): Promise<number> {
  const service = await startService(config);
  for (const line of banner(service)) console.log(line);
  // With payments on: a line as soon as the facilitator or RPC/algod is found unreachable, and when it answers again.
  service.paymentUpstreams?.onChange((status) => console.log(`  ${upstreamsLine(status)}`));
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return new Promise<number>(() => {});
}

async function skills({ config }: CommandContext<Config>): Promise<number> {
  const catalogue = buildCatalogue(await loadConfiguredRegistry(config));
  // A price column per network payments are taken on (payments off: Base and Algorand), headed as the CLI's other columns are: lowercase.
  const rows = [["id", "route or skill", ...catalogue.pricedNetworks.map((n) => n.label.toLowerCase()), "async", "timeout", "source"]];
  for (const e of [...catalogue.operations, ...catalogue.skills]) {
    rows.push([
      e.id,
      e.kind === "plugin" ? e.route : `skill ${e.id}`,
      ...e.networkPrices.map((p) => (p.price === undefined ? "-" : `$${p.price}${e.priceDependsOnInput ? "+" : ""}`)),
      e.async ? "yes" : "no",
      `${e.timeoutSec}s`,
      e.source,
    ]);
  }
  console.log(table(rows));
  if (catalogue.operations.some((e) => e.priceDependsOnInput)) console.log("\n+ base price; batches and options cost more (the 402 states the exact total)");
  return 0;
}

async function pause({ config, flags }: CommandContext<Config>): Promise<number> {
  const reason = flags.reason;
  if (!reason?.trim()) {
    console.error("tollbooth pause: --reason TEXT is required (callers see it)");
    return 2;
  }
  const store = await openOperatorStore(config);
  await store.settings.pause(reason.trim());
  await store.close();
  console.log(`paused: paid work is refused with 503 ("${reason.trim()}"); free endpoints keep working`);
  return 0;
}

async function resume({ config }: CommandContext<Config>): Promise<number> {
  const store = await openOperatorStore(config);
  await store.settings.resume();
  await store.close();
  console.log("resumed: open for work");
  return 0;
}

async function read({ config, words, flags, on }: CommandContext<Config>): Promise<number> {
  const [word] = words;
  if (word !== undefined && flags.url !== undefined) {
    console.error(`tollbooth read: give the URL once (positional "${word}" and --url "${flags.url}")`);
    return 2;
  }
  const { readForCli } = await import("./read.ts");
  return readForCli(config, {
    url: word ?? flags.url,
    file: flags.file,
    contentType: flags["content-type"],
    markdown: on("markdown"),
    format: flags.format,
    selector: flags.selector,
    maxChars: flags["max-chars"],
    render: on("render"),
  });
}

async function buy({ words, flags, on }: CommandContext<Config>): Promise<number> {
  const [word, secondWord] = words;
  return (await import("../buyer/buy-cli.ts")).buyForCli({
    url: word,
    mcp: on("mcp"),
    tool: secondWord,
    json: flags.json,
    maxUsd: flags["max-usd"],
    dailyCapUsd: flags["daily-cap-usd"],
    network: flags.network,
    asset: flags.asset,
    assetDecimals: flags["asset-decimals"],
    keyFile: flags["key-file"],
    spendLog: flags["spend-log"],
    algodUrl: flags["algod-url"],
    requireSigned: on("require-signed"),
  });
}

/** Every core command's run, by the name its spec in cli/commands.ts gives. */
export const coreRuns: ReadonlyMap<string, CoreRun> = new Map<string, CoreRun>([
  ["serve", serve],
  ["skills", skills],
  ["pause", pause],
  ["resume", resume],
  ["refunds", async ({ config, flags, on }) => (await import("./refunds.ts")).runRefundsCli(config, { all: on("all"), markPaid: flags["mark-paid"], note: flags.note })],
  ["receipts", async ({ config, flags }) => (await import("./receipts.ts")).listReceiptsForCli(config, Number(flags.limit ?? 20), flags.state)],
  ["read", read],
  ["backup", async ({ config, words }) => (await import("./backup.ts")).backupForCli(config, words[0])],
  ["restore", async ({ config, words }) => (await import("./backup.ts")).restoreForCli(config, words[0])],
  ["migrate-store", async ({ flags, on }) => (await import("./migrate-store.ts")).migrateStoreForCli({ from: flags.from, to: flags.to, append: on("append") })],
  ["install", async ({ flags, on }) => (await import("./install.ts")).installForCli({ root: flags.root, binary: flags.binary, dryRun: on("dry-run") })],
  ["types", async ({ words }) => (await import("./scaffold.ts")).writeTypesForCli(words[0])],
  ["new", async ({ config, words, flags }) => (await import("./scaffold.ts")).newFileForCli(words[0], words[1], flags.dir ?? config.plugins ?? ".")],
  ["buy", buy],
  [
    "doctor",
    async ({ config }) => {
      const report = await runDoctor(config);
      for (const line of report.lines) console.log(line);
      return report.ok ? 0 : 1;
    },
  ],
]);
