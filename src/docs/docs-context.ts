/**
 * @module docs/docs-context — what every free document is rendered from: the catalogue, the
 * payments offered, the server's state and the features' live figures. The free-route table
 * (free-routes.ts) and each document's renderer (playbook.ts, …) both read it.
 */
import type { JobsInfo } from "../jobs/setup.ts";
import type { ModuleDocumentContext } from "../module/define.ts";
import type { ManagerState } from "../store/settings.ts";
import type { PaymentInfo } from "../x402/payment-info.ts";
import type { Catalogue } from "../plugin/catalogue.ts";

/** Every module's docs (`capital`, …) come in through ModuleDocumentContext (module/define.ts). */
export interface DocsContext extends ModuleDocumentContext {
  readonly catalogue: Catalogue;
  readonly payments: PaymentInfo;
  readonly baseUrl: string;
  readonly manager: ManagerState;
  readonly productVersion: string;
  readonly startedAt: Date;
  /** Optional features and whether they work on this server (e.g. `render`). */
  readonly features: Readonly<Record<string, { available: boolean; detail?: string }>>;
  /** Job limits, live load and the 7-day figures (absent in documents rendered without a server). */
  readonly jobs?: JobsInfo;
  /** The request's query string (paged documents). */
  readonly query?: URLSearchParams;
}
