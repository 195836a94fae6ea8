import { buildService } from "./src/boot.ts";
import { loadConfig } from "./src/config.ts";
import { createMemoryLogger } from "./src/log.ts";
const mk = async (admin: boolean) => buildService(loadConfig({ argv: ["--data", ":memory:", "--render", "off", "--extract-workers", "0", "--log-level", "warn", ...(admin ? ["--admin-port", "0"] : [])] }), { log: createMemoryLogger() });
const off = await mk(false), on = await mk(true);
const bench = async (s: typeof off, n: number) => { const t = performance.now(); for (let i = 0; i < n; i++) await s.handle(new Request("http://127.0.0.1/health"), "127.0.0.1"); return ((performance.now() - t) * 1000) / n; };
await bench(off, 20000); await bench(on, 20000);
for (let r = 0; r < 4; r++) console.log("off", (await bench(off, 30000)).toFixed(2), "on", (await bench(on, 30000)).toFixed(2), "µs");
process.exit(0);
