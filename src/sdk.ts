/**
 * @module tollbooth — what a plugin or skill file imports: `import { defineSkill, t } from "tollbooth"`.
 * Built-in files resolve it through tsconfig paths; operator files loaded by the binary get it
 * as a built-in module, so they need no node_modules.
 */
export { Type as t } from "@sinclair/typebox";
export type { Static, TObject, TSchema } from "@sinclair/typebox";
export { ApiError, errorCodes } from "./errors.ts";
export type { ErrorCode } from "./errors.ts";
export { definePlugin, defineSkill } from "./plugin/define.ts";
export type { Admitted, Example, PluginDefinition, PriceSpec, SettlementHooks, SettlementReceipt, SkillDefinition } from "./plugin/define.ts";
export type { PluginContext, SkillSummary } from "./plugin/context.ts";
export type { NetworkPrices, PriceNetwork } from "./plugin/price.ts";
export { formatDollars } from "./plugin/price.ts";
export type { Logger } from "./log.ts";

// Web evidence building blocks: the built-in web plugins are made of these, and operator files may reuse them.
export {
  ChangesOutputSchema,
  ChangesRequestSchema,
  checkChangesRequest,
  checkReadRequest,
  FetchOutputSchema,
  PdfRequestSchema,
  PdfResultSchema,
  pdfPrice,
  priceChanges,
  priceRead,
  ReadOutputSchema,
  ReadRequestSchema,
} from "./web/endpoint-schemas.ts";
export { changesEndpoint, fetchEndpoint, pdfEndpoint, readEndpoint } from "./web/endpoints.ts";
export { exampleChangesResult, exampleMarkdownResult, examplePdfResult, examplePreviousText, exampleReadResult } from "./web/examples.ts";
export { toCompactResult } from "./web/read-result.ts";

// Capital board and directory building blocks (the capital and directory files are made of these).
export { CommitRequestSchema, CommitResultSchema, defaultSeatPriceMicros, TicketIdSchema } from "./capital/board.ts";
export { IntroPackSchema, ListingIdSchema, PeerSurveySchema } from "./directory/service.ts";
