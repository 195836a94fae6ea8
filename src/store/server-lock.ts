/**
 * @module store/server-lock — the mark a running server leaves in its data folder
 * (`tollbooth.pid`: pid, start time, ports), so `tollbooth restore` refuses to replace a
 * database under a live server and `doctor` can tell whether one runs. A mark left by a process
 * that died is ignored.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const serverLockFileName = "tollbooth.pid";

export interface ServerMark {
  readonly pid: number;
  readonly startedAt: string;
  readonly port: number;
  readonly adminPort?: number;
}

export function writeServerMark(dataDir: string, mark: Omit<ServerMark, "pid" | "startedAt">): () => void {
  const path = join(dataDir, serverLockFileName);
  const full: ServerMark = { pid: process.pid, startedAt: new Date().toISOString(), ...mark };
  writeFileSync(path, `${JSON.stringify(full)}\n`);
  return () => {
    // Only remove our own mark: another server may have started on the folder since.
    if (readServerMark(dataDir)?.pid === process.pid) rmSync(path, { force: true });
  };
}

/** The mark of a live server holding `dataDir`, or undefined (none, unreadable, or its process is gone). */
export function liveServerMark(dataDir: string): ServerMark | undefined {
  const mark = readServerMark(dataDir);
  return mark && isAlive(mark.pid) ? mark : undefined;
}

function readServerMark(dataDir: string): ServerMark | undefined {
  try {
    const mark = JSON.parse(readFileSync(join(dataDir, serverLockFileName), "utf8")) as ServerMark;
    return Number.isInteger(mark.pid) ? mark : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user (the service account).
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
