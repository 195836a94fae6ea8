/**
 * @module deploy/install — `tollbooth install`: the hardened systemd service in one command.
 * Writes the unit files of deploy/ (with the path of the binary that runs this), a starter
 * /etc/tollbooth/env, the data and backup folders, and, as root on the real system, creates
 * the `tollbooth` system user and reloads systemd. `--root DIR` writes under DIR instead and
 * only prints the commands (packaging, tests); `--dry-run` writes nothing.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import backupService from "../../deploy/tollbooth-backup.service" with { type: "text" };
import backupTimer from "../../deploy/tollbooth-backup.timer" with { type: "text" };
import serviceUnit from "../../deploy/tollbooth.service" with { type: "text" };
import { runCommand } from "../runtime/process.ts";

export interface InstallOptions {
  /** Prefix of every written path ("/" for the real system). */
  readonly root: string;
  /** Absolute path of the tollbooth binary the service runs. */
  readonly binary: string;
  readonly dryRun: boolean;
}

export const installedPaths = {
  unit: "/etc/systemd/system/tollbooth.service",
  backupUnit: "/etc/systemd/system/tollbooth-backup.service",
  backupTimer: "/etc/systemd/system/tollbooth-backup.timer",
  env: "/etc/tollbooth/env",
  data: "/var/lib/tollbooth",
  backups: "/var/backups/tollbooth",
} as const;

const starterEnv = `# Tollbooth settings, read by tollbooth.service: TOLLBOOTH_* variables (docs/operator.md, Configuration).
# After a change: systemctl restart tollbooth
TOLLBOOTH_HOST=127.0.0.1
TOLLBOOTH_ADMIN_PORT=8403
TOLLBOOTH_BACKUP_DIR=${installedPaths.backups}
# Behind Caddy on this machine (docs/operator.md, Behind a reverse proxy):
# TOLLBOOTH_TRUST_PROXY=127.0.0.1
# TOLLBOOTH_PUBLIC_URL=https://api.example.com
# Payments:
# TOLLBOOTH_PAYMENTS=on
# TOLLBOOTH_PAY_TO_BASE=0x...
# TOLLBOOTH_PAY_TO_ALGORAND=...
# TOLLBOOTH_FACILITATOR_URL=https://...
`;

/** The unit files with the binary's path in ExecStart. */
export function unitFiles(binary: string): Record<string, string> {
  const withBinary = (text: string) => text.replaceAll("/usr/local/bin/tollbooth", binary);
  return {
    [installedPaths.unit]: withBinary(serviceUnit),
    [installedPaths.backupUnit]: withBinary(backupService),
    [installedPaths.backupTimer]: backupTimer,
  };
}

export interface InstallPlan {
  readonly written: string[];
  readonly kept: string[];
  /** Commands run (real system, as root) or to run (otherwise). */
  readonly commands: string[][];
  readonly ran: boolean;
}

export async function install(options: InstallOptions): Promise<InstallPlan> {
  const at = (path: string) => join(options.root, path);
  const written: string[] = [];
  const kept: string[] = [];
  const write = (path: string, text: string, mode: number, replace: boolean) => {
    if (!replace && existsSync(at(path))) return void kept.push(path);
    if (!options.dryRun) {
      mkdirSync(dirname(at(path)), { recursive: true });
      writeFileSync(at(path), text, { mode });
    }
    written.push(path);
  };
  for (const [path, text] of Object.entries(unitFiles(options.binary))) write(path, text, 0o644, true);
  write(installedPaths.env, starterEnv, 0o640, false);
  if (!options.dryRun) for (const dir of [installedPaths.data, installedPaths.backups]) mkdirSync(at(dir), { recursive: true, mode: 0o750 });

  const userExists = options.root === "/" && (await runCommand(["id", "-u", "tollbooth"])) === 0;
  const commands = [
    ...(userExists ? [] : [["useradd", "--system", "--user-group", "--home-dir", installedPaths.data, "--shell", "/usr/sbin/nologin", "tollbooth"]]),
    ["chown", "-R", "tollbooth:tollbooth", installedPaths.data, installedPaths.backups],
    ["chgrp", "tollbooth", installedPaths.env],
    ["systemctl", "daemon-reload"],
  ];
  const real = options.root === "/" && !options.dryRun;
  if (real) {
    for (const command of commands) {
      const code = await runCommand(command);
      if (code !== 0) throw new Error(`${command.join(" ")} exited with ${code}`);
    }
  }
  return { written, kept, commands, ran: real };
}
