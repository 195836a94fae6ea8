/**
 * Ports for servers that must be told their port before they bind (payments on needs --public-url,
 * so the service's own URL is known before it listens; PostgreSQL and a child process take a
 * number). A probed port is free only at the moment of the probe: until the server binds it, any
 * socket on the machine (anvil's listener, an outgoing connection's ephemeral port, another test
 * run) may take it. So a start goes through `onFreshPort`: the port is probed right before the
 * start, and a start that finds it taken is tried again on a fresh one.
 */
import { createServer } from "node:net";

/** A port free right now on 127.0.0.1 (probe and release: only a guess until the server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Whether a failed start failed because its port was taken (Bun's and Node's EADDRINUSE, Deno's AddrInUse, PostgreSQL's log line). */
export function isAddressInUse(error: unknown): boolean {
  if ((error as { code?: unknown } | undefined)?.code === "EADDRINUSE") return true;
  const text = error instanceof Error ? `${error.message}\n${String(error.cause ?? "")}` : String(error);
  return /EADDRINUSE|AddrInUse|address already in use|Is port \d+ in use/i.test(text);
}

/**
 * Starts `start` on a port probed right before it, and again on a fresh port (up to `attempts`
 * times in all) when the port was taken in between. Any other failure is thrown as it is.
 */
export async function onFreshPort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= attempts || !isAddressInUse(error)) throw error;
    }
  }
}

/**
 * Starts `start` again on the same port while it is taken (a restart that must keep its URL: the
 * port the previous server released may be held a moment by a connection still closing).
 */
export async function onSamePort<T>(port: number, start: (port: number) => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= attempts || !isAddressInUse(error)) throw error;
      await Bun.sleep(100);
    }
  }
}
