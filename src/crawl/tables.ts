/**
 * @module crawl/tables — web/crawl's crawls (their frontier and pages, kept until the crawl expires)
 * and the nonces of the payers' proofs its status and cancel routes take (x402/payer-proof.ts: one
 * request per proof, from any instance), on both engines: the `store.crawls` and `store.proofNonces`
 * facets over them.
 */
import type { ModuleTables } from "../module/define.ts";
import { createPgProofNonces, createProofNonces, proofNonceMigrations, proofNoncePgMigrations, type ProofNonces } from "../x402/proof-nonces.ts";
import { crawlPgMigrations, createPgCrawlStore } from "./crawl-store-pg.ts";
import { crawlMigrations, createSqliteCrawlStore } from "./crawl-store-sqlite.ts";
import type { CrawlStore } from "./crawl-store.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** web/crawl: crawls, their frontier and their pages (kept until the crawl expires). */
    readonly crawls: CrawlStore;
    /** The nonces of payers' proofs already taken (x402/payer-proof.ts): one request per proof, from any instance. */
    readonly proofNonces: ProofNonces;
  }
}

export const tables = {
  family: "crawls and payer proof nonces",
  sqlite: [...crawlMigrations, ...proofNonceMigrations],
  postgres: [...crawlPgMigrations, ...proofNoncePgMigrations],
  openSqlite: (db) => ({ crawls: createSqliteCrawlStore(db), proofNonces: createProofNonces(db) }),
  openPostgres: (sql) => ({ crawls: createPgCrawlStore(sql), proofNonces: createPgProofNonces(sql) }),
} satisfies ModuleTables;
