/**
 * The compiled binary extracts on its worker threads: run from a temp directory (no sources, no
 * node_modules) with --extract-workers 2, it reads loopback pages through POST /v1/web/read with
 * results equal to the in-thread path's. There is no silent fallback: a worker entry missing from
 * the binary makes every HTML read fail.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildReadResult } from "../../src/web/engine.ts";
import { BUILD_WAIT_MS, buildBinary } from "../support/binary-build.ts";
import { FIXTURES, type PageServer, startPageServer } from "../support/page-server.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";

let site: PageServer;
let server: StartedProcess;

beforeAll(async () => {
  const binary = await buildBinary();
  site = startPageServer();
  const workdir = mkdtempSync(join(tmpdir(), "tb-binary-extract-"));
  server = await startProcess([binary, "serve", "--port", "0", "--data", "data", "--unsafe-allow-loopback-targets", "--extract-workers", "2"], { cwd: workdir });
}, BUILD_WAIT_MS);

afterAll(async () => {
  await server?.stop();
  await site?.stop();
});

async function read(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.baseUrl}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const SAME_FIELDS = ["title", "description", "language", "text", "text_sha256", "markdown", "markdown_sha256", "headings", "links", "warnings", "source_sha256"];

describe("dist/tollbooth with extraction threads", () => {
  it("reads loopback pages concurrently, equal to the in-thread extraction", async () => {
    const url = site.url("/pages/article.html");
    const expected = await buildReadResult(
      { bytes: readFileSync(join(FIXTURES, "article.html")), headers: { "content-type": "text/html; charset=utf-8" }, finalUrl: url, status: 200 },
      { url, format: "markdown", maxChars: 20_000 },
      new Date().toISOString(),
    );
    const results = await Promise.all(Array.from({ length: 6 }, () => read({ url, format: "markdown" })));
    for (const { status, json } of results) {
      expect(status).toBe(200);
      for (const field of SAME_FIELDS) expect({ field, value: json[field] }).toEqual({ field, value: (expected as unknown as Record<string, unknown>)[field] });
    }
  }, 60_000);

  it("answers a selector that matches nothing with the worker's SELECTOR_NOT_FOUND", async () => {
    const { status, json } = await read({ url: site.url("/pages/article.html"), selector: "#no-such-element" });
    expect(status).toBe(422);
    expect(json).toMatchObject({ ok: false, error: "SELECTOR_NOT_FOUND" });
  }, 60_000);
});
