/**
 * @module web/crawl-config — web/crawl's settings (the crawl service in crawl/ reads them), as rows for src/config.ts's table (`...crawlConfigFields`).
 */
import { Type as t } from "@sinclair/typebox";

export const crawlConfigFields = {
  crawlLanes: t.Integer({ minimum: 1, maximum: 64, default: 4, description: "Pages this instance fetches at once for web/crawl, all crawls together." }),
  crawlPerHost: t.Integer({ minimum: 1, maximum: 16, default: 2, description: "web/crawl fetches in flight to one host from this instance." }),
  crawlHostDelayMs: t.Integer({ minimum: 0, maximum: 60_000, default: 250, description: "Pause between two web/crawl fetches from one host (robots.txt's Crawl-delay, up to 60 s, when longer); 0: none." }),
  crawlTtlHours: t.Integer({ minimum: 1, maximum: 720, default: 24, description: "Hours a crawl and its pages are kept after it was bought; then they are deleted." }),
  crawlDeadlineMin: t.Integer({ minimum: 1, maximum: 1440, default: 60, description: "Minutes a crawl may run; past it the crawl completes with what it has (stop_reason deadline)." }),
  crawlLeaseSec: t.Integer({ minimum: 2, maximum: 600, default: 30, description: "How long a URL stays claimed by the instance fetching it without renewal; a URL whose instance died is fetched by another after it lapses." }),
};
