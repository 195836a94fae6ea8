/**
 * The fetcher's key directory is documented and checked: /openapi.json lists
 * /.well-known/http-message-signatures-directory as a free route when --fetch-identity is on (and
 * not when off), and `tollbooth doctor` says whether the key is there and whether the server
 * running on the data folder serves the directory, listing that key, at the path sites fetch it
 * from (asked with the public URL's Host).
 * @see issue 42
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { readEvidenceKeyFile } from "../../src/evidence/key-file.ts";
import { createMemoryLogger } from "../../src/log.ts";

const DIRECTORY = "/.well-known/http-message-signatures-directory";
const PUBLIC = "https://tb.example";
const folders: string[] = [];
const running: RunningService[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "tb-fetch-identity-docs-"));
  folders.push(dir);
  return dir;
};
const config = (data: string, identity: "on" | "off") =>
  loadConfig({ argv: ["--data", data, "--port", "0", "--public-url", PUBLIC, "--fetch-identity", identity, "--render", "off"] });
async function serve(data: string, identity: "on" | "off"): Promise<RunningService> {
  const service = await startService(config(data, identity), { log: createMemoryLogger() });
  running.push(service);
  return service;
}
const line = async (data: string, identity: "on" | "off") => (await runDoctor(config(data, identity))).results.find((r) => r.name === "fetch identity");

afterAll(async () => {
  for (const service of running) await service.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe("the key directory in /openapi.json", () => {
  it("is listed as a free GET when --fetch-identity is on, and not when off", async () => {
    const on = await serve(tmp(), "on");
    const doc = (await (await fetch(`http://127.0.0.1:${on.server.port}/openapi.json`, { headers: { host: "tb.example" } })).json()) as { paths: Record<string, { get?: { tags: string[]; responses: Record<string, { content: Record<string, unknown> }> } }> };
    expect(doc.paths[DIRECTORY]?.get?.tags).toEqual(["free"]);
    expect(Object.keys(doc.paths[DIRECTORY]!.get!.responses["200"]!.content)).toEqual(["application/http-message-signatures-directory+json"]);
    // The listed route is the one served.
    expect((await fetch(`http://127.0.0.1:${on.server.port}${DIRECTORY}`, { headers: { host: "tb.example" } })).status).toBe(200);
    const off = await serve(tmp(), "off");
    const plain = (await (await fetch(`http://127.0.0.1:${off.server.port}/openapi.json`, { headers: { host: "tb.example" } })).json()) as { paths: Record<string, unknown> };
    expect(plain.paths[DIRECTORY]).toBeUndefined();
    expect(plain.paths["/v1/web/crawl/{id}"]).toBeDefined();
  }, 60_000);
});

describe("tollbooth doctor's fetch identity line", () => {
  it("says it is off when off", async () => {
    expect(await line(tmp(), "off")).toMatchObject({ status: "ok", detail: expect.stringContaining("off") });
  });

  it("warns that no key exists yet in a fresh data folder", async () => {
    expect(await line(tmp(), "on")).toMatchObject({ status: "warn", detail: expect.stringContaining("no signing key") });
  });

  it("finds the directory served by the running server, listing the current key, at the public URL's path", async () => {
    const data = tmp();
    await serve(data, "on");
    const current = readEvidenceKeyFile(data).current;
    expect(await line(data, "on")).toMatchObject({ status: "ok", detail: expect.stringContaining(`lists the current key ${current}`) });
  }, 60_000);

  it("fails when the server running on the data folder does not serve the directory (started with it off)", async () => {
    const data = tmp();
    await serve(data, "off");
    expect(await line(data, "on")).toMatchObject({ status: "fail", detail: expect.stringContaining("answers /.well-known/http-message-signatures-directory with 404") });
  }, 60_000);
});
