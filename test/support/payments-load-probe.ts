/**
 * Run as its own process by test/payments-lazy.test.ts: starts the service with the given flags and
 * says whether the chain libraries (viem, algosdk) got loaded.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";

const data = mkdtempSync(join(tmpdir(), "tb-payments-probe-"));
const argv = ["--host", "127.0.0.1", "--port", "0", "--data", data, "--render", "off", ...process.argv.slice(2)];
const service = await startService(loadConfig({ argv, env: {} }));
const loaded = (name: string) => Object.keys(require.cache).some((path) => path.includes(`/node_modules/${name}/`));
const reply = await fetch(new URL("/v1/capabilities", service.server.url));
await service.close();
rmSync(data, { recursive: true, force: true });
console.log(JSON.stringify({ status: reply.status, viem: loaded("viem"), algosdk: loaded("algosdk") }));
