/**
 * @module plugin/sdk-module — offers `import ... from "tollbooth"` to operator files loaded at
 * run time, also inside the compiled binary where there is no node_modules. Bun-specific seam.
 */
import * as sdk from "../sdk.ts";

let registered = false;

export function registerSdkModule(): void {
  if (registered) return;
  registered = true;
  Bun.plugin({
    name: "tollbooth-sdk",
    setup(build) {
      build.module("tollbooth", () => ({ exports: { ...sdk } as Record<string, unknown>, loader: "object" }));
    },
  });
}
