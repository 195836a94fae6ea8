/**
 * `tollbooth backup` / `restore` through the real CLI while another process keeps committing
 * receipts and jobs to the same database, and restore refusing under a live server.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../support/binary-build.ts";
import { startProcess, type StartedProcess } from "../support/spawn-binary.ts";

const tmp = mkdtempSync(join(tmpdir(), "tb-backup-"));
const running: StartedProcess[] = [];
afterAll(async () => {
  for (const p of running) await p.stop();
});

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([process.execPath, join(repoRoot, "src/main.ts"), ...args], { cwd: tmp, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

/** Sequence numbers of the receipts and jobs in a database file. */
function committed(path: string): { receipts: number[]; jobs: number[] } {
  const db = new Database(path, { readonly: true });
  try {
    const seqs = (sql: string) => db.query<{ id: string }, []>(sql).all().map((r) => Number(r.id.slice(r.id.indexOf("_") + 1)));
    return { receipts: seqs("SELECT id FROM payment_receipts ORDER BY id"), jobs: seqs("SELECT id FROM jobs ORDER BY id") };
  } finally {
    db.close();
  }
}

const isPrefix = (seqs: number[]) => seqs.every((s, i) => s === i + 1);

describe("backup and restore", () => {
  it("copies every committed row while a writer keeps committing, and restores it", async () => {
    const data = join(tmp, "live");
    const writer = Bun.spawn([process.execPath, join(repoRoot, "test/support/store-writer.ts"), data], { stdout: "pipe", stderr: "pipe" });
    const reader = writer.stdout.getReader();
    await reader.read(); // "writing"
    const live = join(data, "tollbooth.db");
    const backups: { file: string; before: number }[] = [];
    for (let i = 0; i < 3; i++) {
      await Bun.sleep(150);
      // Rows committed before the backup starts must all be in it.
      const before = committed(live).jobs.length;
      const file = join(tmp, `b${i}.db`);
      const result = await cli("backup", file, "--data", data);
      expect(result.err).toBe("");
      expect(result.code).toBe(0);
      expect(result.out).toContain(`backup written: ${file}`);
      backups.push({ file, before });
    }
    writer.kill("SIGTERM");
    let tail = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) tail += new TextDecoder().decode(chunk.value);
    await writer.exited;
    const total = Number(/committed (\d+)/.exec(tail)?.[1]);
    expect(total).toBeGreaterThan(backups.at(-1)!.before);

    for (const { file, before } of backups) {
      const rows = committed(file);
      expect(rows.jobs.length).toBeGreaterThanOrEqual(before);
      expect(before).toBeGreaterThan(0);
      // A snapshot: whole pairs in commit order, nothing missing in between.
      expect(isPrefix(rows.jobs)).toBe(true);
      expect(isPrefix(rows.receipts)).toBe(true);
      expect(Math.abs(rows.receipts.length - rows.jobs.length)).toBeLessThanOrEqual(1);
      expect(existsSync(`${file}-wal`)).toBe(false);
    }

    // Restore the middle backup over the live folder: exactly its rows come back; the replaced database is kept.
    const middle = backups[1]!;
    const want = committed(middle.file);
    const restored = await cli("restore", middle.file, "--data", data);
    expect(restored.code).toBe(0);
    expect(restored.out).toContain("kept as");
    expect(committed(live)).toEqual(want);
    const kept = /kept as (\S+)/.exec(restored.out)![1]!;
    expect(committed(kept).jobs.length).toBe(total);

    // The restored database serves: receipts lists the restored rows.
    const receipts = await cli("receipts", "--data", data, "--limit", "1");
    expect(receipts.code).toBe(0);
    expect(receipts.out).toContain("eip155:8453");
  }, 60_000);

  it("refuses to restore while a server holds the data folder, and restores once it stopped", async () => {
    const data = join(tmp, "served");
    const first = await cli("backup", join(tmp, "none.db"), "--data", data);
    expect(first.code).toBe(1);
    expect(first.err).toContain("no database");

    const server = await startProcess([process.execPath, join(repoRoot, "src/main.ts"), "serve", "--port", "0", "--data", data, "--extract-workers", "0", "--render", "off"], { cwd: tmp });
    running.push(server);
    expect((await cli("pause", "--reason", "before backup", "--data", data)).code).toBe(0);
    const file = join(tmp, "served.db");
    expect((await cli("backup", file, "--data", data)).code).toBe(0);
    expect((await cli("backup", file, "--data", data)).err).toContain("exists");
    expect((await cli("resume", "--data", data)).code).toBe(0);

    const refused = await cli("restore", file, "--data", data);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`a server (pid ${server.proc.pid}`);
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);

    await server.stop();
    // SIGTERM closes the service and removes its mark; a mark left by a dead process would not block either.
    const restored = await cli("restore", file, "--data", data);
    expect(restored.err).toBe("");
    expect(restored.code).toBe(0);
    const db = new Database(join(data, "tollbooth.db"), { readonly: true });
    const manager = JSON.parse(db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'manager'").get()!.value);
    db.close();
    expect(manager).toEqual({ openForWork: false, pauseReason: "before backup" });
  }, 60_000);

  it("refuses a file that is not a Tollbooth database", async () => {
    const junk = join(tmp, "junk.db");
    await Bun.write(junk, "not sqlite at all, just text that is long enough to be read as a header");
    const result = await cli("restore", junk, "--data", join(tmp, "other"));
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/junk\.db (does not open|cannot be read|fails)/);
  });
});
