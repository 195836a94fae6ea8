/**
 * @module cli/read — `tollbooth read URL` and `tollbooth read --file PATH --url URL`: one read
 * with the same engine as the server (guard and robots rules for URLs; the same extraction for
 * local files, with no network), printed as the web/read JSON result.
 */
import { createRendererFor, createWebEngineFor } from "../boot.ts";
import type { Config } from "../config.ts";
import { toApiError } from "../errors.ts";
import type { ReadInput } from "../web/engine.ts";
import { loadLocalFile, readLocalSource } from "../web/read-local.ts";

export interface CliReadOptions {
  url?: string;
  /** A local file to extract as if fetched from `url`. */
  file?: string;
  /** Content-Type for `file` (default: from its extension). */
  contentType?: string;
  markdown: boolean;
  /** Alias kept from the first CLI: `--format markdown|text`. */
  format?: string;
  selector?: string;
  maxChars?: string;
  render: boolean;
}

export const READ_USAGE =
  "tollbooth read URL [--markdown] [--selector CSS] [--max-chars N] [--render]\n" +
  "       tollbooth read --file PATH --url URL [--content-type TYPE] [--markdown] [--selector CSS] [--max-chars N]";

function fail(message: string): number {
  console.error(`tollbooth read: ${message}\nusage: ${READ_USAGE}`);
  return 2;
}

export async function readForCli(config: Config, options: CliReadOptions): Promise<number> {
  if (options.format !== undefined && options.format !== "markdown" && options.format !== "text") {
    return fail(`--format must be markdown or text, not "${options.format}"`);
  }
  if (!options.url) return fail(options.file ? "--file needs --url URL (the address the file stands for)" : "give a URL");
  if (options.file && options.render) return fail("--render fetches the page; it does not apply to --file");
  const format: ReadInput["format"] = options.markdown || options.format === "markdown" ? "markdown" : "text";
  const maxChars = options.maxChars ? Number(options.maxChars) : 20_000;
  if (!Number.isInteger(maxChars) || maxChars < 1000 || maxChars > 60_000) return fail("--max-chars must be a whole number from 1000 to 60000");
  const input = { format, maxChars, ...(options.selector !== undefined ? { selector: options.selector } : {}) };
  try {
    let result;
    if (options.file) {
      const source = await loadLocalFile(options.file, { url: options.url, ...(options.contentType ? { contentType: options.contentType } : {}) });
      result = await readLocalSource(source, input);
    } else {
      // The browser is started only when asked for, and always closed.
      const renderer = options.render ? createRendererFor(config) : undefined;
      try {
        const web = createWebEngineFor(config, renderer);
        result = await web.read({ ...input, url: options.url, ...(options.render ? { render: true } : {}) }, AbortSignal.timeout(60_000));
      } finally {
        await renderer?.close();
      }
    }
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (options.file && (code === "ENOENT" || code === "EISDIR" || code === "EACCES")) {
      console.error(`tollbooth read: cannot read ${options.file} (${code})`);
      return 2;
    }
    console.log(JSON.stringify(toApiError(error).toBody(), null, 2));
    return 1;
  }
}
