/**
 * @module x402/evm/exact — EVM `exact` (EIP-3009 transferWithAuthorization) verified and settled
 * in-process with viem: our key pays the gas.
 *
 * Why each step is here:
 * - The chain simulates the transfer (one eth_call): it catches what an off-chain check cannot (a
 *   wrong EIP-712 domain verifies off-chain). Only a refused simulation costs more: the signature
 *   is recovered locally and the authorization's state and the payer's balance read, to name why.
 * - Settlement signs the transaction first so its hash is known, and recorded (`onSubmitted`),
 *   before it is sent: whatever happens after that, reconcile can find it.
 * - viem's nonce manager keeps concurrent settlements from colliding on the settler's nonce.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  isAddressEqual,
  keccak256,
  nonceManager,
  parseEventLogs,
  parseSignature,
  recoverTypedDataAddress,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ResolvedEvmNetwork } from "./config.ts";
import type { PendingSettlement, SchemeMechanism, SettleHooks, SettlementCheck } from "../facilitator.ts";
import { normalizeNetwork } from "../networks.ts";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "../messages.ts";
import { eip3009Abi, transferWithAuthorizationTypes } from "./abi.ts";
import { evmReasons } from "./errors.ts";
import { parseExactEvmPayload, type ExactEvmPayload } from "./payload.ts";

export interface ExactEvmMechanismOptions {
  readonly network: ResolvedEvmNetwork;
  /** Seconds an authorization must remain valid after verification. */
  readonly settlementMarginSeconds: number;
  readonly confirmationTimeoutMs: number;
  readonly now?: () => Date;
  /** Receipt polling interval; small on a local chain. */
  readonly pollingIntervalMs?: number;
}

type Verified = { ok: true; payer: `0x${string}`; parsed: ExactEvmPayload } | { ok: false; response: VerifyResponse };

const MAX_MESSAGE = 200;

