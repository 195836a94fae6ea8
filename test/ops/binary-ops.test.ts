/**
 * The operator kit inside the compiled binary, run outside the repository: the admin listener
 * (prom-client and the dashboard page are bundled), /docs (Swagger UI's files bundled), backup and restore.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD_WAIT_MS, buildBinary } from "../support/binary-build.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";

let binary: string;
let workdir: string;
let server: StartedProcess;
let adminUrl: string;

beforeAll(async () => {
  binary = await buildBinary();
  workdir = mkdtempSync(join(tmpdir(), "tb-binary-ops-"));
  server = await startProcess([binary, "serve", "--port", "0", "--admin-port", "0", "--data", "data", "--render", "off"], { cwd: workdir });
  // The running server's mark names its admin port.
  const mark = JSON.parse(readFileSync(join(workdir, "data/tollbooth.pid"), "utf8")) as { pid: number; adminPort: number };
  expect(mark.pid).toBe(server.proc.pid);
  adminUrl = `http://127.0.0.1:${mark.adminPort}`;
}, BUILD_WAIT_MS);

afterAll(async () => {
  await server?.stop();
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([binary, ...args], { cwd: workdir, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

describe("dist/tollbooth operator kit", () => {
  it("serves /metrics and the dashboard on the admin port", async () => {
    await fetch(`${server.baseUrl}/health`);
    const metrics = await (await fetch(`${adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/^tollbooth_http_requests_total\{method="GET",route="\/health",status="200"\} \d+$/m);
    expect(metrics).toContain("process_resident_memory_bytes");
    const page = await fetch(`${adminUrl}/`);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain('<svg id="chart-revenue-day"');
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
  });

  it("serves /docs with Swagger UI's files from inside the binary", async () => {
    expect(await (await fetch(`${server.baseUrl}/docs`)).text()).toContain("/docs/swagger-ui-bundle.js");
    const bundle = await fetch(`${server.baseUrl}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    expect((await fetch(`${server.baseUrl}/docs/swagger-ui.css`)).status).toBe(200);
  });

  it("writes the SDK's declarations and starting files with no repository around", async () => {
    const types = await run("types", "my-plugins");
    expect(types.err).toBe("");
    const declarations = readFileSync(join(workdir, "my-plugins/tollbooth.d.ts"), "utf8");
    expect(declarations).toContain("export declare function defineSkill");
    expect(readFileSync(join(workdir, "my-plugins/tsconfig.json"), "utf8")).toContain("./tollbooth.d.ts");
    expect((await run("new", "skill", "text.shout", "--dir", "my-plugins")).code).toBe(0);
    expect(readFileSync(join(workdir, "my-plugins/text-shout.ts"), "utf8")).toContain('skill: "text.shout"');
  });

  it("writes the systemd units naming its own path", async () => {
    const result = await run("install", "--root", "sysroot");
    expect(result.err).toBe("");
    expect(readFileSync(join(workdir, "sysroot/etc/systemd/system/tollbooth.service"), "utf8")).toContain(`ExecStart=${realpathSync(binary)} serve --data /var/lib/tollbooth`);
  });

  it("backs up while serving and refuses to restore under the live server", async () => {
    const backup = await run("backup", "copy.db", "--data", "data");
    expect(backup.err).toBe("");
    expect(backup.out).toContain("backup written");
    const restore = await run("restore", "copy.db", "--data", "data");
    expect(restore.code).toBe(1);
    expect(restore.err).toContain("holds data");
  });
});
