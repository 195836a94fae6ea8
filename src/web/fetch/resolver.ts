/**
 * @module web/fetch/resolver — host name → addresses. Injectable so tests map names to any address
 * without a packet leaving the machine.
 */
import { lookup } from "node:dns/promises";

/** All addresses (IPv4 and IPv6, as strings) a host name resolves to; throws when it does not resolve. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS). */
export const resolveWithSystem: Resolver = async (hostname) => {
  const results = await lookup(hostname, { all: true, verbatim: true });
  return results.map((r) => r.address);
};

/** A resolver answering from a fixed table; unknown names fail like NXDOMAIN. For tests and tools. */
export function createStaticResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = table[hostname.toLowerCase()];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses;
  };
}
