/**
 * Evidence read over A2A is signed like evidence read over HTTP: the official A2A client sends a
 * web.read, the completed task's artifact carries `attestation`, and the attestation verifies
 * against the server's published key set (and fails once the text is changed).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { type TestService, testService } from "../support/service.ts";

const ORIGIN = "http://127.0.0.1:8402";
const dataDir = mkdtempSync(join(tmpdir(), "tb-a2a-evidence-"));
const page = "<html><head><title>Signed</title></head><body><article><h1>Signed over A2A</h1><p>This paragraph is the evidence an agent bought over A2A, long enough to be the page's content.</p></article></body></html>";
let pages: ReturnType<typeof Bun.serve>;
let service: TestService;

beforeAll(async () => {
  pages = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  service = await testService(["--data", dataDir, "--unsafe-allow-loopback-targets", "--render", "off"]);
});

afterAll(async () => {
  await service?.close();
  pages?.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("evidence over A2A", () => {
  it("a web.read task's artifact carries an attestation that verifies, and not once its text is changed", async () => {
    const client = new LegacyJsonRpcTransport({
      endpoint: `${ORIGIN}/a2a`,
      fetchImpl: ((input: string | URL | Request, init?: RequestInit) => service.handle(new Request(input, init), "127.0.0.1")) as typeof fetch,
    });
    const sent = await client.sendMessage({
      tenant: "",
      message: {
        messageId: crypto.randomUUID(),
        contextId: "",
        taskId: "",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "data", value: { skill: "web.read", url: `http://127.0.0.1:${pages.port}/` } }, metadata: undefined, filename: "", mediaType: "" }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    expect("status" in sent).toBe(true);
    const content = (sent as { artifacts: { parts: { content?: { $case: string; value: unknown } }[] }[] }).artifacts[0]?.parts[0]?.content;
    expect(content?.$case).toBe("data");
    // A copy: bun's toMatchObject writes its matchers into the object it checks.
    const result = structuredClone(content?.value) as Record<string, unknown>;
    expect(result.text).toContain("Signed over A2A");
    expect(structuredClone(result.attestation)).toMatchObject({ jws: expect.any(String), kid: expect.any(String) });

    const jwks = (await (await service.handle(new Request(`${ORIGIN}/.well-known/jwks.json`), "127.0.0.1")).json()) as Parameters<typeof verifyEvidence>[1];
    const outcome = await verifyEvidence(result, jwks);
    expect(outcome.kind === "malformed" ? `${outcome.part}: ${outcome.message}` : "checked").toBe("checked");
    expect("failed" in outcome && outcome.failed).toBeFalsy();

    const changed = await verifyEvidence({ ...result, text: `${result.text as string}!` }, jwks);
    expect("failed" in changed && changed.failed).toBeTruthy();
  });
});
