/**
 * pdf/read through the compiled binary (issue 4): the mupdf WASM must be embedded in dist/tollbooth and work
 * when the binary runs from a directory without node_modules. The PDFs come from a loopback site, which the
 * binary may reach only with the test-only --unsafe-allow-loopback-targets switch.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD_WAIT_MS, buildBinary } from "../support/binary-build.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "../fixtures/pdf", name)));
const sha = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");

let site: SiteServer;
let server: StartedProcess;
let workdir: string;

beforeAll(async () => {
  const binary = await buildBinary();
  site = startSiteServer();
  site.set("/report.pdf", fixture("multi-page.pdf"), "application/pdf");
  site.set("/blank.pdf", fixture("blank-page.pdf"), "application/pdf");
  site.set("/locked.pdf", fixture("encrypted-user.pdf"), "application/pdf");
  workdir = mkdtempSync(join(tmpdir(), "tb-binary-pdf-"));
  server = await startProcess([binary, "serve", "--port", "0", "--data", "data", "--unsafe-allow-loopback-targets"], { cwd: workdir });
}, BUILD_WAIT_MS);

afterAll(async () => {
  await server?.stop();
  await site?.stop();
});

async function readPdfUrl(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.baseUrl}/v1/pdf/read`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: site.url(path) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("dist/tollbooth pdf/read", () => {
  it("runs from a directory without node_modules", () => {
    expect(existsSync(join(workdir, "node_modules"))).toBe(false);
  });

  it("extracts each page's text with the embedded mupdf WASM", async () => {
    const { status, body } = await readPdfUrl("/report.pdf");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ok: true,
      url: site.url("/report.pdf"),
      page_count: 3,
      truncated: false,
      empty_text_pages: [],
      unreadable_text_pages: [],
      ocr_performed: false,
      warnings: [],
    });
    const texts = [
      "Quarterly report\nRevenue grew by 12 percent.\nSpaced out words",
      "Second page\nCaf\u00e9 cr\u00e8me br\u00fbl\u00e9e costs 5 \u20ac.",
      "Third page\nThe end.",
    ];
    expect(body.pages).toEqual(texts.map((text, i) => ({ page: i + 1, text, characters: [...text].length })));
    expect(body.text_sha256).toBe(sha(String(body.text)));
    expect(body.source_sha256).toBe(sha(fixture("multi-page.pdf")));
    expect(site.hits("/report.pdf")).toBe(1);
  });

  it("lists a page without text and warns that images may carry information", async () => {
    const { status, body } = await readPdfUrl("/blank.pdf");
    expect(status).toBe(200);
    expect(body.empty_text_pages).toEqual([2]);
    expect(String((body.warnings as string[])[0])).toContain("images may carry information");
  });

  it("fails a password-protected PDF with its own code", async () => {
    const { status, body } = await readPdfUrl("/locked.pdf");
    expect(status).toBe(422);
    expect(body).toMatchObject({ ok: false, error: "PDF_ENCRYPTED" });
  });
});
