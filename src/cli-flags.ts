/**
 * @module cli-flags — pulling a command's own flags out of argv before the configuration reads
 * the rest (`--title T`, `--title=T`, bare `--all`).
 */

/** Removes `--name VALUE` (or `--name=VALUE`) from argv and returns the value. */
export function takeFlag(argv: string[], name: string): string | undefined {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = argv[i]!;
  if (arg.includes("=")) {
    argv.splice(i, 1);
    return arg.slice(arg.indexOf("=") + 1);
  }
  const value = argv[i + 1];
  argv.splice(i, value === undefined ? 1 : 2);
  return value;
}

/** Removes a bare `--name` from argv; true when it was there. */
export function takeSwitch(argv: string[], name: string): boolean {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return false;
  argv.splice(i, 1);
  return true;
}

/** Removes the leading positional words (sub-command, ids) up to the first flag. */
export function takePositionals(argv: string[]): string[] {
  const out: string[] = [];
  while (argv[0] !== undefined && !argv[0].startsWith("--")) out.push(argv.shift()!);
  return out;
}
