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
export type { Admitted, Example, FreeText, PluginDefinition, PriceSpec, SettlementHooks, SettlementReceipt, SkillDefinition } from "./plugin/define.ts";
export type { PluginContext, SkillSummary } from "./plugin/context.ts";
// The feature modules merge their facets into PluginContext (ModuleFacets): their declarations come with the SDK's.
export type { ModuleId } from "./modules.generated.ts";
// So does the web room (ctx.web, ctx.search), into PluginFacets; the crawl module's facet is ctx.crawl.
export type { WebFacets } from "./web/facet.ts";
export type { CrawlFacet } from "./crawl/crawl-facet.ts";
export type { NetworkPrices, PriceColumn, PriceNetwork } from "./plugin/price.ts";
export { formatDollars } from "./plugin/price.ts";
export type { Logger } from "./log.ts";
// What a payment family folder's family.ts exports (x402.families; docs/payments.md "Add a payment network").
export type { FamilyNetwork, KnownFamilyNetwork, MechanismContext, PaymentFamily } from "./x402/family.ts";
export type { SchemeMechanism } from "./x402/facilitator.ts";
export type { PaymentPayload, PaymentRequirements } from "./x402/messages.ts";

// Language-model skills: the policy gate, the "needs a model" refusal and the engine line.
export { policyRefusal, refuseByPolicy } from "./llm/policy.ts";
export type { PolicyCategory, PolicyRefusal } from "./llm/policy.ts";
export { modelEngine, ModelUsageSchema, requireModel } from "./plugin/model-access.ts";
export type { AgentLimits, AgentRequest, AgentResult, AgentTool, ModelAccess, ModelUsage, StructuredRequest } from "./plugin/model-access.ts";
export type { SkillEngine } from "./plugin/define.ts";
export { bulletCount as briefBulletCount, extractiveBrief, modelSentenceCount as briefModelSentences, selectSentences } from "./brief/extractive.ts";
export type { BriefBullet } from "./brief/extractive.ts";

// Web evidence building blocks: the built-in web plugins are made of these, and operator files may reuse them.
export {
  ChangesOutputSchema,
  ChangesRequestSchema,
  checkChangesRequest,
  checkPdfRequest,
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
export { exampleChangesResult, exampleFilteredChangesRequest, exampleFilteredChangesResult, exampleMarkdownResult, examplePdfResult, examplePreviousText, exampleReadResult } from "./web/examples.ts";
export { toCompactResult } from "./web/read-result.ts";
export { checkScreenshotRequest, exampleScreenshotRequest, exampleScreenshotResult, priceScreenshot, ScreenshotRequestSchema, ScreenshotResultSchema } from "./web/screenshot-schema.ts";
export { screenshotEndpoint } from "./web/screenshot.ts";
export { ArchiveRequestSchema, ArchiveResultSchema, checkArchiveRequest, exampleArchiveRequest, exampleArchiveResult, priceArchive } from "./web/archive-schema.ts";
export { archiveEndpoint } from "./web/archive.ts";

// web/extract (the endpoint and the job skill): values tied to quotes from the page text.
export { checkExtractRequest, ExtractOutputSchema, ExtractRequestSchema, priceExtract } from "./grounding/extract-schemas.ts";
export type { ExtractOutput, ExtractRequest, ExtractResult } from "./grounding/extract-schemas.ts";
export { extractEndpoint } from "./grounding/extract-endpoint.ts";
export { exampleExtractRequest, exampleExtractResult } from "./grounding/extract-example.ts";

// Capital board and directory building blocks (the capital and directory files are made of these).
export { CommitRequestSchema, CommitResultSchema, defaultSeatPriceMicros, TicketIdSchema } from "./capital/board.ts";
export { IntroPackSchema, ListingIdSchema, PeerSurveySchema } from "./directory/service.ts";
// Job building blocks: the rules engine of code.fix_from_log (an operator file may reuse it or its schema).
export { DiagnosisSchema, diagnoseLog } from "./logs/diagnose.ts";
export type { Diagnosis, DiagnoseOptions } from "./logs/diagnose.ts";

// Custom work (job.quote, job.run.*): the built-in quote and run skills are made of these.
export { admitQuote, QuoteOutputSchema, QuoteRequestSchema, quoteGoal } from "./quotes/quote-goal.ts";
export { admitRun, RunOutputSchema, RunRequestSchema, runQuote } from "./quotes/run-quote.ts";
export { priceText, runTimeoutMs, tiers } from "./quotes/tiers.ts";
export type { Tier, TierId } from "./quotes/tiers.ts";

// web/search: the engines behind it are configured by the operator (--search-url, --brave-api-key).
export { priceSearch, priceSearchDelivered, SearchOutputSchema, SearchRequestSchema } from "./search/search-schemas.ts";
// Pay for what is delivered: a fixed part plus a price per delivered unit (the quote is the limit; a plugin's `delivered` the rest).
export { DELIVERY_SENTENCE, priceByUnits } from "./paid-call/delivery.ts";
export type { SearchOutput, SearchRequest } from "./search/search-schemas.ts";
export { searchEndpoint } from "./search/search-endpoint.ts";
export { exampleSearchOutput, exampleSearchRequest } from "./search/search-example.ts";

// web/map: a site's URLs from its sitemaps, feeds and start page.
export { checkMapRequest, MapOutputSchema, mapPrice, MapRequestSchema } from "./crawl/map-schemas.ts";
export type { MapOutput, MapRequest } from "./crawl/map-schemas.ts";
export { mapSite } from "./crawl/site-map.ts";
// web/crawl: bought here, run by the crawl service (crawl/crawl-service.ts) behind ctx.crawl.
export { checkCrawlRequest, CrawlAcceptedSchema, CrawlRequestSchema, priceCrawl } from "./crawl/crawl-schemas.ts";
export type { CrawlAccepted, CrawlRequest } from "./crawl/crawl-schemas.ts";
