/**
 * A bare Elysia server on loopback (`GET /health` answering a small JSON object), for the memory
 * benches' floor: the runtime and the framework with nothing of ours. Prints `listening PORT`.
 * Run: node_modules/.bin/bun scripts/bench/bare-elysia.ts
 */
import { Elysia } from "elysia";

const startedAt = Date.now();
const app = new Elysia().get("/health", () => ({ ok: true, service: "bare", uptime_sec: Math.round((Date.now() - startedAt) / 1000) }));
app.listen({ hostname: "127.0.0.1", port: 0 });
console.log(`listening ${app.server!.port}`);
