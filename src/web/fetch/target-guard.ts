/**
 * @module web/fetch/target-guard — decides whether a URL may be fetched: syntax (scheme, port, userinfo,
 * length, host spelling) and address (every IPv4 the name resolves to must be public).
 *
 * The fetcher connects to the address this module vetted, never to a fresh resolution, so DNS
 * rebinding has no window. The render helper's browser proxy reuses the same functions.
 */
import { isIP } from "node:net";
import { ApiError } from "../../errors.ts";
import { resolveWithSystem, type Resolver } from "./resolver.ts";

export type { Resolver } from "./resolver.ts";

/** spec web-evidence §8: url length. */
export const MAX_URL_LENGTH = 2048;
const PUBLIC_PORTS = new Set([80, 443]);

export interface VettedUrl {
  url: URL;
  /** Host name as it will be resolved (lowercase; an IPv4 literal in dotted-decimal). */
  hostname: string;
  /** Effective port (default port of the scheme when absent). */
  port: number;
}

export interface TargetPolicy {
  resolver?: Resolver;
  /** Test-only: lets 127.0.0.0/8 through, on any port. Every other refusal stays. */
  allowLoopbackTargets: boolean;
}

export interface VettedTarget extends VettedUrl {
  /** The public (or, in test mode, loopback) IPv4 address to connect to. */
  address: string;
}

function refuseUrl(message: string): never {
  throw new ApiError("URL_NOT_ALLOWED", { message });
}

/**
 * Said with every refusal of a target on this machine or its network, so someone trying Tollbooth
 * on one machine finds the mode made for it. The refusal itself stands.
 */
export const LOCAL_TRY_HINT =
  "To try Tollbooth with pages served on this machine, serve them on 127.0.0.1 and start Tollbooth with --local-try (loopback targets only; never on a server others can reach).";

/** Ranges a page served on one's own machine or network sits in. */
const LOCAL_RANGES = new Set(["loopback", "private", "this network", "link-local", "shared address space (CGNAT)"]);

const isLoopbackName = (hostname: string) => hostname === "localhost" || hostname.endsWith(".localhost") || isLoopbackIPv4(hostname);

/** The host part exactly as written in the URL string, so numeric tricks are visible before the URL parser normalises them. */
function readRawHost(input: string): string {
  const afterScheme = input.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:[\\/]*/, "");
  const authority = afterScheme.split(/[/?#\\]/, 1)[0] ?? "";
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostPort.startsWith("[")) return hostPort.slice(0, hostPort.indexOf("]") + 1);
  return hostPort.replace(/:\d*$/, "").toLowerCase();
}

const DOTTED_DECIMAL = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Syntax check of a target URL (no network). Throws ApiError URL_NOT_ALLOWED.
 * With `allowLoopbackTargets`, any port passes here; `resolvePublicTarget` + `checkPort` then
 * keep non-standard ports to loopback addresses.
 */
