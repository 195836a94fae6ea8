/**
 * Every room of src/ sits in a layer (scripts/layout/rooms.ts, the table in docs/layout.md) and imports
 * only rooms of lower layers, except the arrows listed below: what is left to take apart. A new arrow
 * that runs back up fails, and so does a listed one that is gone (strike it off).
 */
import { describe, expect, it } from "bun:test";
import { roomArrows } from "../scripts/layout/rooms.ts";

/** The imports that still run back up (issue 39): none may be added. */
const STILL_BACK_UP = [
  "boot.ts imports doctor/payment-upstreams.ts",
  "config.ts imports llm/config.ts",
  "crawl/crawl-service.ts imports config.ts",
  "crawl/crawl-service.ts imports evidence/key-file.ts",
  "crawl/crawl-service.ts imports http/request-context.ts",
  "crawl/crawl-service.ts imports http/respond.ts",
  "crawl/crawl-webhook.ts imports evidence/jose-lazy.ts",
  "crawl/crawl-webhook.ts imports evidence/key-file.ts",
  "database.ts imports module-tables.generated.ts",
  "docs/catalogue.ts imports llm/model-access.ts",
  "evidence/keys-cli.ts imports database.ts",
  "http/evidence-routes.ts imports evidence/key-file.ts",
  "http/evidence-routes.ts imports evidence/statement.ts",
  "http/evidence-routes.ts imports evidence/verify.ts",
  "jobs/setup.ts imports a2a/task-store.ts",
  "jobs/setup.ts imports database.ts",
  "jobs/setup.ts imports quotes/tiers.ts",
  "llm/doctor.ts imports boot.ts",
  "paid-call/call.ts imports docs/catalogue.ts",
  "plugin/context.ts imports crawl/crawl-facet.ts",
  "plugin/context.ts imports llm/model-access.ts",
  "plugin/context.ts imports web/engine.ts",
  "plugin/context.ts imports web/search-engine.ts",
  "plugin/define.ts imports llm/model-access.ts",
  "plugin/sdk-module.ts imports sdk.ts",
  "web/archive-schema.ts imports evidence/attestation-schema.ts",
  "web/archive.ts imports evidence/notes.ts",
  "web/archive/wacz-package.ts imports evidence/wacz-signing.ts",
  "web/endpoint-schemas.ts imports evidence/attestation-schema.ts",
  "web/engine.ts imports evidence/wacz-signing.ts",
  "web/evidence-facts.ts imports evidence/notes.ts",
  "web/evidence-facts.ts imports evidence/statement.ts",
  "web/read-result.ts imports evidence/attestation-schema.ts",
  "web/screenshot-schema.ts imports evidence/attestation-schema.ts",
  "web/screenshot.ts imports evidence/notes.ts",
];

describe("src/ rooms in layers", () => {
  const { backUp, unplaced } = roomArrows();

  it("places every room in a layer (a new folder or front file gets its row in scripts/layout/rooms.ts)", () => {
    expect(unplaced).toEqual([]);
  });

  it("imports downward only, but for the arrows still listed", () => {
    expect(backUp).toEqual([...STILL_BACK_UP].sort());
  });

  it("keeps feature modules out of the contract: module/ imports no feature room", () => {
    const { backUp: none } = roomArrows(new Map([["module/define.ts", ["capital/board.ts"]]]));
    expect(none).toEqual(["module/define.ts imports capital/board.ts"]);
  });
});
