/**
 * @module module/command-spec — a command's words and own flags, as the one parser (cli/args.ts) reads
 * them and `--help` shows them. A leaf, so feature modules declare commands without importing cli/.
 */
export interface CommandFlag {
  readonly type: "string" | "boolean";
  /** Shown in the command's --help, e.g. "N" or "TEXT"; booleans have none. */
  readonly value?: string;
  readonly help: string;
}

export interface CommandSpec {
  readonly name: string;
  /** The words after the command, as the help shows them: "[FILE]", "add|list|cancel [ID]". */
  readonly words?: string;
  /** Most positional words the command takes (0: none). */
  readonly maxWords: number;
  readonly summary: string;
  readonly flags: Readonly<Record<string, CommandFlag>>;
}
