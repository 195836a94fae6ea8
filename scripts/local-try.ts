/**
 * `npm run try -- [--dir DIR]`: everything the README's tour pays with and reads from, on 127.0.0.1
 * and nowhere else — anvil (npm @foundry-rs/anvil) with a test USDC ("USD Coin", version 2), a buyer
 * holding 10 of it, a settler with gas, and the sample page examples/tour/page.html on a free port.
 * It writes, in DIR (default ./try):
 *   buyer.key, settler.key   the two private keys (mode 0600; test accounts of this chain only)
 *   tollbooth.json           a server config: payments on, settled by this server on that chain
 *   env                      PAGE_URL, NETWORK and ASSET for a shell (`. DIR/env`), written last
 * and runs until it is stopped (Ctrl-C, or kill), taking the chain and the page with it.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployTestUsdc, startAnvil } from "../test/support/anvil.ts";

const { values } = parseArgs({ options: { dir: { type: "string", default: "try" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
rmSync(join(dir, "env"), { force: true }); // the ready mark: only this run's

const chainId = 31337;
const network = `eip155:${chainId}`;
const domain = { name: "USD Coin", version: "2" };
const anvil = await startAnvil({ chainId });
const token = await deployTestUsdc(anvil, domain);
const buyer = await anvil.fundedAccount();
const settler = await anvil.fundedAccount();
const payTo = privateKeyToAccount(generatePrivateKey()).address;
await token.mint(buyer.address, 10_000_000n); // 10 test USDC (6 decimals)

const page = readFileSync(join(import.meta.dir, "..", "examples", "tour", "page.html"));
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/robots.txt") return new Response("User-agent: *\nAllow: /\n", { headers: { "content-type": "text/plain" } });
    if (pathname === "/" || pathname === "/page.html") return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    return new Response("not found", { status: 404 });
  },
});

function writeSecret(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, `${text}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
writeSecret("buyer.key", buyer.key);
const settlerKeyFile = writeSecret("settler.key", settler.key);
const config = {
  payments: "on",
  x402: {
    networks: [
      { family: "evm", network, name: "anvil", payTo, asset: token.address, eip712: domain, settlement: "local", rpcUrl: anvil.url, settlerPrivateKeyFile: settlerKeyFile },
    ],
  },
};
writeFileSync(join(dir, "tollbooth.json"), `${JSON.stringify(config, null, 2)}\n`);
const pageUrl = `http://127.0.0.1:${site.port}/`;
writeFileSync(join(dir, "env"), `PAGE_URL=${pageUrl}\nNETWORK=${network}\nASSET=${token.address}\n`);

console.log(`local chain ${anvil.url} (${network}), test USDC ${token.address}
buyer ${buyer.address} holds 10 test USDC; its key is ${join(dir, "buyer.key")}
sample page ${pageUrl}
server config ${join(dir, "tollbooth.json")} (payments on, settled on this chain to ${payTo})
ready: . ${join(dir, "env")}   (Ctrl-C stops the chain and the page)`);

const stop = async () => {
  rmSync(join(dir, "env"), { force: true });
  await site.stop(true);
  await anvil.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
