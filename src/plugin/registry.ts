/**
 * @module plugin/registry — the only list of what Tollbooth sells. Built once at start from the
 * loaded files; every bad declaration is collected and reported together, each naming its file
 * and field, and the server refuses to start.
 */
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { errorCodes } from "../errors.ts";
import { type AnyDefinition, type CheckFailure, definitionId, isDefinition, type PluginDefinition, type ServerCapability, serverCapabilities, type SkillDefinition } from "./define.ts";
import { builtInPricing, type NetworkPrices, type Pricing, type PriceTable, resolvePrices } from "./price.ts";
import { compileValidator, summarizeIssues, type Validator } from "./schema.ts";

export const minTimeoutMs = 100;
export const maxTimeoutMs = 600_000;

/** Routes the service itself serves; a plugin may not take them. */
const reservedRoutes = new Set(["POST /v1/jobs"]);
const reservedPrefixes = ["POST /v1/jobs/"];

/** A file as the loader found it: its name (for messages) and its module exports. */
export interface LoadedFile {
  readonly file: string;
  readonly source: "builtin" | "external";
  readonly exports: Record<string, unknown>;
  /** Why the file could not be imported at all (syntax error, throw at import). */
  readonly loadError?: string;
}

interface EntryBase<D extends AnyDefinition> {
  readonly id: string;
  readonly file: string;
  readonly source: "builtin" | "external";
  readonly definition: D;
  readonly validateInput: Validator<Static<D["input"]>>;
  /** Per-network micro-dollar price of a validated body. */
  readonly priceOf: (input: Static<D["input"]>) => PriceTable;
  /** The networks its prices are for (the registry's). */
  readonly pricing: Pricing;
}

export type PluginEntry = EntryBase<PluginDefinition>;
export type SkillEntry = EntryBase<SkillDefinition>;

export interface Registry {
  /** The networks every price is checked against and the documents quote (plugin/price.ts Pricing). */
  readonly pricing: Pricing;
  readonly plugins: readonly PluginEntry[];
  readonly skills: readonly SkillEntry[];
  /** Endpoints checked but not offered: this server lacks a capability they need (define.ts ServerCapability). */
  readonly withheld: readonly { readonly id: string; readonly missing: readonly ServerCapability[] }[];
  plugin(id: string): PluginEntry | undefined;
  skill(name: string): SkillEntry | undefined;
}

export interface DeclarationProblem {
  readonly file: string;
  readonly field: string;
  readonly message: string;
}

export class RegistryError extends Error {
  readonly problems: readonly DeclarationProblem[];
  constructor(problems: readonly DeclarationProblem[]) {
    super(
      `${problems.length} bad declaration${problems.length === 1 ? "" : "s"}:\n` +
        problems.map((p) => `  ${p.file}: ${p.field}: ${p.message}`).join("\n"),
    );
    this.name = "RegistryError";
    this.problems = problems;
  }
}

/** `job.run.t1` → `job-run-t1`: the file name a definition must have (a family file is a prefix). */
export function fileStemFor(id: string): string {
  return id.replace(/[._]/g, "-");
}

/**
 * Checks every file; prices against `pricing`, the configured networks (default: Base and Algorand,
 * each required). An endpoint that needs a capability not in `capabilities` is checked like any
 * other but withheld: not offered on this server.
 */
