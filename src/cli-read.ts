/**
 * @module cli-read — `tollbooth read URL`: one read with the same engine, guard and robots
 * rules as the server, printed as the web/read JSON result.
 */
import { userAgentFor } from "./boot.ts";
import type { Config } from "./config.ts";
import { toApiError } from "./errors.ts";
import { createWebEngine } from "./web/engine.ts";

export async function readForCli(
  config: Config,
  options: { url: string; format?: string; selector?: string; maxChars?: string; render: boolean },
): Promise<number> {
  const format = options.format === "markdown" ? "markdown" : "text";
  const maxChars = options.maxChars ? Number(options.maxChars) : 20_000;
  if (!Number.isInteger(maxChars) || maxChars < 1000 || maxChars > 60_000) {
    console.error("tollbooth read: --max-chars must be a whole number from 1000 to 60000");
    return 2;
  }
  const web = createWebEngine({ userAgent: userAgentFor(config), allowLoopbackTargets: config.unsafeAllowLoopbackTargets });
  try {
    const result = await web.read(
      { url: options.url, format, maxChars, ...(options.selector ? { selector: options.selector } : {}), ...(options.render ? { render: true } : {}) },
      AbortSignal.timeout(60_000),
    );
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    const e = toApiError(error);
    console.log(JSON.stringify(e.toBody(), null, 2));
    return 1;
  }
}
