/**
 * @module doctor/doctor — `tollbooth doctor`: checks what the server needs and says exactly what is
 * missing. Each check is one function; later features add theirs to `checks`.
 */
import { accessSync, constants, mkdirSync } from "node:fs";
import { loadRegistry } from "../loader/registry.ts";
import { type Config, servingProblems } from "../config.ts";
import { configuredPricing } from "../configured-payments.ts";
import { openStore } from "../database.ts";
import { checkLanguageModel } from "./llm.ts";
import { paymentsOffPricing } from "../plugin/price.ts";
import { RegistryError } from "../plugin/registry.ts";
import { checkBrowser } from "../web/render/browser-doctor.ts";
import { checkSearch } from "./search.ts";
import { checkFetchIdentity } from "./fetch-identity.ts";
import type { Check, CheckResult } from "./check.ts";
import { checkSharedSettlers } from "./instances.ts";
import { operationChecks } from "./ops.ts";
import { checkPayments } from "./payments.ts";


const dataFolder: Check = (config) => {
  // An in-memory store has no folder to make or check (and a folder named ":memory:" must not appear).
  if (config.data === ":memory:") return { name: "data folder", status: "warn", detail: ":memory: keeps nothing: receipts, jobs and keys are lost when the server stops" };
  try {
    mkdirSync(config.data, { recursive: true });
    accessSync(config.data, constants.W_OK);
    const store = openStore(config.data);
    const path = store.path;
    void store.close();
    return { name: "data folder", status: "ok", detail: `${path} opens and is writable` };
  } catch (error) {
    return { name: "data folder", status: "fail", detail: `${config.data}: ${(error as Error).message}` };
  }
};

const plugins: Check = async (config) => {
  // Prices are checked against the configured networks; when those do not resolve (the payments check
  // says why), every table is still checked for one well-formed column.
  const pricing = await configuredPricing(config).catch(() => undefined);
  try {
    const registry = await loadRegistry(config, pricing ?? paymentsOffPricing);
    const priced = pricing ? "" : "; prices not checked against the networks: the payments configuration does not resolve";
    return { name: "plugins", status: pricing ? "ok" : "warn", detail: `${registry.plugins.length} endpoints, ${registry.skills.length} skills load${config.plugins ? ` (with ${config.plugins})` : ""}${priced}` };
  } catch (error) {
    const detail = error instanceof RegistryError ? error.message : (error as Error).message;
    return { name: "plugins", status: "fail", detail };
  }
};

const exposure: Check = (config) => {
  if (config.localTry) return { name: "fetch guard", status: "warn", detail: "--local-try is on: reads may reach this machine's services (127.0.0.0/8); for trying Tollbooth on one machine only" };
  if (config.unsafeAllowLoopbackTargets) return { name: "fetch guard", status: "warn", detail: "--unsafe-allow-loopback-targets is on: tests and benchmarks only" };
  if (config.payments === "off" && config.host !== "127.0.0.1" && config.host !== "localhost") {
    return { name: "exposure", status: "warn", detail: `payments are off and the server binds ${config.host}: it is free to anyone who reaches it` };
  }
  return { name: "exposure", status: "ok", detail: config.payments === "off" ? `payments off, bound to ${config.host}` : `payments on, bound to ${config.host}` };
};

const publicUrl: Check = (config) => {
  const problems = servingProblems(config);
  if (problems.length > 0) return { name: "public URL", status: "fail", detail: `${problems[0]}; serve refuses to start without it` };
  if (!config.publicUrl) return { name: "public URL", status: "ok", detail: "not set: documents name the Host each caller sends and are served Cache-Control: private" };
  return { name: "public URL", status: "ok", detail: config.publicUrl };
};

export const checks: Check[] = [dataFolder, plugins, exposure, publicUrl, checkPayments, (config) => checkSharedSettlers(config), (config) => checkBrowser(config), checkSearch, checkFetchIdentity, checkLanguageModel, ...operationChecks];

export async function runDoctor(config: Config, extra: readonly Check[] = []): Promise<{ ok: boolean; lines: string[]; results: CheckResult[] }> {
  const results: CheckResult[] = [];
  for (const check of [...checks, ...extra]) results.push(...[await check(config)].flat());
  const mark = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;
  const lines = results.map((r) => `[${mark[r.status]}] ${r.name}: ${r.detail}`);
  const failed = results.filter((r) => r.status === "fail").length;
  lines.push(failed ? `${failed} check(s) failed: fix the lines marked FAIL.` : "all required checks passed");
  return { ok: failed === 0, lines, results };
}
