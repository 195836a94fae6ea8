// Bun's `with { type: "file" }` import of the mupdf WASM binary yields its path (on disk, or inside a compiled binary).
declare module "*/mupdf-wasm.wasm" {
  const path: string;
  export default path;
}
