/**
 * The PDF thread: the same results and the same ApiErrors (code, message, details) as readPdf on
 * the caller's thread, mupdf never loaded on the caller's thread, and reads one after another.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../../../src/errors.ts";
import { createPdfThread } from "../../../src/web/threads/pdf-thread.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "../../fixtures/pdf", name)));
const thread = createPdfThread();

afterAll(async () => {
  await thread.close();
});

describe("PDF thread", () => {
  it("reads PDFs on its own thread: mupdf is never loaded on the caller's", async () => {
    // A process of its own: test files share one, and others load mupdf here.
    const probe = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../support/pdf-thread-probe.ts")], { stderr: "pipe" });
    expect(probe.exitCode).toBe(0);
    expect(JSON.parse(probe.stdout.toString())).toEqual({ pageCount: 3, mupdfLoadedHere: false });
    expect((await thread.read(fixture("multi-page.pdf"))).page_count).toBe(3);
    expect(thread.started()).toBe(true);
  });

  it("gives the same results as readPdf on this thread", async () => {
    const names = ["multi-page.pdf", "page-labels.pdf", "two-columns.pdf", "long-text.pdf", "blank-page.pdf", "unmapped-font.pdf"];
    const threaded = await Promise.all(names.map((name) => thread.read(fixture(name))));
    const { readPdf } = await import("../../../src/web/pdf/pdf.ts");
    for (const [i, name] of names.entries()) {
      const here = await readPdf(fixture(name));
      const strip = (r: typeof here) => ({ ...r, extraction_ms: 0 });
      expect({ name, result: strip(threaded[i]!) }).toEqual({ name, result: strip(here) });
    }
  });

  it("brings errors back as the same ApiError codes, messages and details", async () => {
    const { readPdf } = await import("../../../src/web/pdf/pdf.ts");
    const cases = [fixture("html.pdf"), fixture("encrypted-user.pdf"), fixture("too-many-pages.pdf"), fixture("no-text.pdf"), new Uint8Array(6 * 1024 * 1024)];
    for (const bytes of cases) {
      const here = await readPdf(bytes.slice()).then(() => undefined, (error: unknown) => error);
      const there = await thread.read(bytes.slice()).then(() => undefined, (error: unknown) => error);
      expect(there).toBeInstanceOf(ApiError);
      const { code, status, message, details } = there as ApiError;
      const expected = here as ApiError;
      expect({ code, status, message, details }).toEqual({ code: expected.code, status: expected.status, message: expected.message, details: expected.details });
    }
  });

  it("refuses reads once closed", async () => {
    const closing = createPdfThread();
    await closing.read(fixture("blank-page.pdf"));
    await closing.close();
    expect(closing.started()).toBe(false);
    await expect(closing.read(fixture("blank-page.pdf"))).rejects.toThrow("closed");
  });
});
