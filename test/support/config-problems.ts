/** The problems a ConfigError names, from a call that must throw one. */
import { ConfigError } from "../../src/config.ts";

export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected a ConfigError");
}
