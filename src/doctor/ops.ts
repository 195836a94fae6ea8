/**
 * @module doctor/ops — `tollbooth doctor` checks for running the service: disk space left,
 * the backup folder, the admin listener, and the trusted-proxy setting against where a running
 * server's requests actually come from (asked over its admin listener).
 */
import { accessSync, constants, existsSync, readdirSync, statfsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Config, isLoopbackHost } from "../config.ts";
import type { Check, CheckResult } from "./check.ts";
import type { PeerSeen } from "../http/client-address.ts";
import { liveServerMark } from "../store/server-lock.ts";

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

export const diskSpace: Check = (config) => {
  let dir = config.data;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  const share = free / (fs.blocks * fs.bsize);
  const detail = `${(free / GiB).toFixed(1)} GiB free (${(share * 100).toFixed(0)} %) where ${config.data} lives`;
  if (free < 200 * MiB) return { name: "disk space", status: "fail", detail: `${detail}: SQLite and backups will fail soon` };
  if (free < 2 * GiB || share < 0.05) return { name: "disk space", status: "warn", detail: `${detail}: little left` };
  return { name: "disk space", status: "ok", detail };
};

export const backupFolder: Check = (config) => {
  if (!config.backupDir) return { name: "backups", status: "warn", detail: "no --backup-dir: nothing says where nightly backups go (docs/operator.md, Backups)" };
  const dir = config.backupDir;
  try {
    if (!statSync(dir).isDirectory()) return { name: "backups", status: "fail", detail: `${dir} is not a folder` };
    accessSync(dir, constants.W_OK);
  } catch (error) {
    return { name: "backups", status: "fail", detail: `${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message} (tollbooth backup cannot write there)` };
  }
  const backups = readdirSync(dir)
    .filter((name) => /^tollbooth-.*\.db$/.test(name))
    .map((name) => ({ name, at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  if (backups.length === 0) return { name: "backups", status: "warn", detail: `${dir} is writable but holds no backup yet (tollbooth backup --backup-dir ${dir})` };
  const hours = (Date.now() - backups[0]!.at) / 3_600_000;
  const detail = `${backups.length} backup(s) in ${dir}, newest ${backups[0]!.name} (${hours.toFixed(1)} h old)`;
  return { name: "backups", status: hours > 48 ? "warn" : "ok", detail: hours > 48 ? `${detail}: is the nightly timer running?` : detail };
};

/** Where the running server's admin listener is, if one runs on this data folder. */
function adminOf(config: Config): { url: string; headers: Record<string, string> } | undefined {
  const mark = liveServerMark(config.data);
  const port = mark?.adminPort;
  if (port === undefined) return undefined;
  const host = config.adminHost === "0.0.0.0" || config.adminHost === "::" ? "127.0.0.1" : config.adminHost;
  return { url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`, headers: config.adminToken ? { authorization: `Bearer ${config.adminToken}` } : {} };
}

export const adminListener: Check = async (config) => {
  if (config.adminPort === undefined) return { name: "admin listener", status: "ok", detail: "off (--admin-port N serves /metrics and the dashboard on 127.0.0.1)" };
  const exposure = isLoopbackHost(config.adminHost) ? "loopback only" : `on ${config.adminHost}, token required`;
  const admin = adminOf(config);
  if (!admin) return { name: "admin listener", status: "ok", detail: `configured on ${config.adminHost}:${config.adminPort} (${exposure}); no running server on ${config.data} to ask` };
  try {
    const response = await fetch(`${admin.url}/metrics`, { headers: admin.headers, signal: AbortSignal.timeout(3000) });
    if (response.status === 401) return { name: "admin listener", status: "fail", detail: `${admin.url} refuses this --admin-token` };
    if (!response.ok) return { name: "admin listener", status: "fail", detail: `${admin.url}/metrics answered ${response.status}` };
    return { name: "admin listener", status: "ok", detail: `${admin.url} answers /metrics (${exposure})` };
  } catch (error) {
    return { name: "admin listener", status: "fail", detail: `${admin.url} does not answer: ${(error as Error).message}` };
  }
};

export const trustedProxy: Check = async (config) => {
  const results: CheckResult[] = [];
  if (config.trustProxy && !isLoopbackHost(config.host)) {
    results.push({ name: "trusted proxy", status: "warn", detail: `--trust-proxy is set but the server binds ${config.host}: callers can reach it around the proxy (bind 127.0.0.1 when the proxy runs on this machine)` });
  }
  const admin = adminOf(config);
  if (!admin) {
    results.push({ name: "trusted proxy", status: "ok", detail: `${config.trustProxy ? `trusting ${config.trustProxy}` : "no proxy trusted"}; run doctor while the server runs with --admin-port to compare with the requests it sees` });
    return results;
  }
  let peers: PeerSeen[];
  try {
    const response = await fetch(`${admin.url}/api/clients`, { headers: admin.headers, signal: AbortSignal.timeout(3000) });
    peers = ((await response.json()) as { peers: PeerSeen[] }).peers;
  } catch (error) {
    results.push({ name: "trusted proxy", status: "warn", detail: `could not ask the running server which peers it sees: ${(error as Error).message}` });
    return results;
  }
  const forwardingUntrusted = peers.filter((p) => !p.trusted && p.forwarded > 0);
  const direct = peers.filter((p) => !p.trusted && p.forwarded === 0);
  if (forwardingUntrusted.length > 0) {
    const list = forwardingUntrusted.map((p) => `${p.address} (${p.forwarded} of ${p.requests} requests)`).join(", ");
    results.push({
      name: "trusted proxy",
      status: "warn",
      detail: `requests from ${list} carry X-Forwarded-For/Forwarded but ${forwardingUntrusted.length === 1 ? "that peer is" : "those peers are"} not in --trust-proxy${config.trustProxy ? ` (${config.trustProxy})` : ""}: if it is your proxy, all its callers share one rate limit; add it to --trust-proxy`,
    });
  } else if (config.trustProxy && direct.length > 0 && peers.some((p) => p.trusted)) {
    results.push({ name: "trusted proxy", status: "warn", detail: `besides the proxy, ${direct.map((p) => p.address).join(", ")} reached the server directly` });
  } else {
    const seen = peers.length ? peers.map((p) => `${p.address}${p.trusted ? " (trusted)" : ""}`).join(", ") : "no requests yet";
    results.push({ name: "trusted proxy", status: "ok", detail: `${config.trustProxy ? `trusting ${config.trustProxy}` : "no proxy trusted"}; peers seen: ${seen}` });
  }
  return results;
};

export const operationChecks: Check[] = [diskSpace, backupFolder, adminListener, trustedProxy];
