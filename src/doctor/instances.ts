/**
 * @module doctor/instances — no two live instances may settle with one signer: they would race for
 * its nonce and about half their concurrent settlements would fail ("nonce too low"). Reads the
 * heartbeats in the database the server uses (the PostgreSQL of --database-url, else --data).
 */
import type { Config } from "../config.ts";
import { openOperatorStore, redactedUrl } from "../database.ts";
import { type InstanceBeat, liveWithinMs, sharedSettlers } from "../store/instances.ts";
import type { CheckResult } from "./check.ts";

const name = "settlement signers";

async function liveSince(config: Config, since: Date): Promise<InstanceBeat[]> {
  const store = await openOperatorStore(config);
  try {
    return await store.instances.live(since);
  } finally {
    await store.close();
  }
}

const who = (b: InstanceBeat) => `${b.instanceId.slice(0, 8)} (${b.host} pid ${b.pid}, seen ${b.seenAt})`;

export async function checkSharedSettlers(config: Config, now: Date = new Date()): Promise<CheckResult> {
  const where = config.databaseUrl ? redactedUrl(config.databaseUrl) : config.data;
  let live: InstanceBeat[];
  try {
    live = await liveSince(config, new Date(now.getTime() - liveWithinMs));
  } catch (error) {
    return { name, status: "fail", detail: `cannot read the instance heartbeats in ${where}: ${(error as Error).message}` };
  }
  const shared = sharedSettlers(live);
  if (shared.length > 0) {
    const lines = shared.map(({ settler, instances }) => `${settler.replace("|", " signer ")} is used by ${instances.length} live instances: ${instances.map(who).join(", ")}`);
    return {
      name,
      status: "fail",
      detail: `${lines.join("; ")}. Give each instance its own settlement key (the pay-to address stays the same) or settle through a remote facilitator`,
    };
  }
  return { name, status: "ok", detail: live.length === 0 ? `no live instance in ${where}` : `${live.length} live instance(s) in ${where}, no settlement signer shared` };
}