/** First line of an error, shortened: RPC errors can be long and must not leak internals to buyers. */
function shortMessage(error: unknown): string {
  const text = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
  const line = text.split("\n")[0] ?? "";
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

export function createExactEvmMechanism(options: ExactEvmMechanismOptions): SchemeMechanism {
  const { network } = options;
  const now = options.now ?? (() => new Date());
  if (!network.rpcUrl) throw new Error(`network ${network.network}: the EVM mechanism needs rpcUrl`);
  const chain = defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [network.rpcUrl] } },
  });
  const transport = http(network.rpcUrl, { batch: { wait: 0 }, retryCount: 0 });
  const publicClient: PublicClient = createPublicClient({ chain, transport, pollingInterval: options.pollingIntervalMs ?? 1_000 });
  const account: PrivateKeyAccount | undefined = network.settlerPrivateKey
    ? privateKeyToAccount(network.settlerPrivateKey, { nonceManager })
    : undefined;
  const wallet = account ? createWalletClient({ account, chain, transport }) : undefined;
  const nowSeconds = () => BigInt(Math.floor(now().getTime() / 1000));

  function fail(reason: string, payer?: string, message?: string): Verified {
    return { ok: false, response: { isValid: false, invalidReason: reason, ...(payer ? { payer } : {}), ...(message ? { invalidMessage: message } : {}) } };
  }

  function authorizationArgs(parsed: ExactEvmPayload) {
    const { r, s, yParity } = parseSignature(parsed.signature as Hex);
    const a = parsed.authorization;
    return [
      a.from as `0x${string}`,
      a.to as `0x${string}`,
      BigInt(a.value),
      BigInt(a.validAfter),
      BigInt(a.validBefore),
      a.nonce as Hex,
      27 + yParity,
      r,
      s,
    ] as const;
  }

  async function check(payload: PaymentPayload, requirements: PaymentRequirements, marginSeconds: number): Promise<Verified> {
    if (payload.accepted.scheme !== "exact" || requirements.scheme !== "exact") return fail(evmReasons.scheme);
    if (normalizeNetwork(payload.accepted.network) !== requirements.network || requirements.network !== network.network) {
      return fail(evmReasons.networkMismatch);
    }
    const parsed = parseExactEvmPayload(payload);
    if (!parsed) return fail(evmReasons.payload);
    const a = parsed.authorization;
    const payer = a.from as `0x${string}`;
    const name = requirements.extra?.name;
    const version = requirements.extra?.version;
    if (typeof name !== "string" || typeof version !== "string") return fail(evmReasons.missingEip712Domain, payer);
    if (!isAddressEqual(a.to as `0x${string}`, requirements.payTo as `0x${string}`)) return fail(evmReasons.recipientMismatch, payer);
    if (BigInt(a.value) !== BigInt(requirements.amount)) return fail(evmReasons.valueMismatch, payer);
    const t = nowSeconds();
    if (BigInt(a.validAfter) > t) return fail(evmReasons.validAfter, payer);
    if (BigInt(a.validBefore) < t + BigInt(marginSeconds)) return fail(evmReasons.validBefore, payer);

    const typed = {
      domain: { name, version, chainId: network.chainId, verifyingContract: requirements.asset as `0x${string}` },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization" as const,
      message: {
        from: payer,
        to: a.to as `0x${string}`,
        value: BigInt(a.value),
        validAfter: BigInt(a.validAfter),
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce as Hex,
      },
    };
    // transferWithAuthorization(v, r, s) settles 65-byte ECDSA signatures only; smart-wallet
    // (ERC-1271/6492) signatures would need the `bytes signature` overload, which we do not use.
    if (parsed.signature.length !== 132) return fail(evmReasons.signature, payer, "only 65-byte ECDSA signatures can be settled");
    try {
      // One round trip when the payment is good: the simulation is the token itself judging
      // signature, domain, window, nonce and balance. Only when it refuses are the signature, the
      // nonce's state and the balance read, to name the reason (the official facilitator's order).
      const token = { address: requirements.asset as `0x${string}`, abi: eip3009Abi } as const;
      const simulation = await publicClient
        .call({
          ...(account ? { account: account.address } : {}),
          to: token.address,
          data: encodeFunctionData({ abi: eip3009Abi, functionName: "transferWithAuthorization", args: authorizationArgs(parsed) }),
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      if (simulation !== undefined) {
        const [used, balance] = await Promise.all([
          publicClient.readContract({ ...token, functionName: "authorizationState", args: [payer, a.nonce as Hex] }),
          publicClient.readContract({ ...token, functionName: "balanceOf", args: [payer] }),
        ]);
        const signer = await recoverTypedDataAddress({ ...typed, signature: parsed.signature as Hex }).catch(() => undefined);
        if (!signer || !isAddressEqual(signer, payer)) return fail(evmReasons.signature, payer);
        if (used) return fail(evmReasons.nonceAlreadyUsed, payer);
        if (balance < BigInt(a.value)) return fail(evmReasons.insufficientBalance, payer);
        // Signature right for our domain yet refused: typically the token's EIP-712 name/version differ from config.
        return fail(evmReasons.simulationFailed, payer, shortMessage(simulation));
      }
    } catch (error) {
      return fail(evmReasons.unexpectedVerifyError, payer, shortMessage(error));
    }
    return { ok: true, payer, parsed };
  }

  async function verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    const result = await check(payload, requirements, options.settlementMarginSeconds);
    return result.ok ? { isValid: true, payer: result.payer } : result.response;
  }

  async function settle(payload: PaymentPayload, requirements: PaymentRequirements, hooks?: SettleHooks): Promise<SettleResponse> {
    const base = { network: network.network, amount: requirements.amount };
    if (!account || !wallet) return { ...base, success: false, transaction: "", errorReason: evmReasons.unexpectedSettleError, errorMessage: "no settler key" };
    // Settlement only needs the authorization to be valid when mined; the margin applied at verify is not repeated.
    const checked = await check(payload, requirements, 1);
    if (!checked.ok) {
      return { ...base, success: false, transaction: "", payer: checked.response.payer, errorReason: checked.response.invalidReason ?? evmReasons.unexpectedSettleError };
    }
    const payer = checked.payer;
    let serialized: Hex;
    try {
      const request = await wallet.prepareTransactionRequest({
        account,
        nonceManager: account.nonceManager,
        to: requirements.asset as `0x${string}`,
        data: encodeFunctionData({ abi: eip3009Abi, functionName: "transferWithAuthorization", args: authorizationArgs(checked.parsed) }),
      });
      serialized = await wallet.signTransaction(request);
    } catch (error) {
      account.nonceManager?.reset({ address: account.address, chainId: network.chainId });
      return { ...base, success: false, transaction: "", payer, errorReason: evmReasons.transactionFailed, errorMessage: shortMessage(error) };
    }
    const transaction = keccak256(serialized);
    hooks?.onSubmitted?.(transaction);
    try {
      await wallet.sendRawTransaction({ serializedTransaction: serialized });
    } catch (error) {
      // The node may or may not have taken it: indeterminate, reconcile decides.
      account.nonceManager?.reset({ address: account.address, chainId: network.chainId });
      return { ...base, success: false, transaction, payer, errorReason: evmReasons.settlementPending, errorMessage: shortMessage(error) };
    }
    let receipt;
    try {
      receipt = await publicClient.waitForTransactionReceipt({ hash: transaction, timeout: options.confirmationTimeoutMs });
    } catch (error) {
      return { ...base, success: false, transaction, payer, errorReason: evmReasons.settlementPending, errorMessage: shortMessage(error) };
    }
    const outcome = judgeReceipt(receipt, checked.parsed, requirements.asset);
    return outcome === "ok"
      ? { ...base, success: true, transaction, payer }
      : { ...base, success: false, transaction, payer, errorReason: outcome };
  }

  async function checkSettlement(pending: PendingSettlement): Promise<SettlementCheck> {
    const token = { address: network.asset, abi: eip3009Abi } as const;
    if (pending.transaction) {
      const receipt = await publicClient.getTransactionReceipt({ hash: pending.transaction as Hex }).catch(() => null);
      if (receipt) {
        return receipt.status === "success"
          ? { state: "settled", transaction: pending.transaction }
          : { state: "failed", reason: evmReasons.transactionFailed };
      }
    }
    const used = await publicClient.readContract({ ...token, functionName: "authorizationState", args: [pending.payer as `0x${string}`, pending.nonce as Hex] });
    // Anyone holding the signature may submit it; the money can only go to payTo, so a used nonce means we were paid.
    if (used) return { state: "settled", transaction: pending.transaction ?? "" };
    if (pending.transaction) {
      const inPool = await publicClient.getTransaction({ hash: pending.transaction as Hex }).then(() => true, () => false);
      if (inPool) return { state: "pending" };
    }
    if (pending.validBefore !== null && nowSeconds() >= BigInt(pending.validBefore)) return { state: "failed", reason: evmReasons.validBefore };
    return pending.transaction ? { state: "pending" } : { state: "unused" };
  }

  return {
    scheme: "exact",
    family: "evm",
    network: network.network,
    requirementsExtra: () => ({ name: network.eip712.name, version: network.eip712.version }),
    verify,
    settle,
    checkSettlement,
    signers: () => (account ? [account.address] : []),
  };
}

function judgeReceipt(
  receipt: { status: "success" | "reverted"; logs: readonly { address: `0x${string}`; data: Hex; topics: readonly Hex[] }[] },
  parsed: ExactEvmPayload,
  asset: string,
): "ok" | string {
  if (receipt.status !== "success") return evmReasons.transactionFailed;
  const a = parsed.authorization;
  const transfers = parseEventLogs({ abi: eip3009Abi, eventName: "Transfer", logs: receipt.logs as never });
  const found = transfers.some(
    (log) =>
      isAddressEqual(log.address, asset as `0x${string}`) &&
      isAddressEqual(log.args.from, a.from as `0x${string}`) &&
      isAddressEqual(log.args.to, a.to as `0x${string}`) &&
      log.args.value === BigInt(a.value),
  );
  return found ? "ok" : evmReasons.transferEventMismatch;
}
