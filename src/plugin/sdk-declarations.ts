/**
 * @module plugin/sdk-declarations — the `tollbooth` module's type declarations for operator
 * files (`tollbooth types DIR`). Inside the binary they are a string the build inlined; from
 * source they are generated (and cached) by scripts/sdk-declarations.ts, a path the bundler
 * never follows.
 */
declare const TOLLBOOTH_SDK_DECLARATIONS: string | undefined;

export async function sdkDeclarations(): Promise<string> {
  if (typeof TOLLBOOTH_SDK_DECLARATIONS === "string") return TOLLBOOTH_SDK_DECLARATIONS;
  const generator = new URL("../../scripts/sdk-declarations.ts", import.meta.url).pathname;
  const { generateSdkDeclarations } = (await import(generator)) as { generateSdkDeclarations: () => Promise<string> };
  return generateSdkDeclarations();
}
