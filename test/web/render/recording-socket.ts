/** Proxy socket opener and resolver that record every use, and never open a socket off loopback. */
import net from "node:net";
import type { SocketConnector } from "../../../src/web/render/proxy-guard.ts";
import type { Resolver } from "../../../src/web/fetch/target-guard.ts";

export interface RecordingSockets {
  connect: SocketConnector;
  /** `${address}:${port}` of every socket the proxy asked for. */
  attempts: string[];
}

export function createRecordingSockets(): RecordingSockets {
  const attempts: string[] = [];
  const connect: SocketConnector = (address, port) => {
    attempts.push(`${address}:${port}`);
    // Safety net for the test run itself: a broken guard must not let a packet leave.
    if (!address.startsWith("127.")) {
      const socket = new net.Socket();
      queueMicrotask(() => socket.destroy(new Error(`test connector refused to connect to ${address}`)));
      return socket;
    }
    return net.connect({ host: address, port });
  };
  return { connect, attempts };
}

export interface RecordingResolver {
  resolver: Resolver;
  lookups: string[];
}

/** Test names → private and link-local addresses; anything else fails like NXDOMAIN. */
export function createRecordingResolver(table: Record<string, string[]>): RecordingResolver {
  const lookups: string[] = [];
  const resolver: Resolver = async (hostname) => {
    lookups.push(hostname);
    const addresses = table[hostname.toLowerCase()];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses;
  };
  return { resolver, lookups };
}

export const PRIVATE_NAMES: Record<string, string[]> = {
  "intranet.test": ["10.20.30.40"],
  "metadata.test": ["169.254.169.254"],
  "router.test": ["192.168.1.1"],
  "site.test": ["127.0.0.1"],
  "public.test": ["93.184.216.34"],
};