export function buildRegistry(files: readonly LoadedFile[], pricing: Pricing = builtInPricing, capabilities: ReadonlySet<ServerCapability> = new Set()): Registry {
  const problems: DeclarationProblem[] = [];
  const plugins: PluginEntry[] = [];
  const withheld: { id: string; missing: ServerCapability[] }[] = [];
  const skills: SkillEntry[] = [];
  const seenIds = new Map<string, string>();
  const seenRoutes = new Map<string, string>();

  for (const loaded of [...files].sort((a, b) => a.file.localeCompare(b.file))) {
    const found = definitionsOf(loaded);
    if (typeof found === "string") {
      problems.push({ file: loaded.file, field: "export default", message: found });
      continue;
    }
    const stem = stemOf(loaded.file);
    for (const definition of found) {
      const report = (field: string, message: string) => problems.push({ file: loaded.file, field, message });
      const entry = checkDefinition(definition, loaded, pricing, report);
      if (!entry) continue;

      const id = entry.id;
      const expected = fileStemFor(id);
      if (found.length === 1 ? stem !== expected : !expected.startsWith(stem)) {
        report(definition.kind === "plugin" ? "id" : "skill", `file name must be ${expected}.ts for id "${id}"`);
      }
      // Endpoints and skills are named apart (a route, a skill field), so one id may be sold both ways.
      const key = `${definition.kind}:${id}`;
      const clash = seenIds.get(key);
      if (clash) report(definition.kind === "plugin" ? "id" : "skill", `duplicate id "${id}" (also in ${clash})`);
      else seenIds.set(key, loaded.file);

      if (definition.kind === "plugin") {
        const route = definition.route;
        const other = seenRoutes.get(route);
        if (other) report("route", `duplicate route "${route}" (also in ${other})`);
        else seenRoutes.set(route, loaded.file);
        const missing = (definition.needs ?? []).filter((need) => !capabilities.has(need));
        if (clash || other) continue;
        if (missing.length > 0) withheld.push({ id, missing });
        else plugins.push(entry as PluginEntry);
      } else if (!clash) {
        skills.push(entry as SkillEntry);
      }
    }
  }
  if (problems.length > 0) throw new RegistryError(problems);

  const pluginById = new Map(plugins.map((p) => [p.id, p]));
  const skillByName = new Map(skills.map((s) => [s.id, s]));
  return Object.freeze({
    pricing,
    plugins: Object.freeze(plugins),
    skills: Object.freeze(skills),
    withheld: Object.freeze(withheld),
    plugin: (id: string) => pluginById.get(id),
    skill: (name: string) => skillByName.get(name),
  });
}

function stemOf(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base.replace(/\.(ts|js|mjs|mts)$/, "");
}

function definitionsOf(loaded: LoadedFile): AnyDefinition[] | string {
  if (loaded.loadError) return `could not be imported: ${loaded.loadError}`;
  const value = loaded.exports.default;
  if (value === undefined) return "the file does not export a plugin (export default definePlugin(...) or defineSkill(...))";
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return "the exported list is empty";
  for (const item of list) {
    if (!isDefinition(item)) return "the default export is not made by definePlugin or defineSkill";
  }
  return list as AnyDefinition[];
}

