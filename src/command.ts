/**
 * @module command — the `tollbooth` command: parses one from cli/commands.ts and runs it from one table,
 * the core's runs (cli/core-commands.ts) beside the modules' commands; it names none. The usage text
 * below lists them.
 */
import { productVersion } from "./boot.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { RegistryError } from "./plugin/registry.ts";
import { commandHelp, type ParsedCommand, parseCommand, UsageError } from "./cli/args.ts";
import { commands } from "./cli/commands.ts";
import { coreRuns } from "./cli/core-commands.ts";
import type { CommandContext } from "./module/define.ts";
import { modules } from "./modules.generated.ts";
import { commandOf } from "./runtime/command-line.ts";

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

async function main(args: string[]): Promise<number> {
  const command = commandOf(args);
  if (command === args[0]) args.shift();
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

  const context: CommandContext<Config> = {
    config,
    words: parsed.words,
    flags: stringFlags(parsed),
    on: (name) => parsed.flags[name] === true,
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
  };
  const run = moduleCommands.get(command)?.run ?? coreRuns.get(command);
  if (!run) {
    console.error(`tollbooth: unknown command "${command}"\n\n${usage}`);
    return 2;
  }
  return run(context);
}

/** A command's own flags that carry a value, for the room CLIs that read them by name. */
function stringFlags(parsed: ParsedCommand): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(parsed.flags).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** Runs the command line `args` (process.argv without the executable and script): its exit code. */
export async function runCommandLine(args: string[]): Promise<number> {
  try {
    return await main(args);
  } catch (error) {
    if (error instanceof RegistryError) {
      console.error(`tollbooth: refusing to start: ${error.message}`);
      return 1;
    }
    console.error(`tollbooth: ${(error as Error).message}`);
    return 1;
  }
}
