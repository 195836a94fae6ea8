#!/usr/bin/env bun
/**
 * @module main — the `tollbooth` command: serve, and the operator commands beside it (skills, read,
 * receipts, refunds, pause, resume, doctor, quotes, tickets, commitments, directory, backup, restore,
 * migrate-store, install, types, new, keys, verify, buy); the usage text below lists them.
 */
import { banner, productVersion, startService } from "./boot.ts";
import { loadConfiguredRegistry } from "./loader/registry.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { buildCatalogue } from "./plugin/catalogue.ts";
import { RegistryError } from "./plugin/registry.ts";
import { runDoctor } from "./doctor/doctor.ts";
import { upstreamsLine } from "./doctor/payment-upstreams.ts";
import { openOperatorStore } from "./database.ts";
import { commandHelp, type ParsedCommand, parseCommand, UsageError } from "./cli/args.ts";
import { commands } from "./cli/commands.ts";
import { modules } from "./modules.generated.ts";

/** Each feature module's commands: their usage lines and how they run. */
const moduleCommands = new Map(modules.flatMap((m) => m.commands ?? []).map((c) => [c.spec.name, c]));
const moduleUsage = [...moduleCommands.values()].map((c) => `${c.usage}\n`).join("");

const usage = `Tollbooth ${productVersion}: pay-per-call web evidence and job skills (x402 v2)

Usage: tollbooth <command> [flags]

Commands:
  serve                  start the server (default)
  skills                 list the registry: id, route or skill, price per network, async, timeout
  read URL [--markdown] [--selector CSS] [--max-chars N] [--render]
                         read one page with the web engine and print the JSON result (free, local)
  read --file PATH --url URL [--content-type TYPE] [--markdown] [--selector CSS] [--max-chars N]
                         extract a local file (.gz is unpacked) as if fetched from URL; no network
  receipts [--limit N] [--state S]
                         list recent payment receipts (settled, pending, failed, unused)
  refunds [--all] [--mark-paid JOB_ID --note TEXT]
                         list refunds due on jobs settled at acceptance that failed by our fault
${moduleUsage}  pause --reason TEXT    stop accepting paid work (free endpoints keep working)
  resume                 accept paid work again
  doctor                 check config, data folder, wallets, browser and facilitator
  backup [FILE]          consistent copy of the database while the server runs (FILE, or a
                         time-stamped file in --backup-dir)
  restore FILE           put a backup back (refused while a server holds --data)
  migrate-store --from sqlite:DIR --to postgres://… [--append]
                         copy a data folder into PostgreSQL in one transaction, counts checked
  buy URL [--json BODY] [--max-usd 0.05] [--network base|algorand|CAIP-2] [--asset ADDR|ASA]
      [--algod-url URL] [--key-file FILE] [--spend-log FILE] [--daily-cap-usd 1] [--require-signed]
                         pay a paid route of any x402 v2 seller within a budget (official x402 client);
                         the seller's signed offer and receipt (x402 offer-receipt) are checked
  buy --mcp URL TOOL [--json ARGS] [the same budget flags]
                         pay one tool of an MCP server the same way (x402 MCP transport)
  types DIR              write tollbooth.d.ts and a tsconfig.json so plugin files in DIR type-check
  install [--root DIR] [--binary PATH] [--dry-run]
                         install the hardened systemd service (user, data folder, units)
  new skill|plugin ID [--dir DIR]
                         write a commented starting file (default folder: --plugins, else .)
  help [COMMAND]         this text, or a command's words and flags (also: tollbooth COMMAND --help)

Flags and words go in any order (tollbooth backup --data D FILE = tollbooth backup FILE --data D).
Settings flags, taken by every command (each also as TOLLBOOTH_<NAME> or a key in --config FILE):
  --port N  --host ADDR  --data DIR  --plugins DIR  --payments on|off
  --public-url URL  --allowed-hosts HOST[,HOST]  --contact-url URL  --log-level LEVEL  --config FILE
  --local-try    try it on this machine: reads may reach pages on 127.0.0.1; loopback bind only
  --unsafe-allow-loopback-targets   (tests and benchmarks only)
`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n");
}

