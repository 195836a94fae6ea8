/**
 * @module runtime/command-line — which command a `tollbooth` command line names, read without loading the program
 * (the entry decides on it before anything else loads; command.ts runs it).
 */

/** The command `args` names: its first word; `--help` and `--version` are commands too; `serve` when it starts with a flag or is empty. */
export function commandOf(args: readonly string[]): string {
  const first = args[0];
  return first !== undefined && (first === "--help" || first === "--version" || !first.startsWith("--")) ? first : "serve";
}
