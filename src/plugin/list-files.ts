/**
 * @module plugin/list-files — which files in a folder count as plugin files: sorted, and
 * without tests, typings and hidden or underscore-prefixed files.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const pluginFilePattern = /^[^._][^/]*\.(ts|js|mjs|mts)$/;

export function listPluginFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => pluginFilePattern.test(name) && !/\.(d|test|spec)\.(ts|mts)$/.test(name))
    .filter((name) => statSync(join(dir, name)).isFile())
    .sort();
}
