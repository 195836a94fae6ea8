/**
 * A loopback stand-in for algod (no Algorand node can run here: not on npm or apt, and Docker has no
 * daemon). It speaks the REST subset our AVM mechanism and the official @x402/avm client use:
 *
 *   GET  /v2/transactions/params              suggested params (JSON)
 *   GET  /v2/status                           last round
 *   GET  /v2/accounts/{addr}/assets/{id}      asset holding (404 when not opted in)
 *   POST /v2/transactions                     raw concatenated signed transactions (msgpack)
 *   GET  /v2/transactions/pending/{txid}      confirmed-round / pool-error
 *
 * and really checks, with algosdk: ed25519 signatures over "TX"+txn, the group id, genesis hash,
 * validity rounds, pooled fees ≥ minFee × n, opt-ins and balances, and duplicate txids; a group
 * applies atomically. Not modelled: TEAL, multisig/logicsig, rekeyed accounts, min-balance, and
 * algod's exact error strings.
 */
import { createPublicKey, verify as verifySignature } from "node:crypto";
import algosdk, { type Transaction } from "algosdk";
import type { X402Config } from "../../src/x402/config.ts";
import { ALGORAND_MAINNET_GENESIS_HASH } from "../../src/x402/networks.ts";

export const ALGOD_MIN_FEE = 1000n;
/** USDC's ASA on Algorand mainnet (the known network's asset). */
export const USDC_ASA = "31566704";
/** One Algo in microAlgos. */
export const ALGO = 1_000_000n;

/**
 * The x402 configuration of the Algorand tests: mainnet USDC paid to `payTo`, settled in process
 * through `algod` with `feePayer` paying the fees; `settings` overrides the timings, `entry` adds
 * fields to the network entry (a refund mnemonic).
 */
export function algorandX402(algod: FakeAlgod, accounts: { readonly payTo: algosdk.Account; readonly feePayer: algosdk.Account }, options: { readonly settings?: Partial<X402Config>; readonly entry?: Record<string, unknown> } = {}): X402Config {
  return {
    maxTimeoutSeconds: 300,
    settlementMarginSeconds: 30,
    confirmationTimeoutMs: 5_000,
    staleReservationSeconds: 900,
    ...options.settings,
    networks: [
      {
        family: "avm",
        network: "algorand",
        payTo: accounts.payTo.addr.toString(),
        settlement: "local",
        algodUrl: algod.url,
        feePayerMnemonic: algosdk.secretKeyToMnemonic(accounts.feePayer.sk),
        ...options.entry,
      },
    ],
  };
}

/** A fresh account on `algod`: `algo` microAlgos, opted in to USDC unless `optIn` is false, and `usdc` base units of it. */
export function newAlgodAccount(algod: FakeAlgod, opts: { algo: bigint; usdc?: bigint; optIn?: boolean }): algosdk.Account {
  const account = algosdk.generateAccount();
  const address = account.addr.toString();
  algod.fund(address, opts.algo);
  if (opts.optIn ?? true) algod.optIn(address, USDC_ASA);
  if (opts.usdc) algod.mintAsset(address, USDC_ASA, opts.usdc);
  return account;
}

interface Account {
  algo: bigint;
  assets: Map<string, bigint>;
}

export interface FakeAlgod {
  readonly url: string;
  round(): bigint;
  /** Creates/credits an account. */
  fund(address: string, microAlgo: bigint): void;
  optIn(address: string, assetId: string): void;
  mintAsset(address: string, assetId: string, amount: bigint): void;
  assetBalance(address: string, assetId: string): bigint | undefined;
  algoBalance(address: string): bigint;
  /** While true, accepted groups wait in the pool instead of being confirmed. */
  holdConfirmations(hold: boolean): void;
  /** Confirms every held group in a new round. */
  confirmHeld(): void;
  /** Moves the ledger forward (e.g. past a group's last valid round). */
  advanceRounds(n: number): void;
  /** Submissions seen (to prove one payment was submitted once). */
  submissions(): number;
  /** When set, POST /v2/transactions answers 503 after taking the group (an indeterminate submission). */
  failSubmitAfterAccepting(fail: boolean): void;
  stop(): Promise<void>;
}

const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function ed25519Valid(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    return verifySignature(null, message, createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" }), signature);
  } catch {
    return false;
  }
}