export function vetUrl(input: string, options: { allowLoopbackTargets?: boolean } = {}): VettedUrl {
  if (input.length > MAX_URL_LENGTH) refuseUrl(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  // The URL parser would read it as U+FFFD, but the result names the URL as sent, and that cannot be signed.
  if (!input.isWellFormed()) refuseUrl("The URL holds a lone surrogate (not Unicode text); its result could not be signed.");
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    refuseUrl("The URL is not valid.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") refuseUrl("Only http and https URLs can be fetched.");
  if (url.username !== "" || url.password !== "") refuseUrl("URLs with credentials (user:password@) are not fetched.");
  if (url.href.length > MAX_URL_LENGTH) refuseUrl(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  const hostname = url.hostname.toLowerCase();
  if (hostname === "") refuseUrl("The URL has no host.");
  if (hostname.startsWith("[")) {
    throw new ApiError("TARGET_NOT_PUBLIC", { message: `IPv6 targets are not fetched; only public IPv4.${hostname === "[::1]" ? ` ${LOCAL_TRY_HINT}` : ""}` });
  }
  // The URL parser turns 2130706433, 0x7f.1 or 0177.0.0.1 into 127.0.0.1; refuse such spellings outright.
  if (isIP(hostname) === 4) {
    const raw = readRawHost(input).replace(/\.$/, "");
    if (!DOTTED_DECIMAL.test(raw) || raw !== hostname) {
      refuseUrl("Numeric IPv4 spellings other than dotted decimal (decimal, octal, hex, short forms) are not fetched.");
    }
  }
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  if (!PUBLIC_PORTS.has(port) && !options.allowLoopbackTargets) {
    refuseUrl(`Only ports 80 and 443 are fetched.${isLoopbackName(hostname) ? ` ${LOCAL_TRY_HINT}` : ""}`);
  }
  return { url, hostname, port };
}

/** IPv4 as a 32-bit unsigned integer; undefined when not dotted decimal. */
function toUint32(ip: string): number | undefined {
  if (!DOTTED_DECIMAL.test(ip)) return undefined;
  return ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);
}

type Cidr = readonly [base: string, bits: number, name: string];

/** Special-purpose IPv4 ranges (IANA registry, RFC 6890 and successors): never public targets. */
const NON_PUBLIC_IPV4: readonly Cidr[] = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared address space (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation (TEST-NET-1)"],
  ["192.31.196.0", 24, "AS112"],
  ["192.52.193.0", 24, "AMT"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["192.175.48.0", 24, "AS112 direct delegation"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation (TEST-NET-2)"],
  ["203.0.113.0", 24, "documentation (TEST-NET-3)"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved (includes broadcast)"],
];

const RANGES = NON_PUBLIC_IPV4.map(([base, bits, name]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { network: ((toUint32(base) ?? 0) & mask) >>> 0, mask, name };
});

/** Name of the special-purpose range holding `ip`, or undefined for a public address. */
export function classifyIPv4(ip: string): string | undefined {
  const value = toUint32(ip);
  if (value === undefined) return "not an IPv4 address";
  return RANGES.find((r) => ((value & r.mask) >>> 0) === r.network)?.name;
}

export function isPublicIPv4(ip: string): boolean {
  return classifyIPv4(ip) === undefined;
}

function isLoopbackIPv4(ip: string): boolean {
  return ip.startsWith("127.") && toUint32(ip) !== undefined;
}

/** IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are refused outright. */
function embedsIPv4(ipv6: string): boolean {
  const v = ipv6.toLowerCase();
  return (
    v.includes(".") ||
    /^(0{0,4}:){0,5}:?ffff:/.test(v) ||
    v.startsWith("::ffff") ||
    v.startsWith("64:ff9b:") ||
    v.startsWith("2002:") ||
    v.startsWith("2001:0:") ||
    v.startsWith("2001:0000:")
  );
}

function refuseTarget(hostname: string, reason: string, hint = ""): never {
  throw new ApiError("TARGET_NOT_PUBLIC", { message: `The target host ${hostname} is not a public IPv4 target (${reason}).${hint ? ` ${hint}` : ""}` });
}

/**
 * Resolves `hostname` (an IPv4 literal resolves to itself) and returns the address to connect to.
 * Refused (TARGET_NOT_PUBLIC) unless every IPv4 address is public; IPv6 addresses are ignored
 * (we connect over IPv4 only) except IPv4-embedding forms, which refuse the host; a host with
 * only IPv6 addresses is refused. Resolution failure is DNS_FAILED.
 */
export async function resolvePublicTarget(hostname: string, policy: TargetPolicy): Promise<string> {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  let addresses: string[];
  if (isIP(name) === 4) {
    addresses = [name];
  } else if (isIP(name) === 6 || name.startsWith("[")) {
    refuseTarget(hostname, "IPv6 literal");
  } else {
    try {
      addresses = await (policy.resolver ?? resolveWithSystem)(name);
    } catch (cause) {
      throw new ApiError("DNS_FAILED", { message: `The host ${hostname} could not be resolved.`, cause });
    }
    if (addresses.length === 0) throw new ApiError("DNS_FAILED", { message: `The host ${hostname} has no address.` });
  }
  const v4: string[] = [];
  for (const address of addresses) {
    const family = isIP(address);
    if (family === 6) {
      if (embedsIPv4(address)) refuseTarget(hostname, `IPv4-embedding IPv6 address ${address}`);
      continue;
    }
    if (family !== 4) refuseTarget(hostname, `unparseable address ${address}`);
    const range = classifyIPv4(address);
    if (range !== undefined && !(policy.allowLoopbackTargets && isLoopbackIPv4(address))) {
      refuseTarget(hostname, `${address} is ${range}`, LOCAL_RANGES.has(range) ? LOCAL_TRY_HINT : "");
    }
    v4.push(address);
  }
  const first = v4[0];
  if (first === undefined) refuseTarget(hostname, "it has only IPv6 addresses");
  return first;
}

/** Ports other than 80/443 are allowed only to loopback in test mode. */
export function checkPort(port: number, address: string, policy: TargetPolicy): void {
  if (PUBLIC_PORTS.has(port)) return;
  if (policy.allowLoopbackTargets && isLoopbackIPv4(address)) return;
  refuseUrl("Only ports 80 and 443 are fetched.");
}

/** Syntax + resolution + port: everything needed before a connection to `input` may be opened. */
export async function vetTarget(input: string, policy: TargetPolicy): Promise<VettedTarget> {
  const vetted = vetUrl(input, { allowLoopbackTargets: policy.allowLoopbackTargets });
  const address = await resolvePublicTarget(vetted.hostname, policy);
  checkPort(vetted.port, address, policy);
  return { ...vetted, address };
}
