/** Buys the embedded text of a public digital PDF, page by page (no OCR). */
import { checkPdfRequest, definePlugin, examplePdfResult, pdfEndpoint, pdfPrice, PdfRequestSchema, PdfResultSchema } from "tollbooth";

export default definePlugin({
  id: "pdf.read",
  route: "POST /v1/pdf/read",
  summary: "Extract the embedded text of a public digital PDF into page-numbered JSON (no OCR).",
  description:
    "Downloads a public PDF (at most 5 MiB, 20 pages) and returns each page's embedded text with its number (and label when the PDF defines page labels), at most 100,000 characters. Pages without text are listed in empty_text_pages; pages whose fonts have no Unicode map come out unreadable, are listed in unreadable_text_pages and their text is withheld. Files that need a password to open, broken, over-limit and image-only files fail and are not charged; files with only an owner password (restrictions, no password to open) are read, with a warning naming the restrictions. extraction_ms is the time spent extracting.",
  input: PdfRequestSchema,
  output: PdfResultSchema,
  check: checkPdfRequest,
  price: pdfPrice,
  timeoutMs: 60_000,
  errors: ["URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "PDF_TOO_LARGE", "PDF_TOO_MANY_PAGES", "NOT_A_PDF", "PDF_UNREADABLE", "PDF_ENCRYPTED", "PDF_NO_TEXT", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT"],
  examples: [{ title: "Read a PDF", input: { url: "https://example.com/report.pdf" }, output: examplePdfResult }],
  run: (input, ctx) => pdfEndpoint(input, ctx),
});
