/**
 * @module cli/install — `tollbooth install [--root DIR] [--binary PATH] [--dry-run]` (see
 * deploy/install.ts) and what to do next.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { install, installedPaths } from "../deploy/install.ts";

/** True inside the compiled binary (its modules live in Bun's embedded file system). */
const isCompiled = import.meta.path.startsWith("/$bunfs/") || import.meta.path.startsWith("B:\\~BUN");

export async function installForCli(options: { root?: string | undefined; binary?: string | undefined; dryRun: boolean }): Promise<number> {
  const root = resolve(options.root ?? "/");
  const binary = options.binary ? resolve(options.binary) : isCompiled ? realpathSync(process.execPath) : undefined;
  if (!binary) {
    console.error("tollbooth install: run it from the compiled binary (npm run build; sudo ./dist/tollbooth install), or give --binary PATH");
    return 2;
  }
  if (root === "/" && !options.dryRun && process.getuid?.() !== 0) {
    console.error("tollbooth install: needs root to write /etc/systemd/system and create the tollbooth user (sudo tollbooth install), or use --dry-run / --root DIR");
    return 2;
  }
  const plan = await install({ root, binary, dryRun: options.dryRun });
  const prefix = root === "/" ? "" : root;
  for (const path of plan.written) console.log(`${options.dryRun ? "would write" : "wrote"} ${prefix}${path}`);
  for (const path of plan.kept) console.log(`kept ${prefix}${path} (exists)`);
  for (const command of plan.commands) console.log(`${plan.ran ? "ran" : "run as root:"} ${command.join(" ")}`);
  console.log(`
next:
  1. set payments, public URL and proxy in ${installedPaths.env}
  2. systemctl enable --now tollbooth tollbooth-backup.timer
  3. journalctl -u tollbooth -f   (logs)
  4. sudo -u tollbooth sh -c 'set -a; . ${installedPaths.env}; exec ${binary} doctor --data ${installedPaths.data}'
  the service runs ${binary} as user tollbooth; ${installedPaths.data} is its only writable path.`);
  return 0;
}
