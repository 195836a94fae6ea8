/**
 * @module loader/registry — the registry a configuration serves: the built-in files plus the
 * operator's folder (loader/load.ts), priced and given the capabilities the configuration has.
 * Serving (boot.ts), the doctor and `tollbooth catalogue` build it the same way.
 */
import type { Config } from "../config.ts";
import { configuredPricing } from "../configured-payments.ts";
import type { ServerCapability } from "../plugin/define.ts";
import type { Pricing } from "../plugin/price.ts";
import { buildRegistry, type LoadedFile, type Registry } from "../plugin/registry.ts";
import { hasSearchEngine, type SearchConfig } from "../search/search-config.ts";
import { loadBuiltinFiles, loadExternalFiles } from "./load.ts";

/**
 * Built-in files plus the operator's folder, validated together, prices against `pricing` (the
 * configured networks: `configuredPricing`; default Base and Algorand). Throws RegistryError naming
 * each bad declaration.
 */
export async function loadRegistry(config: Pick<Config, "plugins"> & Partial<SearchConfig>, pricing?: Pricing): Promise<Registry> {
  const files: LoadedFile[] = loadBuiltinFiles();
  if (config.plugins) files.push(...(await loadExternalFiles(config.plugins)));
  return buildRegistry(files, pricing, capabilitiesOf(config));
}

/** What this configuration gives the endpoints that need something (plugin/define.ts ServerCapability). */
export function capabilitiesOf(config: Partial<SearchConfig>): Set<ServerCapability> {
  const capabilities = new Set<ServerCapability>();
  if (hasSearchEngine(config)) capabilities.add("search");
  return capabilities;
}

/** The registry priced for the networks this configuration takes payments on (throws ConfigError or RegistryError). */
export async function loadConfiguredRegistry(config: Config): Promise<Registry> {
  return loadRegistry(config, await configuredPricing(config));
}
