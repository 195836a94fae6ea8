/**
 * @module cli/scaffold — for operators writing plugin files next to the binary:
 * `tollbooth types DIR` writes `tollbooth.d.ts` (the SDK's declarations) and a `tsconfig.json`
 * that maps `import … from "tollbooth"` to it, so an editor or `tsc --noEmit` checks the files
 * with no node_modules; `tollbooth new skill|plugin NAME` writes a commented starting file
 * whose example validates.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sdkDeclarations } from "../plugin/sdk-declarations.ts";

export const operatorTsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2023", "DOM"],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    paths: { tollbooth: ["./tollbooth.d.ts"] },
  },
  include: ["*.ts"],
};

export async function writeTypesForCli(dir: string | undefined): Promise<number> {
  if (!dir) {
    console.error("tollbooth types: give the folder of your plugin files (tollbooth types ./plugins)");
    return 2;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tollbooth.d.ts"), await sdkDeclarations());
  console.log(`wrote ${join(dir, "tollbooth.d.ts")}`);
  const tsconfig = join(dir, "tsconfig.json");
  if (existsSync(tsconfig)) {
    console.log(`kept your ${tsconfig}; it needs "paths": { "tollbooth": ["./tollbooth.d.ts"] }`);
  } else {
    writeFileSync(tsconfig, `${JSON.stringify(operatorTsconfig, null, 2)}\n`);
    console.log(`wrote ${tsconfig}`);
  }
  return 0;
}

/** The file name the registry expects for an id: `.` and `_` become `-`. */
export function fileNameFor(id: string): string {
  return `${id.replace(/[._]/g, "-")}.ts`;
}

const skillId = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;
const pluginId = /^[a-z][a-z0-9]*(\.[a-z0-9_]+)+$/;

export function skillTemplate(id: string): string {
  return `/**
 * ${id}: one job skill, sold at POST /v1/jobs with {"skill": "${id}", ...} (and POST /v1/jobs/${id}).
 * Check it with \`tollbooth types .\` once, then \`npx tsc --noEmit\` (or your editor); run it
 * with \`tollbooth serve --plugins .\`. The file name must stay the id with "." and "_" as "-".
 */
import { defineSkill, t } from "tollbooth";

export default defineSkill({
  skill: "${id}",
  // One sentence: what the caller buys (shown in /v1/capabilities, /openapi.json, llms.txt).
  summary: "Counts the words of a text.",
  // The request body. Unknown properties are refused with 400 before any payment.
  input: t.Object(
    {
      text: t.String({ minLength: 1, maxLength: 10_000, description: "The text to count." }),
    },
    { additionalProperties: false },
  ),
  // The result. \`run\` must return exactly this shape (a type error otherwise).
  output: t.Object({ words: t.Integer() }),
  // Dollars per call, or { base: "0.001", algorand: "0.002" } (plus a column for any configured
  // network, by name or CAIP-2 id), or a function of the input.
  price: "0.001",
  // false: answers in the same response. true: 202 with a job id the caller polls.
  async: false,
  // ctx.signal aborts after this many milliseconds (100 to 600000).
  timeoutMs: 2_000,
  // At least one; each must validate against input and output (checked at start).
  examples: [{ input: { text: "pay per call" }, output: { words: 3 } }],
  async run({ text }, ctx) {
    ctx.log.debug("counting", { characters: text.length });
    return { words: text.split(/\\s+/).filter(Boolean).length };
  },
});
`;
}

export function pluginTemplate(id: string): string {
  const route = `/v1/${id.replace(/\./g, "/").replace(/_/g, "-")}`;
  return `/**
 * ${id}: one paid HTTP endpoint, POST ${route}.
 * Check it with \`tollbooth types .\` once, then \`npx tsc --noEmit\` (or your editor); run it
 * with \`tollbooth serve --plugins .\`. The file name must stay the id with "." and "_" as "-".
 */
import { ApiError, definePlugin, t } from "tollbooth";

export default definePlugin({
  id: "${id}",
  route: "POST ${route}",
  // One sentence: what the caller buys.
  summary: "Fetches a public page and returns its title.",
  // The request body. Unknown properties are refused with 400 before any payment.
  input: t.Object(
    {
      url: t.String({ format: "uri", maxLength: 2048, description: "A public http(s) page." }),
    },
    { additionalProperties: false },
  ),
  // The result. \`run\` must return exactly this shape (a type error otherwise).
  output: t.Object({ url: t.String(), title: t.String() }),
  // Dollars per call; failed work is never charged.
  price: "0.002",
  // ctx.signal aborts after this many milliseconds (100 to 600000).
  timeoutMs: 20_000,
  // Error codes run may throw, listed in the docs.
  errors: ["SOURCE_ERROR_STATUS"],
  // At least one; each must validate against input and output (checked at start).
  examples: [{ input: { url: "https://example.com/" }, output: { url: "https://example.com/", title: "Example Domain" } }],
  async run({ url }, ctx) {
    // ctx.web is the guarded fetcher and extractor (robots.txt, public addresses only, size caps).
    const page = await ctx.web.read({ url, format: "text", maxChars: 2_000 }, ctx.signal);
    if (!page.title) throw new ApiError("SOURCE_ERROR_STATUS", { message: "The page has no title." });
    return { url: page.final_url, title: page.title };
  },
});
`;
}

export function newFileForCli(kind: string | undefined, id: string | undefined, dir: string): number {
  if ((kind !== "skill" && kind !== "plugin") || !id) {
    console.error("tollbooth new: say what and its id: tollbooth new skill text.count | tollbooth new plugin page.title [--dir DIR]");
    return 2;
  }
  if (!(kind === "skill" ? skillId : pluginId).test(id)) {
    console.error(`tollbooth new: ${JSON.stringify(id)} is not a ${kind} id (${kind === "skill" ? '"name" or "area.name"' : '"area.name"'}, lower case)`);
    return 2;
  }
  const file = join(dir, fileNameFor(id));
  if (existsSync(file)) {
    console.error(`tollbooth new: ${file} exists; not overwritten`);
    return 1;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, kind === "skill" ? skillTemplate(id) : pluginTemplate(id));
  console.log(`wrote ${file}`);
  if (!existsSync(join(dir, "tollbooth.d.ts"))) console.log(`for your editor: tollbooth types ${dir}`);
  return 0;
}
