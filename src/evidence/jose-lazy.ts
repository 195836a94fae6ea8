/**
 * @module evidence/jose-lazy — jose, loaded on first use: every CLI command loads the app's modules,
 * and jose takes ~45 ms to load on this machine, which only serving and the evidence commands need.
 */
type Jose = typeof import("jose");

let loaded: Jose | undefined;

export async function jose(): Promise<Jose> {
  loaded ??= await import("jose");
  return loaded;
}
