/**
 * @module cli/args — the one argument parser of every command (node:util parseArgs): the command's
 * own flags, the settings flags (config.ts) and the positional words, in any order. The settings
 * flags are handed back as argv for loadConfig, which reads and checks them with the variables
 * and the file.
 */
import { parseArgs } from "node:util";
import { configFields, flagName } from "../config.ts";

export type { CommandFlag, CommandSpec } from "../module/command-spec.ts";
import type { CommandSpec } from "../module/command-spec.ts";

export interface ParsedCommand {
  /** The command's own flags by name (kebab-case, as typed). */
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly words: readonly string[];
  /** The settings flags, one `--name=value` (or bare boolean) each, for loadConfig. */
  readonly configArgv: readonly string[];
  readonly help: boolean;
}

/** A command line that cannot be read; the message names the flag or word. */
export class UsageError extends Error {
  override name = "UsageError";
}

const settingsFlags: ReadonlyMap<string, "string" | "boolean"> = new Map(
  Object.entries(configFields).map(([key, schema]) => [flagName(key), (schema as { type?: string }).type === "boolean" ? "boolean" : "string"]),
);

export function parseCommand(spec: CommandSpec, args: readonly string[]): ParsedCommand {
  const configArgv: string[] = [];
  const rest: string[] = [];
  for (const arg of args) {
    // A settings switch with its value inline (`--unsafe-allow-loopback-targets=false`) goes to loadConfig as written.
    const inline = /^--([^=]+)=/.exec(arg);
    if (inline && settingsFlags.get(inline[1] as string) === "boolean" && !(inline[1] as string in spec.flags)) configArgv.push(arg);
    else rest.push(arg);
  }
  const options: Record<string, { type: "string" | "boolean" }> = { help: { type: "boolean" } };
  for (const [name, type] of settingsFlags) options[name] = { type };
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.type };
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    throw new UsageError(unknown ? `${unknown[1]}: unknown flag` : message.replace(/\. This command does not take positional arguments$/, ""));
  }
  const flags: Record<string, string | boolean | undefined> = {};
  for (const token of parsed.tokens) {
    if (token.kind !== "option" || token.name === "help") continue;
    if (token.name in spec.flags) {
      if (token.name in flags) throw new UsageError(`--${token.name} given twice`);
      flags[token.name] = token.value ?? true;
    } else {
      configArgv.push(token.value === undefined ? `--${token.name}` : `--${token.name}=${token.value}`);
    }
  }
  if (parsed.positionals.length > spec.maxWords) {
    const extra = parsed.positionals.slice(spec.maxWords).map((word) => JSON.stringify(word)).join(" ");
    throw new UsageError(spec.maxWords === 0 ? `takes no argument, got ${extra}` : `takes at most ${spec.maxWords} argument${spec.maxWords === 1 ? "" : "s"} (${spec.words}), got ${extra} too`);
  }
  return { flags, words: parsed.positionals, configArgv, help: parsed.values.help === true };
}

/** `tollbooth NAME --help`: what the command does, its words and its own flags. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: tollbooth ${spec.name}${spec.words ? ` ${spec.words}` : ""} [flags]`, "", spec.summary];
  const own = Object.entries(spec.flags);
  if (own.length > 0) {
    lines.push("", "Flags:");
    const shown = own.map(([name, flag]) => [`--${name}${flag.value ? ` ${flag.value}` : ""}`, flag.help] as const);
    const width = Math.max(...shown.map(([left]) => left.length));
    for (const [left, help] of shown) lines.push(`  ${left.padEnd(width)}  ${help}`);
  }
  lines.push("", "Flags and words go in any order. The settings flags (--data DIR, --config FILE, …: `tollbooth help`) are taken too.");
  return `${lines.join("\n")}\n`;
}