/** Byte length of the msgpack value at `offset` (enough of the format for signed transactions). */
function msgpackLength(bytes: Uint8Array, offset: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const b = bytes[offset];
  if (b === undefined) throw new Error("truncated msgpack");
  const items = (count: number, header: number): number => {
    let pos = offset + header;
    for (let i = 0; i < count; i++) pos += msgpackLength(bytes, pos);
    return pos - offset;
  };
  if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return 1;
  if (b >= 0x80 && b <= 0x8f) return items(2 * (b & 0x0f), 1);
  if (b >= 0x90 && b <= 0x9f) return items(b & 0x0f, 1);
  if (b >= 0xa0 && b <= 0xbf) return 1 + (b & 0x1f);
  switch (b) {
    case 0xc4: case 0xd9: return 2 + view.getUint8(offset + 1);
    case 0xc5: case 0xda: return 3 + view.getUint16(offset + 1);
    case 0xc6: case 0xdb: return 5 + view.getUint32(offset + 1);
    case 0xcc: case 0xd0: return 2;
    case 0xcd: case 0xd1: return 3;
    case 0xce: case 0xd2: case 0xca: return 5;
    case 0xcf: case 0xd3: case 0xcb: return 9;
    case 0xdc: return items(view.getUint16(offset + 1), 3);
    case 0xdd: return items(view.getUint32(offset + 1), 5);
    case 0xde: return items(2 * view.getUint16(offset + 1), 3);
    case 0xdf: return items(2 * view.getUint32(offset + 1), 5);
    default: throw new Error(`unsupported msgpack byte 0x${b.toString(16)}`);
  }
}

function splitConcatenated(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const length = msgpackLength(bytes, pos);
    out.push(bytes.slice(pos, pos + length));
    pos += length;
  }
  return out;
}

class Rejection extends Error {}

