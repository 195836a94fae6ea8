/**
 * Puts Permit2 and x402's x402UptoPermit2Proxy on a test anvil at the addresses the official
 * `@x402/evm` client signs for (test/fixtures/contracts/README.md says where the sources come from).
 * Compiled with solc-js (47 s on a loaded 2-core machine) only when the committed output
 * (test/fixtures/contracts/compiled.json) was compiled from other input: then once per machine,
 * cached under node_modules/.cache/tollbooth, keyed by the hash of the input and compiler version.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { createWalletClient, domainSeparator, encodeDeployData, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress } from "@x402/evm";
import type { Anvil } from "./anvil.ts";

const root = join(import.meta.dir, "..", "fixtures", "contracts");

interface Compiled {
  readonly abi: unknown[];
  readonly bytecode: Hex;
}
interface Artifacts {
  readonly permit2: Compiled;
  readonly uptoProxy: Compiled;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".sol") ? [path] : [];
  });
}

/** Import paths as the sources write them → the vendored file. */
function sourceKey(path: string): string {
  const rel = relative(root, path);
  if (rel.startsWith("openzeppelin/")) return `@openzeppelin/contracts/${rel.slice("openzeppelin/".length)}`;
  if (rel.startsWith("solmate-stand-in/")) return `solmate/src/${rel.endsWith("ERC20.sol") ? "tokens" : "utils"}/${rel.slice("solmate-stand-in/".length)}`;
  return rel;
}

function readSource(path: string): string {
  const text = readFileSync(path, "utf8");
  // Permit2 pins 0.8.17; the only compiler here is solc-js 0.8.37 (see the fixtures' README).
  return path.includes("/permit2/") ? text.replace(/^pragma solidity 0\.8\.17;/m, "pragma solidity ^0.8.17;") : text;
}

/** What solc-js is given: the sources as read (with the two in-memory deviations) and the settings. */
function compilerInput(): string {
  const sources: Record<string, { content: string }> = {};
  for (const file of sourceFiles(root).sort()) {
    const content = readSource(file);
    const key = sourceKey(file);
    // Permit2's and x402's imports are relative to their own files, which keeps keys relative too.
    sources[key] = { content: key.startsWith("solmate/") ? content.replace('"./ERC20.sol"', '"solmate/src/tokens/ERC20.sol"') : content };
  }
  return JSON.stringify({
    language: "Solidity",
    sources,
    settings: {
      // Permit2 needs the IR pipeline (its own build uses it; the legacy one runs out of stack).
      viaIR: true,
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      metadata: { bytecodeHash: "none" },
      outputSelection: { "permit2/src/Permit2.sol": { Permit2: ["abi", "evm.bytecode.object"] }, "x402/x402UptoPermit2Proxy.sol": { x402UptoPermit2Proxy: ["abi", "evm.bytecode.object"] } },
    },
  });
}

export function compileUptoContracts(input = compilerInput()): Artifacts & { compiler: string } {
  const solc = createRequire(import.meta.url)("solc") as { compile(input: string): string; version(): string };
  const output = JSON.parse(solc.compile(input)) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const pick = (file: string, name: string): Compiled => {
    const c = output.contracts[file]?.[name];
    if (!c) throw new Error(`${name} not in solc output`);
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  };
  return { permit2: pick("permit2/src/Permit2.sol", "Permit2"), uptoProxy: pick("x402/x402UptoPermit2Proxy.sol", "x402UptoPermit2Proxy"), compiler: solc.version() };
}

/** The committed output for the input it was compiled from (`bun test/support/upto-contracts.ts` writes it). */
const committed = join(root, "compiled.json");

/** The compiler's input and version, hashed: the same key means the same bytes out. */
function inputKey(input: string): string {
  const solcVersion = (createRequire(import.meta.url)("solc/package.json") as { version: string }).version;
  return createHash("sha256").update(solcVersion).update("\0").update(input).digest("hex");
}

