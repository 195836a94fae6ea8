/**
 * `npm run bench -- NAME [args]` runs scripts/bench/NAME.ts; without a name, lists them.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dir;
const names = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .map((f) => f.replace(/\.ts$/, ""))
  .sort();
const [name, ...args] = process.argv.slice(2);
if (!name || !names.includes(name)) {
  console.log(`usage: npm run bench -- NAME [args]\n\nbenchmarks:\n${names.map((n) => `  ${n}`).join("\n")}`);
  process.exit(name ? 2 : 0);
}
const child = Bun.spawn([process.execPath, join(dir, `${name}.ts`), ...args], { stdio: ["inherit", "inherit", "inherit"] });
process.exit(await child.exited);