async function main(args: string[]): Promise<number> {
  const command = args[0] === "--help" || args[0] === "--version" || (args[0] && !args[0].startsWith("--")) ? args.shift()! : "serve";
  if (command === "help" || command === "--help") {
    const about = args[0] ? commands.get(args[0]) : undefined;
    process.stdout.write(about ? commandHelp(about) : usage);
    return 0;
  }
  if (command === "version" || command === "--version") {
    console.log(productVersion);
    return 0;
  }
  const spec = commands.get(command);
  if (!spec) {
    console.error(`tollbooth: unknown command "${command}"\n\n${usage}`);
    return 2;
  }
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(spec, args);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`tollbooth ${command}: ${error.message} (tollbooth ${command} --help)`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    process.stdout.write(commandHelp(spec));
    return 0;
  }
  const flag = (name: string) => (typeof parsed.flags[name] === "string" ? (parsed.flags[name] as string) : undefined);
  const on = (name: string) => parsed.flags[name] === true;
  const [word, secondWord] = parsed.words;

  let config: Config;
  try {
    config = loadConfig({ argv: parsed.configArgv, env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`tollbooth: ${error.message}`);
      return 2;
    }
    throw error;
  }

  const moduleCommand = moduleCommands.get(command);
  if (moduleCommand) {
    return moduleCommand.run({
      config,
      words: parsed.words,
      flags: stringFlags(parsed),
      on,
      withStore: async (use) => (await import("./database.ts")).withStore(config.data, use),
      withPostgres: async (url, use) => {
        const { openPgFacets, redactedUrl } = await import("./database.ts");
        const pg = await openPgFacets(url, { max: 2 });
        try {
          return await use({ sql: pg.sql, store: pg, where: redactedUrl(url) });
        } finally {
          await pg.close();
        }
      },
      loadWeb: async () => {
        const { createWebEngineFor } = await import("./boot.ts");
        return () => createWebEngineFor(config, undefined);
      },
    });
  }

  switch (command) {
    case "serve": {
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
    case "skills": {
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
    case "pause": {
      const reason = flag("reason");
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
    case "resume": {
      const store = await openOperatorStore(config);
      await store.settings.resume();
      await store.close();
      console.log("resumed: open for work");
      return 0;
    }
    case "refunds": {
      const { runRefundsCli } = await import("./cli/refunds.ts");
      return runRefundsCli(config, { all: on("all"), markPaid: flag("mark-paid"), note: flag("note") });
    }
    case "receipts": {
      const { listReceiptsForCli } = await import("./cli/receipts.ts");
      return listReceiptsForCli(config, Number(flag("limit") ?? 20), flag("state"));
    }
    case "read": {
      if (word !== undefined && flag("url") !== undefined) {
        console.error(`tollbooth read: give the URL once (positional "${word}" and --url "${flag("url")}")`);
        return 2;
      }
      const { readForCli } = await import("./cli/read.ts");
      return readForCli(config, {
        url: word ?? flag("url"),
        file: flag("file"),
        contentType: flag("content-type"),
        markdown: on("markdown"),
        format: flag("format"),
        selector: flag("selector"),
        maxChars: flag("max-chars"),
        render: on("render"),
      });
    }
    case "backup":
    case "restore": {
      const { backupForCli, restoreForCli } = await import("./cli/backup.ts");
      return command === "backup" ? backupForCli(config, word) : restoreForCli(config, word);
    }
    case "migrate-store": {
      const { migrateStoreForCli } = await import("./cli/migrate-store.ts");
      return migrateStoreForCli({ from: flag("from"), to: flag("to"), append: on("append") });
    }
    case "install": {
      const { installForCli } = await import("./cli/install.ts");
      return installForCli({ root: flag("root"), binary: flag("binary"), dryRun: on("dry-run") });
    }
    case "types": {
      const { writeTypesForCli } = await import("./cli/scaffold.ts");
      return writeTypesForCli(word);
    }
    case "new": {
      const { newFileForCli } = await import("./cli/scaffold.ts");
      return newFileForCli(word, secondWord, flag("dir") ?? config.plugins ?? ".");
    }
    case "buy":
      return (await import("./buyer/buy-cli.ts")).buyForCli({
        url: word,
        mcp: on("mcp"),
        tool: secondWord,
        json: flag("json"),
        maxUsd: flag("max-usd"),
        dailyCapUsd: flag("daily-cap-usd"),
        network: flag("network"),
        asset: flag("asset"),
        assetDecimals: flag("asset-decimals"),
        keyFile: flag("key-file"),
        spendLog: flag("spend-log"),
        algodUrl: flag("algod-url"),
        requireSigned: on("require-signed"),
      });
    case "doctor": {
      const report = await runDoctor(config);
      for (const line of report.lines) console.log(line);
      return report.ok ? 0 : 1;
    }
    default:
      console.error(`tollbooth: unknown command "${command}"\n\n${usage}`);
      return 2;
  }
}

/** A command's own flags that carry a value, for the room CLIs that read them by name. */
function stringFlags(parsed: ParsedCommand): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(parsed.flags).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

try {
  const code = await main(process.argv.slice(2));
  process.exit(code);
} catch (error) {
  if (error instanceof RegistryError) {
    console.error(`tollbooth: refusing to start: ${error.message}`);
    process.exit(1);
  }
  console.error(`tollbooth: ${(error as Error).message}`);
  process.exit(1);
}