/**
 * The compiled contracts: the committed output when it was compiled from this very input (sources,
 * settings, solc version), else the cache's, else solc-js now (then cached). A fresh clone compiles
 * nothing; a change to any source, setting or the compiler compiles once per machine.
 */
export function uptoArtifacts(): Artifacts {
  const input = compilerInput();
  const key = inputKey(input);
  if (existsSync(committed)) {
    const kept = JSON.parse(readFileSync(committed, "utf8")) as Artifacts & { key: string };
    if (kept.key === key) return { permit2: kept.permit2, uptoProxy: kept.uptoProxy };
  }
  const dir = join(import.meta.dir, "../../node_modules/.cache/tollbooth/upto-contracts");
  const cached = join(dir, `${key.slice(0, 16)}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, "utf8")) as Artifacts;
  const artifacts = compileUptoContracts(input);
  mkdirSync(dir, { recursive: true });
  // Written whole, then renamed: a test process beside this one never reads half a file.
  const partial = `${cached}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(artifacts));
  renameSync(partial, cached);
  return artifacts;
}

if (import.meta.main) {
  const input = compilerInput();
  const { permit2, uptoProxy, compiler } = compileUptoContracts(input);
  writeFileSync(committed, `${JSON.stringify({ key: inputKey(input), compiler, permit2, uptoProxy })}\n`);
  console.log(`wrote ${committed} (${compiler})`);
}

/** Deploys at a scratch address (so constructors run), then moves the code to the canonical address. */
async function deployAt(anvil: Anvil, key: Hex, compiled: Compiled, args: unknown[], target: `0x${string}`, patch: (code: Hex, scratch: `0x${string}`) => Hex = (code) => code): Promise<void> {
  const wallet = createWalletClient({ account: privateKeyToAccount(key), chain: anvil.publicClient.chain, transport: http(anvil.url) });
  const hash = await wallet.sendTransaction({ data: encodeDeployData({ abi: compiled.abi as never, bytecode: compiled.bytecode, args } as never), chain: anvil.publicClient.chain } as never);
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying the contract for ${target} failed`);
  const code = await anvil.publicClient.getCode({ address: receipt.contractAddress });
  if (!code) throw new Error(`no code at ${receipt.contractAddress}`);
  await anvil.rpc("anvil_setCode", [target, patch(code, receipt.contractAddress)]);
}

/** Permit2 and the upto proxy at their canonical addresses on `anvil`. */
export async function deployUptoContracts(anvil: Anvil): Promise<{ permit2: `0x${string}`; uptoProxy: `0x${string}` }> {
  const artifacts = uptoArtifacts();
  const deployer = await anvil.fundedAccount();
  const chainId = anvil.chainId;
  const separator = (verifyingContract: `0x${string}`) => domainSeparator({ domain: { name: "Permit2", chainId, verifyingContract } }).slice(2);
  await deployAt(anvil, deployer.key, artifacts.permit2, [], PERMIT2_ADDRESS, (code, scratch) => {
    const cached = separator(scratch);
    if (!code.includes(cached)) throw new Error("Permit2's cached domain separator not found in its code");
    return code.replaceAll(cached, separator(PERMIT2_ADDRESS)) as Hex;
  });
  const onChain = await anvil.publicClient.readContract({ address: PERMIT2_ADDRESS, abi: artifacts.permit2.abi as never, functionName: "DOMAIN_SEPARATOR" } as never);
  if (onChain !== `0x${separator(PERMIT2_ADDRESS)}`) throw new Error(`Permit2 at ${PERMIT2_ADDRESS} has domain separator ${String(onChain)}`);
  await deployAt(anvil, deployer.key, artifacts.uptoProxy, [PERMIT2_ADDRESS], x402UptoPermit2ProxyAddress);
  return { permit2: PERMIT2_ADDRESS, uptoProxy: x402UptoPermit2ProxyAddress };
}