export function startFakeAlgod(options: { genesisHash?: string; genesisId?: string; startRound?: bigint } = {}): FakeAlgod {
  const genesisHash = options.genesisHash ?? ALGORAND_MAINNET_GENESIS_HASH;
  const genesisId = options.genesisId ?? "mainnet-v1.0";
  let round = options.startRound ?? 50_000_000n;
  let hold = false;
  let failAfterAccept = false;
  let submissionCount = 0;
  const accounts = new Map<string, Account>();
  const confirmed = new Map<string, bigint>();
  const pool = new Map<string, Transaction[]>();
  const account = (address: string): Account => {
    let a = accounts.get(address);
    if (!a) {
      a = { algo: 0n, assets: new Map() };
      accounts.set(address, a);
    }
    return a;
  };

  function applyGroup(txns: Transaction[], ledger: Map<string, Account>): void {
    const get = (address: string): Account => {
      const existing = ledger.get(address) ?? accounts.get(address);
      const copy: Account = existing ? { algo: existing.algo, assets: new Map(existing.assets) } : { algo: 0n, assets: new Map() };
      ledger.set(address, copy);
      return copy;
    };
    for (const txn of txns) {
      const sender = get(txn.sender.toString());
      if (sender.algo < txn.fee) throw new Rejection(`overspend: ${txn.sender} cannot pay fee`);
      sender.algo -= txn.fee;
      if (txn.type === "pay" && txn.payment) {
        if (sender.algo < txn.payment.amount) throw new Rejection("overspend");
        sender.algo -= txn.payment.amount;
        get(txn.payment.receiver.toString()).algo += txn.payment.amount;
        if (txn.payment.closeRemainderTo) throw new Rejection("close not supported by this test double");
      } else if (txn.type === "axfer" && txn.assetTransfer) {
        const id = txn.assetTransfer.assetIndex.toString();
        const receiver = get(txn.assetTransfer.receiver.toString());
        const held = sender.assets.get(id);
        if (held === undefined) throw new Rejection(`asset ${id} missing from ${txn.sender}`);
        if (!receiver.assets.has(id)) throw new Rejection(`receiver ${txn.assetTransfer.receiver} not opted in to asset ${id}`);
        if (held < txn.assetTransfer.amount) throw new Rejection(`underflow on subtracting ${txn.assetTransfer.amount} from sender amount ${held}`);
        sender.assets.set(id, held - txn.assetTransfer.amount);
        receiver.assets.set(id, (receiver.assets.get(id) ?? 0n) + txn.assetTransfer.amount);
      } else {
        throw new Rejection(`transaction type ${txn.type} not supported by this test double`);
      }
    }
  }

  function submit(raw: Uint8Array): string {
    const signedTxns = splitConcatenated(raw).map((bytes) => algosdk.decodeSignedTransaction(bytes));
    if (signedTxns.length === 0 || signedTxns.length > 16) throw new Rejection("bad group size");
    const txns = signedTxns.map((s) => s.txn);
    for (const s of signedTxns) {
      if (!s.sig) throw new Rejection("transaction not signed (only single-sig is modelled)");
      if (!ed25519Valid(s.txn.bytesToSign(), s.sig, s.txn.sender.publicKey)) throw new Rejection("At least one signature didn't pass verification");
      if (!s.txn.genesisHash || Buffer.from(s.txn.genesisHash).toString("base64") !== genesisHash) throw new Rejection("genesis hash mismatch");
      if (s.txn.firstValid > round + 1n || s.txn.lastValid < round + 1n) throw new Rejection(`txn dead: round ${round + 1n} outside of ${s.txn.firstValid}--${s.txn.lastValid}`);
      if (confirmed.has(s.txn.txID()) || pool.has(s.txn.txID())) throw new Rejection(`transaction already in ledger: ${s.txn.txID()}`);
    }
    if (txns.length > 1) {
      const ids = txns.map((t) => {
        const copy = algosdk.decodeUnsignedTransaction(algosdk.encodeUnsignedTransaction(t));
        copy.group = undefined;
        return copy;
      });
      const gid = Buffer.from(algosdk.computeGroupID(ids));
      if (!txns.every((t) => t.group && Buffer.from(t.group).equals(gid))) throw new Rejection("incomplete group or bad group id");
    }
    const fees = txns.reduce((sum, t) => sum + t.fee, 0n);
    if (fees < ALGOD_MIN_FEE * BigInt(txns.length)) throw new Rejection(`fee too small: ${fees} < ${ALGOD_MIN_FEE * BigInt(txns.length)}`);
    const ledger = new Map<string, Account>();
    applyGroup(txns, ledger);
    if (hold) {
      for (const t of txns) pool.set(t.txID(), txns);
      // Balances move only when confirmed; re-checked then.
    } else {
      for (const [address, state] of ledger) accounts.set(address, state);
      round += 1n;
      for (const t of txns) confirmed.set(t.txID(), round);
    }
    return txns[0]?.txID() ?? "";
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method === "GET" && path === "/v2/transactions/params") {
        return Response.json({ "consensus-version": "future", fee: 0, "genesis-hash": genesisHash, "genesis-id": genesisId, "last-round": Number(round), "min-fee": Number(ALGOD_MIN_FEE) });
      }
      if (request.method === "GET" && path === "/v2/status") {
        return Response.json({ "last-round": Number(round), "time-since-last-round": 0, "catchup-time": 0, "last-version": "future", "next-version": "future", "next-version-round": Number(round) + 1, "next-version-supported": true, "stopped-at-unsupported-round": false });
      }
      const assetMatch = /^\/v2\/accounts\/([A-Z2-7]{58})\/assets\/(\d+)$/.exec(path);
      if (request.method === "GET" && assetMatch) {
        const held = accounts.get(assetMatch[1] ?? "")?.assets.get(assetMatch[2] ?? "");
        if (held === undefined) return Response.json({ message: "account asset info not found" }, { status: 404 });
        return Response.json({ round: Number(round), "asset-holding": { amount: Number(held), "asset-id": Number(assetMatch[2]), "is-frozen": false } });
      }
      if (request.method === "POST" && path === "/v2/transactions") {
        submissionCount++;
        try {
          const txId = submit(new Uint8Array(await request.arrayBuffer()));
          if (failAfterAccept) return Response.json({ message: "internal error" }, { status: 503 });
          return Response.json({ txId });
        } catch (error) {
          if (error instanceof Rejection) return Response.json({ message: `TransactionPool.Remember: ${error.message}` }, { status: 400 });
          return Response.json({ message: `could not decode: ${String(error)}` }, { status: 400 });
        }
      }
      const pendingMatch = /^\/v2\/transactions\/pending\/([A-Z2-7]{52})$/.exec(path);
      if (request.method === "GET" && pendingMatch) {
        const txid = pendingMatch[1] ?? "";
        const at = confirmed.get(txid);
        if (at !== undefined) return Response.json({ "confirmed-round": Number(at), "pool-error": "", txn: {} });
        if (pool.has(txid)) return Response.json({ "confirmed-round": 0, "pool-error": "", txn: {} });
        return Response.json({ message: "txn does not exist" }, { status: 404 });
      }
      return Response.json({ message: `not modelled: ${request.method} ${path}` }, { status: 404 });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    round: () => round,
    fund: (address, microAlgo) => void (account(address).algo += microAlgo),
    optIn: (address, assetId) => void account(address).assets.set(assetId, account(address).assets.get(assetId) ?? 0n),
    mintAsset: (address, assetId, amount) => void account(address).assets.set(assetId, (account(address).assets.get(assetId) ?? 0n) + amount),
    assetBalance: (address, assetId) => accounts.get(address)?.assets.get(assetId),
    algoBalance: (address) => accounts.get(address)?.algo ?? 0n,
    holdConfirmations: (h) => void (hold = h),
    confirmHeld() {
      const groups = new Set(pool.values());
      round += 1n;
      for (const txns of groups) {
        const ledger = new Map<string, Account>();
        try {
          applyGroup(txns, ledger);
          for (const [address, state] of ledger) accounts.set(address, state);
          for (const t of txns) confirmed.set(t.txID(), round);
        } catch {
          // dropped from the pool
        }
        for (const t of txns) pool.delete(t.txID());
      }
    },
    advanceRounds: (n) => void (round += BigInt(n)),
    submissions: () => submissionCount,
    failSubmitAfterAccepting: (f) => void (failAfterAccept = f),
    stop: async () => {
      await server.stop(true);
    },
  };
}
