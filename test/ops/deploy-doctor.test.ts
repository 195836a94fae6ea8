/**
 * `tollbooth install` writes units that `systemd-analyze verify` accepts, with the hardening the
 * service needs; `doctor` checks disk space, the backup folder, the admin listener of the running
 * server, and the trusted-proxy setting against the peers that server actually saw.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { adminListener, backupFolder, diskSpace, trustedProxy } from "../../src/doctor/ops.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { backupDatabase } from "../../src/store/backup.ts";
import { repoRoot } from "../support/binary-build.ts";
import { skipWithout } from "../support/requirements.ts";

const tmp = mkdtempSync(join(tmpdir(), "tb-deploy-"));

async function run(cmd: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn(cmd, { cwd: tmp, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

describe("tollbooth install", () => {
  const root = join(tmp, "root");

  it("writes a hardened unit, the backup timer and a starter env file, and prints the root steps", async () => {
    const result = await run([process.execPath, join(repoRoot, "src/main.ts"), "install", "--root", root, "--binary", "/bin/true"]);
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toContain("run as root: useradd --system --user-group");
    const unit = readFileSync(join(root, "etc/systemd/system/tollbooth.service"), "utf8");
    for (const line of ["User=tollbooth", "ExecStart=/bin/true serve --data /var/lib/tollbooth", "ProtectSystem=strict", "ReadWritePaths=/var/lib/tollbooth", "NoNewPrivileges=yes", "Restart=on-failure", "StandardOutput=journal", "EnvironmentFile=-/etc/tollbooth/env"]) {
      expect(unit.split("\n")).toContain(line);
    }
    // The data folder is the only writable path.
    expect(unit.match(/^ReadWritePaths=.*$/gm)).toEqual(["ReadWritePaths=/var/lib/tollbooth"]);
    expect(readFileSync(join(root, "etc/tollbooth/env"), "utf8")).toContain("TOLLBOOTH_BACKUP_DIR=/var/backups/tollbooth");
    expect(existsSync(join(root, "var/lib/tollbooth"))).toBe(true);
    // A second run keeps the operator's env file.
    expect((await run([process.execPath, join(repoRoot, "src/main.ts"), "install", "--root", root, "--binary", "/bin/true"])).out).toContain("kept");
  });

  it.skipIf(skipWithout("systemd-analyze", "systemd-analyze verify of the installed units"))("passes systemd-analyze verify, which does catch a broken unit", async () => {
    const units = ["tollbooth.service", "tollbooth-backup.service", "tollbooth-backup.timer"].map((u) => join(root, "etc/systemd/system", u));
    const verified = await run(["systemd-analyze", "verify", "--man=no", ...units]);
    expect(verified.out + verified.err).toBe("");
    expect(verified.code).toBe(0);
    const broken = join(tmp, "broken.service");
    await Bun.write(broken, readFileSync(units[0]!, "utf8").replace("ExecStart=/bin/true", "ExecStart=/no/such/binary"));
    expect((await run(["systemd-analyze", "verify", "--man=no", broken])).code).not.toBe(0);
  });
});

describe("doctor checks for operations", () => {
  const data = join(tmp, "data");
  const backups = join(tmp, "backups");
  let service: RunningService;
  const argv = ["--port", "0", "--admin-port", "0", "--data", data, "--trust-proxy", "127.0.0.2", "--backup-dir", backups, "--render", "off", "--extract-workers", "0"];

  beforeAll(async () => {
    mkdirSync(backups);
    service = await startService(loadConfig({ argv }), { log: createMemoryLogger() });
  });
  afterAll(() => service.close());

  const from = (localAddress: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      // A call, not a free document: peers are counted for the requests that get a log line of their own.
      const req = http.request({ host: "127.0.0.1", port: service.server.port, path: "/v1/jobs/job_none", localAddress, headers }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      });
      req.on("error", reject);
      req.end();
    });

  it("reports disk space and the backup folder", async () => {
    const config = loadConfig({ argv });
    expect(await diskSpace(config)).toMatchObject({ status: "ok", detail: expect.stringMatching(/GiB free/) });
    expect(await backupFolder(config)).toMatchObject({ status: "warn", detail: expect.stringContaining("no backup yet") });
    backupDatabase(data, join(backups, "tollbooth-20261124T000000Z.db"));
    expect(await backupFolder(config)).toMatchObject({ status: "ok", detail: expect.stringContaining("1 backup(s)") });
    expect(await backupFolder(loadConfig({ argv: [...argv, "--backup-dir", join(tmp, "missing")] }))).toMatchObject({ status: "fail" });
  });

  it("finds the running server's admin listener", async () => {
    expect(await adminListener(loadConfig({ argv }))).toMatchObject({ status: "ok", detail: expect.stringContaining("answers /metrics") });
    expect(await adminListener(loadConfig({ argv: ["--data", join(tmp, "elsewhere"), "--admin-port", "9"] }))).toMatchObject({ status: "ok", detail: expect.stringContaining("no running server") });
  });

  it("compares --trust-proxy with the peers the server saw", async () => {
    const config = loadConfig({ argv });
    expect(await from("127.0.0.2", { "x-forwarded-for": "203.0.113.9" })).toBe(404);
    expect([await trustedProxy(config)].flat()).toEqual([expect.objectContaining({ status: "ok", detail: expect.stringContaining("127.0.0.2 (trusted)") })]);
    // A proxy at another address the setting does not name.
    expect(await from("127.0.0.4", { "x-forwarded-for": "203.0.113.9" })).toBe(404);
    const warned = [await trustedProxy(config)].flat();
    expect(warned[0]).toMatchObject({ status: "warn" });
    expect(warned[0]!.detail).toContain("127.0.0.4 (1 of 1 requests) carry X-Forwarded-For");

    const report = await runDoctor(config);
    const names = report.results.map((r) => r.name);
    for (const name of ["disk space", "backups", "admin listener", "trusted proxy"]) expect(names).toContain(name);
  });
});
