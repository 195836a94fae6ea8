/**
 * @module http/client-address — who the client is when a reverse proxy stands in front.
 *
 * Only a peer inside `--trust-proxy` may name the client, with `X-Forwarded-For` or, when that
 * is absent, `Forwarded` (RFC 7239). X-Forwarded-For comes first because it is what Caddy, nginx,
 * Traefik and HAProxy set, and Caddy passes a caller's own `Forwarded` through untouched: read
 * first, that one would let any caller name itself. The list is read from the right (the hop nearest us) past every trusted
 * address; the first untrusted one is the client. From any other peer the headers are ignored
 * and the peer is the client, so a caller cannot spoof its way past rate limits or into
 * another caller's idempotency scope. The resolver also counts which peers send forwarding
 * headers, for `doctor` (via the admin listener) to compare against the setting.
 */
import { BlockList, isIP } from "node:net";

export interface TrustedProxies {
  /** The setting as written (for messages). */
  readonly text: string;
  contains(address: string): boolean;
}

/** Parses `CIDR[,CIDR]` (a bare address is a /32 or /128); returns the problems instead when any part is not one. */
export function parseTrustedProxies(text: string): TrustedProxies | { problems: string[] } {
  const list = new BlockList();
  const problems: string[] = [];
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [address = "", prefixText] = part.split("/", 2);
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
    if (family === 0 || !(prefix >= 0 && prefix <= max)) {
      problems.push(`"${part}" is not an IPv4 or IPv6 address or CIDR range`);
      continue;
    }
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  if (problems.length === 0 && !text.trim()) problems.push("names no address");
  if (problems.length) return { problems };
  return {
    text,
    contains(address) {
      const plain = unmapped(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

export interface PeerSeen {
  readonly address: string;
  readonly trusted: boolean;
  readonly requests: number;
  /** Requests from it that carried Forwarded / X-Forwarded-For. */
  readonly forwarded: number;
}

export interface ClientResolver {
  /** The client address for a request that arrived from `peer`. */
  resolve(peer: string, headers: Headers): string;
  /** Peers seen since start (at most 64, most requests first). */
  peers(): PeerSeen[];
}

const maxPeersKept = 64;

export function createClientResolver(trusted: TrustedProxies | undefined): ClientResolver {
  const seen = new Map<string, { requests: number; forwarded: number; trusted: boolean }>();
  return {
    resolve(peer, headers) {
      const address = unmapped(peer);
      const forwardedFor = forwardedChain(headers);
      const isTrusted = trusted?.contains(address) ?? false;
      let stats = seen.get(address);
      if (!stats && seen.size < maxPeersKept) seen.set(address, (stats = { requests: 0, forwarded: 0, trusted: isTrusted }));
      if (stats) {
        stats.requests++;
        if (forwardedFor) stats.forwarded++;
      }
      if (!isTrusted || !forwardedFor) return address;
      let client = address;
      for (let i = forwardedFor.length - 1; i >= 0; i--) {
        const hop = forwardedFor[i]!;
        // A hop that is not an address (obfuscated, "unknown", garbage): stop at the last one we could trust.
        if (isIP(hop) === 0) return client;
        client = hop;
        if (!trusted!.contains(hop)) return hop;
      }
      return client;
    },
    peers() {
      return [...seen].map(([address, s]) => ({ address, ...s })).sort((a, b) => b.requests - a.requests);
    },
  };
}

/** The addresses a request names, nearest hop last: X-Forwarded-For, else `Forwarded` for= values; undefined without either. */
function forwardedChain(headers: Headers): string[] | undefined {
  const xff = headers.get("x-forwarded-for");
  if (xff) return xff.split(",").map((h) => nodeAddress(h));
  const forwarded = headers.get("forwarded");
  if (forwarded) {
    const hops: string[] = [];
    for (const element of forwarded.split(",")) {
      const pair = element.split(";").map((p) => p.trim()).find((p) => p.toLowerCase().startsWith("for="));
      hops.push(pair ? nodeAddress(pair.slice(4)) : "");
    }
    return hops;
  }
  return undefined;
}

/** `"[2001:db8::1]:4711"` → `2001:db8::1`, `192.0.2.1:80` → `192.0.2.1`. */
function nodeAddress(raw: string): string {
  let value = raw.trim().replace(/^"(.*)"$/, "$1");
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.indexOf(":"));
  return unmapped(value);
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, what a dual-stack socket reports) as plain IPv4. */
function unmapped(address: string): string {
  if (address.length < 8 || address[0] !== ":") return address;
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}
