#!/usr/bin/env bun
/**
 * @module main — the `tollbooth` command: serve, and the operator commands beside it (skills, read,
 * receipts, refunds, pause, resume, doctor, quotes, tickets, commitments, directory, backup, restore,
 * install, types, new); the usage text below lists them.
 */
import { banner, loadRegistry, productVersion, startService } from "./boot.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { buildCatalogue } from "./docs/catalogue.ts";
import { RegistryError } from "./plugin/registry.ts";
import { runDoctor } from "./doctor.ts";
import { openStore } from "./database.ts";
import { takeFlag } from "./cli-flags.ts";

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
  tickets add --title T --summary S --terms T --seats N [--seat-price 1.00] [--expires-in 48h]
                         post a capital ticket (prints it as JSON with its id)
  tickets list [--all] | tickets cancel ID
                         open tickets (--all: every one); cancel records refunds due on paid seats
  commitments [--ticket ID] [--all] [--mark-refund-paid ID --note TX]
                         seat commitments with payer, transaction and refund state
  directory add --name N --description D --endpoint URL --contact C [--tags a,b]
  directory add --card URL [--contact C] [--tags a,b]
                         list an agent (its card is read through the guarded fetcher)
  directory list | directory remove ID | directory check ID
  quotes [--limit N]     list recent job.quote answers (decision, price, run or open, payer, goal)
  pause --reason TEXT    stop accepting paid work (free endpoints keep working)
  resume                 accept paid work again
  doctor                 check config, data folder, wallets, browser and facilitator
  backup [FILE]          consistent copy of the database while the server runs (FILE, or a
                         time-stamped file in --backup-dir)
  restore FILE           put a backup back (refused while a server holds --data)
  keys [list|rotate]     evidence signing keys: list them, or make a new one (old ones stay published)
  verify FILE [--jwks FILE|URL] [--source FILE]
                         check a signed evidence result: signature, key id, text (and source) hashes
  buy URL [--json BODY] [--max-usd 0.05] [--network base|CAIP-2] [--asset ADDR] [--key-file FILE]
      [--spend-log FILE] [--daily-cap-usd 1]
                         pay a paid route of any x402 v2 seller within a budget (official x402 client)
  types DIR              write tollbooth.d.ts and a tsconfig.json so plugin files in DIR type-check
  install [--root DIR] [--binary PATH] [--dry-run]
                         install the hardened systemd service (user, data folder, units)
  new skill|plugin ID [--dir DIR]
                         write a commented starting file (default folder: --plugins, else .)
  help                   this text

Flags (each also as TOLLBOOTH_<NAME> or a key in --config FILE):
  --port N  --host ADDR  --data DIR  --plugins DIR  --payments on|off
  --public-url URL  --contact-url URL  --log-level LEVEL  --config FILE
  --unsafe-allow-loopback-targets   (tests and benchmarks only)
