import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import net from "node:net";
import { type GuardProxy, LANE_IDLE, laneKey, NOT_A_RENDER, NOT_REQUESTED, type ProxyDecision, type ProxyLane, startGuardProxy } from "../../../src/web/render/proxy-guard.ts";
import { exchange } from "./raw-proxy.ts";
import { createRecordingResolver, createRecordingSockets, PRIVATE_NAMES } from "./recording-socket.ts";
import { type RenderSite, startRenderSite } from "./render-site.ts";

function startProxy(allowLoopbackTargets: boolean) {
  const sockets = createRecordingSockets();
  const names = createRecordingResolver(PRIVATE_NAMES);
  const decisions: ProxyDecision[] = [];
  const proxy = startGuardProxy({
    policy: { allowLoopbackTargets, resolver: names.resolver },
    connect: sockets.connect,
    onDecision: (d) => decisions.push(d),
  });
  return { proxy, sockets, names, decisions };
}

describe("web/proxy-guard", () => {
  let site: RenderSite;
  let guarded: ReturnType<typeof startProxy>;
  let proxy: GuardProxy;
  /** A render's lane: where the vetting below applies (the base port admits nothing). */
  let lane: ProxyLane;
  let sitePort: string;
  beforeAll(async () => {
    site = await startRenderSite();
    sitePort = new URL(site.origin).port;
    guarded = startProxy(true);
    proxy = await guarded.proxy;
    lane = await proxy.openLane();
    // What the lane's render asked for (its page's request guard admits each request before it goes out).
    for (const url of [
      "https://intranet.test/",
      "http://169.254.169.254/",
      "http://10.0.0.1:8080/",
      "http://metadata.test/",
      "https://public.test:22/",
      `http://site.test:${sitePort}/`,
      "http://intranet.test/",
      `http://127.0.0.1:${sitePort}/`,
    ]) {
      lane.admit(url);
    }
  });
  afterAll(async () => {
    await proxy.close();
    await site.stop();
  });

  it("refuses a CONNECT tunnel to a name that resolves to a private address, without opening a socket", async () => {
    const answer = await exchange(lane.port, "CONNECT intranet.test:443 HTTP/1.1\r\nHost: intranet.test:443\r\n\r\n");
    expect(answer).toStartWith("HTTP/1.1 403");
    expect(guarded.names.lookups).toContain("intranet.test");
    expect(guarded.decisions).toContainEqual({ kind: "connect", target: "intranet.test:443", allowed: false, reason: "TARGET_NOT_PUBLIC", lane: lane.id });
    expect(guarded.sockets.attempts).toEqual([]);
  });

  it("refuses plain-http requests to link-local and private literals, without opening a socket", async () => {
    for (const target of ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1:8080/", "http://metadata.test/"]) {
      const answer = await exchange(lane.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 403");
      expect(answer.toLowerCase()).toContain("x-tollbooth-proxy: refused");
    }
    expect(guarded.sockets.attempts).toEqual([]);
  });

  it("refuses a public name on a port other than 80/443", async () => {
    const answer = await exchange(lane.port, "CONNECT public.test:22 HTTP/1.1\r\nHost: public.test:22\r\n\r\n");
    expect(answer).toStartWith("HTTP/1.1 403");
    expect(guarded.decisions.at(-1)).toMatchObject({ allowed: false, reason: "URL_NOT_ALLOWED" });
    expect(guarded.sockets.attempts).toEqual([]);
  });

  it("forwards plain http to the vetted address only", async () => {
    const target = `http://site.test:${new URL(site.origin).port}/data.json`;
    const answer = await exchange(lane.port, `GET ${target} HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer).toContain("sentence");
    expect(guarded.sockets.attempts.at(-1)).toBe(`127.0.0.1:${new URL(site.origin).port}`);
  });

  it("opens an allowed CONNECT tunnel to the vetted address and relays bytes both ways", async () => {
    const port = new URL(site.origin).port;
    const answer = await exchange(
      lane.port,
      `CONNECT site.test:${port} HTTP/1.1\r\nHost: site.test:${port}\r\n\r\nGET /data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toStartWith("HTTP/1.1 200 Connection Established");
    expect(answer).toContain("sentence");
    expect(guarded.sockets.attempts.at(-1)).toBe(`127.0.0.1:${port}`);
  });

  it("refuses absolute-form upgrades (WebSockets must use a vetted CONNECT)", async () => {
    const answer = await exchange(lane.port, "GET http://intranet.test/ws HTTP/1.1\r\nHost: intranet.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
    expect(answer).toStartWith("HTTP/1.1 403");
  });

  it("admits nothing on the base port (the browser's own traffic): no vetting, no lookup, no socket", async () => {
    const port = new URL(site.origin).port;
    const lookups = guarded.names.lookups.length;
    const attempts = guarded.sockets.attempts.length;
    const hits = site.hits("/data.json");
    const request = await exchange(proxy.port, `GET http://site.test:${port}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
    expect(request).toStartWith("HTTP/1.1 403");
    expect(request).not.toContain("sentence");
    const tunnel = await exchange(proxy.port, `CONNECT site.test:${port} HTTP/1.1\r\nHost: site.test:${port}\r\n\r\n`);
    expect(tunnel).toStartWith("HTTP/1.1 403");
    expect(guarded.decisions.slice(-2)).toEqual([
      { kind: "request", target: `http://site.test:${port}/data.json`, allowed: false, reason: NOT_A_RENDER },
      { kind: "connect", target: `site.test:${port}`, allowed: false, reason: NOT_A_RENDER },
    ]);
    expect(guarded.names.lookups.length).toBe(lookups);
    expect(guarded.sockets.attempts.length).toBe(attempts);
    expect(site.hits("/data.json")).toBe(hits);
  });

  it("a lane admits nothing before its render's first request: no vetting, no lookup, no socket", async () => {
    const fresh = await proxy.openLane();
    const lookups = guarded.names.lookups.length;
    const attempts = guarded.sockets.attempts.length;
    const hits = site.hits("/data.json");
    const request = await exchange(fresh.port, `GET http://site.test:${sitePort}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
    expect(request).toStartWith("HTTP/1.1 403");
    const tunnel = await exchange(fresh.port, `CONNECT site.test:${sitePort} HTTP/1.1\r\nHost: site.test:${sitePort}\r\n\r\n`);
    expect(tunnel).toStartWith("HTTP/1.1 403");
    // What Chromium 150 sent through a fresh context's lane on its own.
    const service = await exchange(fresh.port, "GET http://chromium-service.invalid/async/folae?async=_fmt:pb HTTP/1.1\r\nHost: chromium-service.invalid\r\n\r\n");
    expect(service).toStartWith("HTTP/1.1 403");
    expect(guarded.decisions.slice(-3)).toEqual([
      { kind: "request", target: `http://site.test:${sitePort}/data.json`, allowed: false, reason: LANE_IDLE, lane: fresh.id },
      { kind: "connect", target: `site.test:${sitePort}`, allowed: false, reason: LANE_IDLE, lane: fresh.id },
      { kind: "request", target: "http://chromium-service.invalid/async/folae?async=_fmt:pb", allowed: false, reason: LANE_IDLE, lane: fresh.id },
    ]);
    expect(guarded.names.lookups.length).toBe(lookups);
    expect(guarded.sockets.attempts.length).toBe(attempts);
    expect(site.hits("/data.json")).toBe(hits);
    await fresh.close();
  });

  it("a lane admits only the hosts and ports its render asked for, and nothing once the render has ended", async () => {
    const own = await proxy.openLane();
    own.admit(`http://site.test:${sitePort}/script-built.html`);
    const lookups = guarded.names.lookups.length;
    const attempts = guarded.sockets.attempts.length;
    // The browser's own traffic in the render's context: other hosts, or the same host on another port.
    for (const request of [
      "CONNECT www.google.com:443 HTTP/1.1\r\nHost: www.google.com:443\r\n\r\n",
      "CONNECT public.test:443 HTTP/1.1\r\nHost: public.test:443\r\n\r\n",
      `GET http://site.test:${Number(sitePort) + 1}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`,
      "GET http://chromium-service.invalid/async/folae HTTP/1.1\r\nHost: chromium-service.invalid\r\n\r\n",
    ]) {
      expect(await exchange(own.port, request)).toStartWith("HTTP/1.1 403");
      expect(guarded.decisions.at(-1)).toMatchObject({ allowed: false, reason: NOT_REQUESTED, lane: own.id });
    }
    expect(guarded.names.lookups.length).toBe(lookups);
    expect(guarded.sockets.attempts.length).toBe(attempts);
    // The host and port it asked for, by request and by tunnel (any path on it).
    const answer = await exchange(own.port, `GET http://site.test:${sitePort}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
    expect(answer).toStartWith("HTTP/1.1 200");
    const tunnel = await exchange(own.port, `CONNECT SITE.test:${sitePort} HTTP/1.1\r\nHost: x\r\n\r\n`, /\r\n\r\n/);
    expect(tunnel).toStartWith("HTTP/1.1 200 Connection Established");
    own.end();
    const after = await exchange(own.port, `GET http://site.test:${sitePort}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
    expect(after).toStartWith("HTTP/1.1 403");
    expect(guarded.decisions.at(-1)).toMatchObject({ allowed: false, reason: LANE_IDLE, lane: own.id });
    own.admit(`http://site.test:${sitePort}/`);
    expect(await exchange(own.port, `GET http://site.test:${sitePort}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`)).toStartWith("HTTP/1.1 403");
    await own.close();
  });

  it("keys admissions by canonical host and explicit port", () => {
    expect(laneKey("http://Example.COM/a?b")).toBe("example.com:80");
    expect(laneKey("https://example.com/")).toBe("example.com:443");
    expect(laneKey("wss://example.com:8443/s")).toBe("example.com:8443");
    expect(laneKey("http://0x7f.1:8080/")).toBe("127.0.0.1:8080");
    expect(laneKey("data:text/plain,x")).toBeUndefined();
    expect(laneKey("not a url")).toBeUndefined();
  });

  it("tags what a lane admits with the lane, and a closed lane stops listening and drops its tunnels", async () => {
    const port = new URL(site.origin).port;
    const other = await proxy.openLane();
    other.admit(`http://site.test:${port}/`);
    expect(other.port).not.toBe(lane.port);
    const answer = await exchange(other.port, `GET http://site.test:${port}/data.json HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n`);
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(guarded.decisions.at(-1)).toMatchObject({ allowed: true, lane: other.id });
    // A tunnel left open when the lane closes is cut.
    const held = net.connect({ host: "127.0.0.1", port: other.port }, () => held.write(`CONNECT site.test:${port} HTTP/1.1\r\nHost: x\r\n\r\n`));
    const cut = new Promise<void>((resolve) => held.once("close", () => resolve()));
    held.on("error", () => undefined);
    await new Promise<void>((resolve) => held.once("data", () => resolve()));
    await other.close();
    await cut;
    const attempts = guarded.sockets.attempts.length;
    await expect(exchange(other.port, `GET http://site.test:${port}/data.json HTTP/1.1\r\nHost: x\r\n\r\n`)).rejects.toThrow();
    expect(guarded.sockets.attempts.length).toBe(attempts);
  });

  it("refuses loopback when the test switch is off", async () => {
    const strict = startProxy(false);
    const strictProxy = await strict.proxy;
    try {
      const port = new URL(site.origin).port;
      const strictLane = await strictProxy.openLane();
      strictLane.admit(`http://127.0.0.1:${port}/`);
      const answer = await exchange(strictLane.port, `GET http://127.0.0.1:${port}/data.json HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(answer).toStartWith("HTTP/1.1 403");
      const tunnel = await exchange(strictLane.port, "CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n");
      expect(tunnel).toStartWith("HTTP/1.1 403");
      expect(strict.sockets.attempts).toEqual([]);
    } finally {
      await strictProxy.close();
    }
  });
});
