/**
 * @module cli/commands — every `tollbooth` command's words and own flags, read by the one parser
 * (cli/args.ts) and shown by `tollbooth COMMAND --help`. The settings flags (config.ts) are
 * accepted by every command besides these. A feature module brings its own commands (module/define.ts).
 */
import { composeModules } from "../module/compose.ts";
import { modules } from "../modules.generated.ts";
import type { CommandSpec } from "./args.ts";

const limit = { type: "string", value: "N", help: "how many of the latest (default 20)" } as const;

const specs: readonly CommandSpec[] = [
  { name: "serve", maxWords: 0, summary: "Start the server (the default command).", flags: {} },
  { name: "skills", maxWords: 0, summary: "The registry as a table: id, route or skill, price per network, async, timeout, source.", flags: {} },
  {
    name: "read",
    words: "[URL]",
    maxWords: 1,
    summary:
      "Read one page with the web engine (same guard, robots and extraction as POST /v1/web/read) and print the JSON result; free, nothing is paid or recorded. With --file, extract a local file (.gz is unpacked) as if fetched from --url, with no network.",
    flags: {
      markdown: { type: "boolean", help: "Markdown instead of plain text" },
      format: { type: "string", value: "text|markdown", help: "the same as --markdown when markdown" },
      selector: { type: "string", value: "CSS", help: "read only what the selector matches" },
      "max-chars": { type: "string", value: "N", help: "cut the text at N characters" },
      render: { type: "boolean", help: "render the page in headless Chromium first" },
      file: { type: "string", value: "PATH", help: "a local file to extract instead of fetching" },
      url: { type: "string", value: "URL", help: "the page's URL (with --file: the address it is read as)" },
      "content-type": { type: "string", value: "TYPE", help: "the local file's type (default: from its extension)" },
    },
  },
  {
    name: "receipts",
    maxWords: 0,
    summary: "Recent payment receipts (settled, pending, failed, unused).",
    flags: { limit, state: { type: "string", value: "STATE", help: "only receipts in this state" } },
  },
  {
    name: "refunds",
    maxWords: 0,
    summary: "Refunds owed: jobs settled at acceptance that failed by our fault (failed-call), and the undelivered pages of crawls and searches paid exact (crawl-delivery, search-delivery), with the refund transaction when the server paid it.",
    flags: {
      all: { type: "boolean", help: "every refund recorded, paid ones too" },
      "mark-paid": { type: "string", value: "ID", help: "the operator paid this refund by hand (with --note): a job id or a delivery refund's receipt id" },
      note: { type: "string", value: "TEXT", help: "e.g. the refund transaction" },
    },
  },
  {
    name: "pause",
    maxWords: 0,
    summary: "Refuse paid work with 503 and the reason; free endpoints keep working.",
    flags: { reason: { type: "string", value: "TEXT", help: "what callers are told (required)" } },
  },
  { name: "resume", maxWords: 0, summary: "Accept paid work again.", flags: {} },
  { name: "doctor", maxWords: 0, summary: "Check config, data folder, plugins, wallets, browser, facilitator, disk space, backup folder, admin listener and trusted proxy; says what is missing.", flags: {} },
  { name: "backup", words: "[FILE]", maxWords: 1, summary: "A consistent copy of the database while the server runs: FILE, or a time-stamped file in --backup-dir.", flags: {} },
  { name: "restore", words: "FILE", maxWords: 1, summary: "Put a backup back; refused while a server holds --data.", flags: {} },
  {
    name: "migrate-store",
    maxWords: 0,
    summary:
      "Copy every table of a SQLite data folder into a PostgreSQL database (migrated first), in one transaction, printing the rows per table and checking the counts after. Refused when the target already holds rows (unless --append) or when a table with rows has no PostgreSQL counterpart yet. Stop the server first.",
    flags: {
      from: { type: "string", value: "sqlite:DIR", help: "the data folder holding tollbooth.db" },
      to: { type: "string", value: "postgres://…", help: "the PostgreSQL database to copy into" },
      append: { type: "boolean", help: "copy even though the target tables already hold rows" },
    },
  },
  {
    name: "buy",
    words: "URL | --mcp URL TOOL",
    maxWords: 2,
    summary:
      "Pay a paid route of any x402 v2 seller within a budget (official x402 client); with --mcp, a tool of an MCP server (x402 MCP transport). Prints the result, the receipt and the evidence check.",
    flags: {
      json: { type: "string", value: "BODY", help: "the JSON body to POST (with --mcp: the tool's arguments)" },
      "max-usd": { type: "string", value: "USD", help: "refuse to sign above this price (default 0.05)" },
      "daily-cap-usd": { type: "string", value: "USD", help: "refuse once the spend log holds this much today (default 1)" },
      network: { type: "string", value: "NAME|CAIP-2", help: "the network to pay on: base, base-sepolia, algorand, algorand-testnet or a CAIP-2 id (default base)" },
      asset: { type: "string", value: "ADDR|ASA", help: "the asset to accept on a network we do not know (Algorand: the ASA id)" },
      "algod-url": { type: "string", value: "URL", help: "Algorand: the algod to ask for transaction parameters (default: AlgoNode's public algod)" },
      "asset-decimals": { type: "string", value: "N", help: "that asset's decimals" },
      "key-file": { type: "string", value: "FILE", help: "the payer's private key, mode 0600 (EVM: 0x hex; Algorand: 25-word mnemonic or base64 secret key)" },
      "spend-log": { type: "string", value: "FILE", help: "the local spend log (default ~/.tollbooth/spend-log.jsonl)" },
      mcp: { type: "boolean", help: "buy over MCP: the words are the MCP endpoint URL and the TOOL to call" },
      "require-signed": { type: "boolean", help: "refuse a seller whose offer is not signed by a key it publishes (offer-receipt extension; nothing is signed), and fail when the receipt is not" },
    },
  },
  { name: "types", words: "DIR", maxWords: 1, summary: "Write tollbooth.d.ts and a tsconfig.json so plugin files in DIR type-check with no node_modules.", flags: {} },
  {
    name: "install",
    maxWords: 0,
    summary: "As root: the hardened systemd service (user, data folder, units).",
    flags: {
      root: { type: "string", value: "DIR", help: "install under this root instead of /" },
      binary: { type: "string", value: "PATH", help: "the binary ExecStart names (default: this one)" },
      "dry-run": { type: "boolean", help: "print what would be done" },
    },
  },
  {
    name: "new",
    words: "skill|plugin ID",
    maxWords: 2,
    summary: "Write a commented starting file whose example validates.",
    flags: { dir: { type: "string", value: "DIR", help: "where to write it (default: --plugins, else .)" } },
  },
];

/** The feature modules' commands (each module's `commands`), after the core's; a name taken twice fails here. */
const moduleSpecs = composeModules(modules, { commands: specs.map((s) => s.name) }).flatMap((m) => (m.commands ?? []).map((c) => c.spec));

export const commands: ReadonlyMap<string, CommandSpec> = new Map([...specs, ...moduleSpecs].map((spec) => [spec.name, spec]));
