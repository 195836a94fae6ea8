/**
 * @module loader/sdk-module — offers `import ... from "tollbooth"` to operator files loaded at
 * run time, also inside the compiled binary where there is no node_modules (runtime/modules.ts).
 */
import { offerModule } from "../runtime/modules.ts";
import * as sdk from "../sdk.ts";

export const sdkModuleName = "tollbooth";

export function registerSdkModule(): void {
  offerModule(sdkModuleName, { ...sdk } as Record<string, unknown>);
}
