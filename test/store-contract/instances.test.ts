/**
 * Instance heartbeats on both engines (issue 28), and `tollbooth doctor` reading them: on a real
 * PostgreSQL two instances heartbeat with one settlement signer and the doctor fails naming it and
 * both instances; with one instance gone (or each on its own key) it passes.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { openPgFacets } from "../../src/database.ts";
import { checkSharedSettlers } from "../../src/doctor/instances.ts";
import { openDatabase } from "../../src/store/db.ts";
import { startHeartbeat } from "../../src/store/heartbeat.ts";
import { createInstanceRegistry, type InstanceRegistry, instanceMigrations } from "../../src/store/instances.ts";
import { resolveNetworks, type X402Config } from "../../src/x402/config.ts";
import { settlerAddresses } from "../../src/x402/settler-addresses.ts";
import { engineInstances } from "../support/store-engines.ts";

const engines = engineInstances<InstanceRegistry>("instances", {
  sqlite(dir) {
    const db = openDatabase({ path: join(dir, "i.db"), migrations: instanceMigrations });
    return { value: createInstanceRegistry(db), close: () => db.close() };
  },
  async pg(url) {
    const pg = await openPgFacets(url, { max: 2 });
    return { value: pg.instances!, close: () => pg.close() };
  },
});
const postgres = engines.find((engine) => engine.name === "PostgreSQL")!;

const beat = (instanceId: string, seenAt: string, settlers: string[]) => ({ instanceId, host: "h", pid: 1, settlers, startedAt: "2026-11-27T12:00:00.000Z", seenAt });

for (const engine of engines) {
  describe.skipIf(engine.skip)(`instance heartbeats on ${engine.name}`, () => {
    it("keeps one row per instance, refreshed by each beat, lists those seen since a time, and forgets one that leaves", async () => {
      const { instances, close } = await engine.openMany(1);
      const registry = instances[0]!;
      try {
        await registry.beat(beat("a", "2026-11-27T12:00:00.000Z", ["eip155:8453|0xabc"]));
        await registry.beat(beat("b", "2026-11-27T12:00:01.000Z", []));
        await registry.beat(beat("a", "2026-11-27T12:00:10.000Z", ["eip155:8453|0xabc", "algorand|ADDR"]));
        expect(await registry.live(new Date("2026-11-27T12:00:05.000Z"))).toEqual([beat("a", "2026-11-27T12:00:10.000Z", ["eip155:8453|0xabc", "algorand|ADDR"])]);
        expect((await registry.live(new Date("2026-11-27T11:00:00.000Z"))).map((b) => b.instanceId)).toEqual(["a", "b"]);
        await registry.leave("a");
        expect((await registry.live(new Date("2026-11-27T11:00:00.000Z"))).map((b) => b.instanceId)).toEqual(["b"]);
      } finally {
        await close();
      }
    }, 30_000);
  });
}

describe.skipIf(postgres.skip)("doctor on a shared PostgreSQL", () => {
  it("fails while two live instances share a settlement signer, naming it, and passes once one stops", async () => {
    const url = await postgres.freshDatabase!();
    const config = loadConfig({ argv: ["--data", mkdtempSync(join(tmpdir(), "tb-doctor-")), "--database-url", url], env: {} });
    const [one, two] = await Promise.all([openPgFacets(url, { max: 2 }), openPgFacets(url, { max: 2 })]);
    const warn = (message: string, error: Error) => {
      throw new Error(`${message}: ${error.message}`);
    };
    try {
      const shared = "eip155:84532|0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
      const first = await startHeartbeat(one.instances!, { settlers: [shared, "algorand-testnet|OWNKEY1"], warn });
      expect(await checkSharedSettlers(config)).toMatchObject({ status: "ok", detail: expect.stringContaining("1 live instance(s)") });
      const second = await startHeartbeat(two.instances!, { settlers: ["algorand-testnet|OWNKEY2", shared], warn });
      const refused = await checkSharedSettlers(config);
      expect(refused.status).toBe("fail");
      expect(refused.detail).toContain("eip155:84532 signer 0x70997970c51812dc3a010c7d01b50e0d17dc79c8 is used by 2 live instances");
      expect(refused.detail).toContain(first.instanceId.slice(0, 8));
      expect(refused.detail).toContain(second.instanceId.slice(0, 8));
      expect(refused.detail).not.toContain("OWNKEY");
      await second.stop();
      expect(await checkSharedSettlers(config)).toMatchObject({ status: "ok" });
      // A heartbeat older than the live window is a stopped instance: it no longer counts.
      const third = await startHeartbeat(two.instances!, { settlers: [shared], warn });
      expect(await checkSharedSettlers(config, new Date(Date.now() + 60_000))).toMatchObject({ status: "ok", detail: expect.stringContaining("no live instance") });
      await third.stop();
      await first.stop();
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  }, 60_000);
});

describe("what an instance heartbeats", () => {
  it("names each local settlement signer by network and address, and none for a remote facilitator", async () => {
    // anvil's first well-known development key and its account.
    const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const network = (n: string, settlement: "local" | "remote") =>
      ({ family: "evm", network: n, name: n, payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", eip712: { name: "USDC", version: "2" }, settlement, rpcUrl: "http://127.0.0.1:1", settlerPrivateKey: key, facilitator: { url: "http://127.0.0.1:2" } }) as X402Config["networks"][number];
    const config: X402Config = { maxTimeoutSeconds: 300, settlementMarginSeconds: 30, confirmationTimeoutMs: 1000, staleReservationSeconds: 900, networks: [network("eip155:84532", "local"), network("eip155:31337", "remote")] };
    expect(await settlerAddresses(resolveNetworks(config))).toEqual(["eip155:84532|0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"]);
  });

  it("is written by a serving instance at start and removed when it stops", async () => {
    const { startService } = await import("../../src/boot.ts");
    const { openStore } = await import("../../src/database.ts");
    const { createMemoryLogger } = await import("../../src/log.ts");
    const data = mkdtempSync(join(tmpdir(), "tb-heartbeat-"));
    const service = await startService(loadConfig({ argv: ["--data", data, "--port", "0", "--render", "off", "--extract-workers", "0"], env: {} }), { log: createMemoryLogger() });
    let live;
    try {
      live = await service.store.instances.live(new Date(Date.now() - 60_000));
    } finally {
      await service.close();
    }
    expect(live).toEqual([expect.objectContaining({ pid: process.pid, settlers: [] })]);
    const after = openStore(data);
    expect(await after.instances.live(new Date(0))).toEqual([]);
    await after.close();
  }, 60_000);
});
