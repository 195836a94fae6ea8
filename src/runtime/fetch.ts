/**
 * @module runtime/fetch — what the runtime's `fetch` does with a response body. Bun's hands the body
 * back as sent (`decompress: false`), so the web reader decodes it under its own size cap. Deno's
 * decodes gzip, deflate and br itself and still reports the `content-encoding`, which would make the
 * reader decode twice: there the reader asks sources for `identity`.
 */
import { onDeno } from "./which.ts";

export const fetchDecodesBodies = onDeno;
