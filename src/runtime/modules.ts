/**
 * @module runtime/modules — offers a module by bare name to files loaded at run time (operator
 * plugin files' `import … from "tollbooth"`), also where there is no node_modules. Bun: a runtime
 * plugin. Deno has no resolver hook: the bundle's import map (scripts/build-deno.ts) maps the name
 * to a small module that re-exports what `offerModule` put in a registry on globalThis.
 */
import { onDeno } from "./which.ts";

/** Where the Deno re-export module finds each offered module's exports. */
export const offeredModulesKey = Symbol.for("tollbooth.offered-modules");

const offered = new Set<string>();

export function offerModule(name: string, exports: Record<string, unknown>): void {
  if (offered.has(name)) return;
  offered.add(name);
  if (onDeno) {
    const holder = globalThis as unknown as Record<symbol, Record<string, Record<string, unknown>> | undefined>;
    (holder[offeredModulesKey] ??= {})[name] = exports;
    return;
  }
  Bun.plugin({
    name: `offer-${name}`,
    setup(build) {
      build.module(name, () => ({ exports, loader: "object" }));
    },
  });
}

/** The source of the module Deno's import map points `name` at: one named export per key of `exports`. */
export function reexportModuleSource(name: string, exportNames: readonly string[]): string {
  const lines = [
    `const offered = globalThis[Symbol.for(${JSON.stringify(offeredModulesKey.description)})]?.[${JSON.stringify(name)}];`,
    `if (!offered) throw new Error(${JSON.stringify(`the module "${name}" is offered only to files the service loads`)});`,
    ...exportNames.map((key) => `export const ${key} = offered[${JSON.stringify(key)}];`),
  ];
  return `${lines.join("\n")}\n`;
}