function checkDefinition(
  definition: AnyDefinition,
  loaded: LoadedFile,
  pricing: Pricing,
  report: (field: string, message: string) => void,
): PluginEntry | SkillEntry | undefined {
  let ok = true;
  const fail = (field: string, message: string) => {
    ok = false;
    report(field, message);
  };

  const id = definitionId(definition);
  if (definition.kind === "plugin") {
    if (typeof id !== "string" || !/^[a-z][a-z0-9]*(\.[a-z0-9_]+)+$/.test(id)) fail("id", `must look like "area.name", got ${JSON.stringify(id)}`);
    const route = definition.route as unknown;
    const needs = definition.needs as unknown;
    if (needs !== undefined && (!Array.isArray(needs) || needs.some((n) => !(serverCapabilities as readonly unknown[]).includes(n)))) fail("needs", `must be a list of capabilities (${serverCapabilities.join(", ")}), got ${JSON.stringify(needs)}`);
    if (typeof route !== "string" || !/^POST \/v1\/[a-z0-9/_.-]+$/.test(route)) {
      fail("route", `must be "POST /v1/<path>", got ${JSON.stringify(route)}`);
    } else if (reservedRoutes.has(route) || reservedPrefixes.some((p) => route.startsWith(p))) {
      fail("route", `"${route}" is served by Tollbooth itself`);
    }
  } else {
    if (typeof id !== "string" || !/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/.test(id)) fail("skill", `must look like "name" or "area.name", got ${JSON.stringify(id)}`);
    if (typeof definition.async !== "boolean") fail("async", "must be true or false");
  }
  if (typeof definition.summary !== "string" || definition.summary.trim() === "") fail("summary", "must be a non-empty sentence");
  if (typeof definition.run !== "function") fail("run", "must be a function (input, ctx) => Promise<result>");

  const input = definition.input as TSchema | undefined;
  if (!input || input.type !== "object") fail("input", "must be a TypeBox object schema (t.Object)");
  else if (input.additionalProperties !== false) fail("input", "must reject unknown properties: t.Object({...}, { additionalProperties: false })");
  else if (definition.kind === "skill" && input.properties && "skill" in (input.properties as object)) {
    fail("input", `must not declare "skill": the jobs endpoint adds it`);
  }

  const timeout = definition.timeoutMs as unknown;
  if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < minTimeoutMs || timeout > maxTimeoutMs) {
    fail("timeoutMs", `must be an integer from ${minTimeoutMs} to ${maxTimeoutMs}, got ${JSON.stringify(timeout)}`);
  }
  const hooks = definition.settlement as { settled?: unknown; unsettled?: unknown } | undefined;
  if (hooks !== undefined) {
    if (typeof hooks?.settled !== "function" || typeof hooks?.unsettled !== "function") fail("settlement", "must give both settled(result, receipt, ctx) and unsettled(result, outcome, ctx)");
    else if (definition.kind === "skill" && definition.async) fail("settlement", "applies to sync calls only (async jobs settle on their own schedule)");
  }
  const freeText = definition.freeText as { input?: unknown; anyText?: unknown; takes?: unknown } | undefined;
  if (freeText !== undefined && (typeof freeText?.input !== "function" || !["undefined", "boolean"].includes(typeof freeText.anyText) || !["undefined", "string"].includes(typeof freeText.takes))) {
    fail("freeText", "must be { input(text) => input | undefined, anyText?: boolean, takes?: string }");
  }
  for (const code of definition.errors ?? []) {
    if (!(code in errorCodes)) fail("errors", `unknown error code ${JSON.stringify(code)}`);
  }

  const priceOf = makePriceOf(definition, pricing, fail);
  if (!ok || !input || !priceOf) return undefined;

  const validateSchema = compileValidator<Static<TObject>>(input);
  const check = typeof definition.check === "function" ? (definition.check as (i: unknown) => CheckFailure | string | undefined) : undefined;
  const validateInput: Validator<Static<TObject>> = (value) => {
    const checked = validateSchema(value);
    if (!checked.ok || !check) return checked;
    const failure = check(checked.value);
    if (failure === undefined) return checked;
    if (typeof failure === "string") return { ok: false, issues: [{ path: "/", message: failure }] };
    return { ok: false, issues: [{ path: "/", message: failure.message }], code: failure.code };
  };
  const validateOutput = definition.output ? compileValidator<unknown>(definition.output) : undefined;
  const examples = Array.isArray(definition.examples) ? definition.examples : [];
  if (examples.length === 0) fail("examples", "at least one example is required");
  examples.forEach((example, index) => {
    const checked = validateInput(example.input);
    if (!checked.ok) {
      fail(`examples[${index}].input`, `does not match input: ${summarizeIssues(checked.issues)}`);
      return;
    }
    try {
      priceOf(checked.value);
    } catch (error) {
      fail(`examples[${index}].price`, (error as Error).message);
    }
    if (validateOutput && example.output !== undefined) {
      const out = validateOutput(example.output);
      if (!out.ok) fail(`examples[${index}].output`, `does not match output: ${summarizeIssues(out.issues)}`);
    }
  });
  if (!ok) return undefined;

  return {
    id,
    file: loaded.file,
    source: loaded.source,
    definition,
    validateInput,
    priceOf,
    pricing,
  } as PluginEntry | SkillEntry;
}

function makePriceOf(
  definition: AnyDefinition,
  pricing: Pricing,
  fail: (field: string, message: string) => void,
): ((input: Static<TObject>) => PriceTable) | undefined {
  const price = definition.price as unknown;
  if (typeof price === "function") {
    return (input) => resolvePrices((price as (i: unknown) => NetworkPrices)(input), pricing);
  }
  try {
    const fixed = resolvePrices(price as NetworkPrices, pricing);
    return () => fixed;
  } catch (error) {
    fail("price", (error as Error).message);
    return undefined;
  }
}
