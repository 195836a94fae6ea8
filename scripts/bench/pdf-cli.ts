/**
 * Prints the service-shaped PDF result for one file, for the PDF bench (/work/shared/bench/pdf/run.sh):
 *   bun scripts/bench/pdf-cli.ts <file.pdf>
 * Success: `{ ok: true, url, ...PdfExtraction }`, exit 0. Failure: `{ ok: false, error, status, message }`, exit 1.
 */
import { readFileSync } from "node:fs";
import { toApiError } from "../../src/errors.ts";
import { readPdf } from "../../src/web/pdf/pdf.ts";

const file = process.argv[2];
if (!file) {
  console.error("usage: bun scripts/bench/pdf-cli.ts <file.pdf>");
  process.exit(2);
}
try {
  const result = await readPdf(new Uint8Array(readFileSync(file)));
  console.log(JSON.stringify({ ok: true, url: `file://${file}`, ...result }));
} catch (error) {
  console.log(JSON.stringify(toApiError(error).toBody()));
  process.exitCode = 1;
}
