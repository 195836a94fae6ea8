/**
 * The evidence key file: made on first start with mode 0600, refused when others may read it,
 * rotated with the old public key kept (and its private key gone), noticed by a running server.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvidenceKeyError, evidenceKeyPath, openEvidenceKeys, rotateEvidenceKeys } from "../../src/evidence/key-file.ts";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { openStore } from "../../src/database.ts";
import { sealedWebRead } from "../support/sealed-read.ts";
import { backupDatabase, restoreDatabase } from "../../src/store/backup.ts";
import { evidenceKeyFileName } from "../../src/evidence/key-file.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "tollbooth-keys-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const signedResult = (keys: Awaited<ReturnType<typeof openEvidenceKeys>>, text = "Hello") => sealedWebRead(keys, text);

describe("evidence key file", () => {
  it("is made on first start, mode 0600, and the same key is used on the next start", async () => {
    const dir = tempDir();
    const first = await openEvidenceKeys(dir);
    expect(statSync(evidenceKeyPath(dir)).mode & 0o777).toBe(0o600);
    const again = await openEvidenceKeys(dir);
    expect((await again.current()).kid).toBe((await first.current()).kid);
    expect((await again.jwks()).keys).toHaveLength(1);
  });

  it("is refused when group or others may read it", async () => {
    const dir = tempDir();
    await openEvidenceKeys(dir);
    chmodSync(evidenceKeyPath(dir), 0o644);
    expect(openEvidenceKeys(dir)).rejects.toThrow(EvidenceKeyError);
    expect(openEvidenceKeys(dir)).rejects.toThrow(/chmod 600/);
  });

  it("rotation keeps the old public key published, drops its private key, and a running server signs with the new one", async () => {
    const dir = tempDir();
    const keys = await openEvidenceKeys(dir);
    const old = await signedResult(keys);
    const oldKid = (await keys.current()).kid;
    const { retired, current } = await rotateEvidenceKeys(dir);
    expect(retired).toBe(oldKid);
    const file = JSON.parse(readFileSync(evidenceKeyPath(dir), "utf8")) as { keys: { kid: string; private?: unknown; retired_at?: string }[] };
    expect(file.keys.find((k) => k.kid === oldKid)).toMatchObject({ retired_at: expect.any(String) });
    expect(file.keys.find((k) => k.kid === oldKid)).not.toHaveProperty("private");
    expect(statSync(evidenceKeyPath(dir)).mode & 0o777).toBe(0o600);

    // The running holder re-reads the file (its one-second recheck is passed by moving the clock of the file check).
    const future = new Date(Date.now() + 5000);
    utimesSync(evidenceKeyPath(dir), future, future);
    await Bun.sleep(1100);
    expect((await keys.current()).kid).toBe(current);
    const jwks = await keys.jwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([current, oldKid]);
    expect(await verifyEvidence(old, jwks)).toMatchObject({ valid: true });
    const fresh = await signedResult(keys);
    expect((fresh.attestation as { kid: string }).kid).toBe(current);
    expect(await verifyEvidence(fresh, jwks)).toMatchObject({ valid: true });
    // Without the retired key published, the old result names its key as the failing part.
    expect(await verifyEvidence(old, { keys: jwks.keys.filter((k) => k.kid !== oldKid) })).toMatchObject({ valid: false, failed: { part: "kid" } });
  });

  it("travels with a backup (mode 0600 beside it) and comes back with a restore", async () => {
    const dir = tempDir();
    openStore(dir).close();
    const kid = (await (await openEvidenceKeys(dir)).current()).kid;
    const file = join(tempDir(), "b.db");
    const backup = backupDatabase(dir, file, [evidenceKeyFileName]);
    expect(backup.besideFiles).toEqual([`${file}.${evidenceKeyFileName}`]);
    expect(statSync(`${file}.${evidenceKeyFileName}`).mode & 0o777).toBe(0o600);
    const elsewhere = tempDir();
    expect(restoreDatabase(elsewhere, file, new Date(), [evidenceKeyFileName]).besideFiles).toEqual([evidenceKeyPath(elsewhere)]);
    expect(statSync(evidenceKeyPath(elsewhere)).mode & 0o777).toBe(0o600);
    expect((await (await openEvidenceKeys(elsewhere)).current()).kid).toBe(kid);
  });
});