`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n");
}

async function main(args: string[]): Promise<number> {
  const command = args[0] && !args[0].startsWith("--") ? args.shift()! : "serve";
  if (command === "help" || command === "--help" || args.includes("--help")) {
    process.stdout.write(usage);
    return 0;
  }
  if (command === "version" || command === "--version") {
    console.log(productVersion);
    return 0;
  }

  const extra: Record<string, string | undefined> = {};
  if (command === "pause") extra.reason = takeFlag(args, "reason");
  if (command === "refunds") {
    extra.markPaid = takeFlag(args, "mark-paid");
    extra.note = takeFlag(args, "note");
    const all = args.indexOf("--all");
    if (all >= 0) {
      args.splice(all, 1);
      extra.all = "yes";
    }
  }
  if (command === "receipts") {
    extra.limit = takeFlag(args, "limit");
    extra.state = takeFlag(args, "state");
  }
  if (command === "quotes") extra.limit = takeFlag(args, "limit");
  if (command === "keys" && args[0] && !args[0].startsWith("--")) extra.sub = args.shift();
  if (command === "verify") return (await import("./evidence/verify-cli.ts")).verifyForCli(args);
  if (command === "buy") return (await import("./buyer/buy-cli.ts")).buyForCli(args);
  if ((command === "backup" || command === "restore" || command === "types") && args[0] && !args[0].startsWith("--")) extra.file = args.shift();
  if (command === "install") {
    extra.root = takeFlag(args, "root");
    extra.binary = takeFlag(args, "binary");
    const dry = args.indexOf("--dry-run");
    if (dry >= 0) {
      args.splice(dry, 1);
      extra.dryRun = "yes";
    }
  }
  if (command === "new") {
    extra.kind = args[0] && !args[0].startsWith("--") ? args.shift() : undefined;
    extra.id = args[0] && !args[0].startsWith("--") ? args.shift() : undefined;
    extra.dir = takeFlag(args, "dir");
  }
  if (command === "read") {
    extra.format = takeFlag(args, "format");
    extra.selector = takeFlag(args, "selector");
    extra.maxChars = takeFlag(args, "max-chars");
    extra.file = takeFlag(args, "file");
    extra.url = takeFlag(args, "url");
    extra.contentType = takeFlag(args, "content-type");
    for (const name of ["render", "markdown"]) {
      const i = args.indexOf(`--${name}`);
      if (i >= 0) {
        args.splice(i, 1);
        extra[name] = "true";
      }
    }
    if (args[0] && !args[0].startsWith("--")) {
      const positional = args.shift();
      if (extra.url !== undefined) {
        console.error(`tollbooth read: give the URL once (positional "${positional}" and --url "${extra.url}")`);
        return 2;
      }
      extra.url = positional;
    }
  }

  // Capital board and directory commands take their own words and flags first.
  const capitalArgs = command === "tickets" || command === "commitments" ? (await import("./capital/cli.ts")).takeCapitalArgs(args) : undefined;
  const directoryArgs = command === "directory" ? (await import("./directory/cli.ts")).takeDirectoryArgs(args) : undefined;

  let config: Config;
  try {
    config = loadConfig({ argv: args, env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`tollbooth: ${error.message}`);
      return 2;
    }
    throw error;
  }

  switch (command) {
    case "serve": {
      const service = await startService(config);
      for (const line of banner(service)) console.log(line);
      const stop = async () => {
        await service.close();
        process.exit(0);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      return new Promise<number>(() => {});
    }
    case "skills": {
      const catalogue = buildCatalogue(await loadRegistry(config));
      const rows = [["id", "route or skill", "base", "algorand", "async", "timeout", "source"]];
      for (const e of [...catalogue.operations, ...catalogue.skills]) {
        rows.push([
          e.id,
          e.kind === "plugin" ? e.route : `skill ${e.id}`,
          `$${e.price.base}${e.priceDependsOnInput ? "+" : ""}`,
          `$${e.price.algorand}${e.priceDependsOnInput ? "+" : ""}`,
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
      if (!extra.reason?.trim()) {
        console.error("tollbooth pause: --reason TEXT is required (callers see it)");
        return 2;
      }
      const store = openStore(config.data);
      store.settings.pause(extra.reason.trim());
      store.close();
      console.log(`paused: paid work is refused with 503 ("${extra.reason.trim()}"); free endpoints keep working`);
      return 0;
    }
    case "resume": {
      const store = openStore(config.data);
      store.settings.resume();
      store.close();
      console.log("resumed: open for work");
      return 0;
    }
    case "refunds": {
      const { runRefundsCli } = await import("./jobs/refunds-cli.ts");
      return runRefundsCli(config, { all: extra.all === "yes", markPaid: extra.markPaid, note: extra.note });
    }
    case "receipts": {
      const { listReceiptsForCli } = await import("./cli-receipts.ts");
      return listReceiptsForCli(config, Number(extra.limit ?? 20), extra.state);
    }
    case "quotes": {
      const { listQuotesForCli } = await import("./quotes/quotes-cli.ts");
      return listQuotesForCli(config, Number(extra.limit ?? 20));
    }
    case "read": {
      const { readForCli } = await import("./cli-read.ts");
      return readForCli(config, {
        url: extra.url,
        file: extra.file,
        contentType: extra.contentType,
        markdown: extra.markdown === "true",
        format: extra.format,
        selector: extra.selector,
        maxChars: extra.maxChars,
        render: extra.render === "true",
      });
    }
    case "tickets":
    case "commitments": {
      const { runCommitmentsCli, runTicketsCli } = await import("./capital/cli.ts");
      return command === "tickets" ? runTicketsCli(config, capitalArgs!) : runCommitmentsCli(config, capitalArgs!);
    }
    case "directory": {
      const { runDirectoryCli } = await import("./directory/cli.ts");
      const { createWebEngineFor } = await import("./boot.ts");
      return runDirectoryCli(config, directoryArgs!, () => createWebEngineFor(config, undefined));
    }
    case "backup":
    case "restore": {
      const { backupForCli, restoreForCli } = await import("./cli-backup.ts");
      return command === "backup" ? backupForCli(config, extra.file) : restoreForCli(config, extra.file);
    }
    case "install": {
      const { installForCli } = await import("./cli-install.ts");
      return installForCli({ root: extra.root, binary: extra.binary, dryRun: extra.dryRun === "yes" });
    }
    case "types": {
      const { writeTypesForCli } = await import("./cli-scaffold.ts");
      return writeTypesForCli(extra.file);
    }
    case "new": {
      const { newFileForCli } = await import("./cli-scaffold.ts");
      return newFileForCli(extra.kind, extra.id, extra.dir ?? config.plugins ?? ".");
    }
    case "keys":
      return (await import("./evidence/keys-cli.ts")).runKeysCli(config, extra.sub);
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
