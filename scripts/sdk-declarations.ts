/**
 * Writes the type declarations of the `tollbooth` module that operator files import
 * (`tollbooth types DIR` hands them out): dts-bundle-generator over src/sdk.ts, TypeBox inlined,
 * so an operator's folder type-checks with no node_modules. Generation type-checks the whole
 * SDK graph (~20 s of CPU), so the result is cached under node_modules/.cache by a hash of every
 * source file src/sdk.ts reaches and of the TypeBox version. scripts/build.ts inlines it into
 * the binary; from source, `tollbooth types` calls this.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = join(import.meta.dir, "..");
const entry = join(root, "src/sdk.ts");
/** Declarations of files imported for their side effect (`with { type: "file" }`) that the graph needs to compile. */
const ambient = ["src/web/extract/turndown-plugin-gfm.d.ts", "src/web/pdf/pdf-wasm-file.d.ts", "src/docs/swagger-ui-files.d.ts"];

/** Every .ts file reachable from src/sdk.ts through relative imports. */
function sourceGraph(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+\.ts)"/g)) visit(resolve(dirname(file), match[1]!));
  };
  visit(entry);
  return [...seen].sort();
}

function cacheKey(): string {
  const hash = createHash("sha256");
  for (const file of [...sourceGraph(), ...ambient.map((p) => join(root, p)), join(root, "node_modules/@sinclair/typebox/package.json"), import.meta.path]) {
    hash.update(file.slice(root.length)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

export async function generateSdkDeclarations(): Promise<string> {
  const cacheDir = join(root, "node_modules/.cache/tollbooth");
  const cached = join(cacheDir, `sdk-${cacheKey()}.d.ts`);
  if (existsSync(cached)) return readFileSync(cached, "utf8");
  const { generateDtsBundle } = await import("dts-bundle-generator");
  const work = mkdtempSync(join(tmpdir(), "tb-sdk-dts-"));
  try {
    const entryFile = join(work, "entry.ts");
    writeFileSync(entryFile, [...ambient.map((p) => `/// <reference path="${join(root, p)}" />`), `export * from "${entry}";`, ""].join("\n"));
    const [bundle] = generateDtsBundle([{ filePath: entryFile, libraries: { inlinedLibraries: ["@sinclair/typebox"] }, output: { noBanner: true } }], {
      preferredConfigPath: join(root, "tsconfig.json"),
    });
    // Nothing in the SDK's surface uses the runtime's own modules; their leftover imports would not resolve without node_modules.
    const body = bundle!.replace(/^import .* from ['"]bun:[^'"]+['"];\n/gm, "");
    const text = `// Type declarations of the "tollbooth" module for plugin and skill files (generated from src/sdk.ts by scripts/sdk-declarations.ts).\n${body}`;
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(cached, text);
    return text;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const text = await generateSdkDeclarations();
  process.stdout.write(text);
}
