/**
 * A real anvil (npm @foundry-rs/anvil) on 127.0.0.1 with a random port, plus the test token
 * (test/x402/fixtures/TestUsdc.sol, compiled artifact committed) and funded random accounts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  toHex,
  type Hex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import artifact from "../x402/fixtures/test-usdc.json" with { type: "json" };


export interface Anvil {
  readonly url: string;
  readonly chainId: number;
  readonly publicClient: PublicClient;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** A fresh key with 100 ETH for gas. */
  fundedAccount(): Promise<{ key: Hex; address: `0x${string}` }>;
  stop(): Promise<void>;
}

function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  // npm 11 does not run the package's postinstall; the platform package already carries the binary.
  const candidates: string[] = [];
  try {
    candidates.push(join(dirname(require.resolve("@foundry-rs/anvil-linux-amd64/package.json")), "bin", "anvil"));
  } catch {
    // not this platform
  }
  try {
    candidates.push(join(dirname(require.resolve("@foundry-rs/anvil/package.json")), "bin", "anvil"));
  } catch {
    // not installed
  }
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error("anvil binary not found (npm @foundry-rs/anvil)");
  return found;
}

export async function startAnvil(options: { chainId?: number } = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337;
  const child: ChildProcess = spawn(anvilBinary(), ["--host", "127.0.0.1", "--port", "0", "--chain-id", String(chainId), "--accounts", "1"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${out}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited ${code}: ${out}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  const chain = defineChain({ id: chainId, name: "anvil", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const publicClient = createPublicClient({ chain, transport: http(url), pollingInterval: 50 }) as PublicClient;
  let id = 0;
  async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) });
    const json = (await response.json()) as { result?: T; error?: { message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result as T;
  }
  return {
    url,
    chainId,
    publicClient,
    rpc,
    async fundedAccount() {
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address;
      await rpc("anvil_setBalance", [address, toHex(100n * 10n ** 18n)]);
      return { key, address };
    },
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
}

export interface TestUsdc {
  readonly address: `0x${string}`;
  mint(to: `0x${string}`, amount: bigint): Promise<void>;
  balanceOf(who: `0x${string}`): Promise<bigint>;
  /** Moves tokens with the holder's key (e.g. a buyer draining its balance during the work). */
  transfer(fromKey: Hex, to: `0x${string}`, amount: bigint): Promise<void>;
  authorizationState(who: `0x${string}`, nonce: Hex): Promise<boolean>;
  /** ERC-20 approve with the holder's key (a buyer letting Permit2 move its tokens, for x402's upto). */
  approve(ownerKey: Hex, spender: `0x${string}`, amount: bigint): Promise<void>;
}

/** Deploys TestUsdc(name, version) with a fresh funded deployer. */
export async function deployTestUsdc(anvil: Anvil, domain: { name: string; version: string }): Promise<TestUsdc> {
  const deployer = await anvil.fundedAccount();
  const chain = anvil.publicClient.chain;
  const wallet = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(anvil.url) });
  const abi = artifact.abi as never;
  const hash = await wallet(deployer.key).deployContract({ abi, bytecode: artifact.bytecode as Hex, args: [domain.name, domain.version] } as never);
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
  const address = receipt.contractAddress;
  if (!address) throw new Error("TestUsdc deployment failed");
  const send = async (key: Hex, functionName: string, args: unknown[]) => {
    const tx = await wallet(key).writeContract({ address, abi, functionName, args } as never);
    const r = await anvil.publicClient.waitForTransactionReceipt({ hash: tx });
    if (r.status !== "success") throw new Error(`${functionName} reverted`);
  };
  const read = <T>(functionName: string, args: unknown[]) => anvil.publicClient.readContract({ address, abi, functionName, args } as never) as Promise<T>;
  return {
    address,
    mint: (to, amount) => send(deployer.key, "mint", [to, amount]),
    balanceOf: (who) => read<bigint>("balanceOf", [who]),
    transfer: (fromKey, to, amount) => send(fromKey, "transfer", [to, amount]),
    authorizationState: (who, nonce) => read<boolean>("authorizationState", [who, nonce]),
    approve: (ownerKey, spender, amount) => send(ownerKey, "approve", [spender, amount]),
  };
}
