/**
 * @module x402/avm/errors — Algorand `exact` reason strings as the official @x402/avm writes them,
 * plus the spec's `insufficient_funds` for a payer without enough of the asset.
 */
export const avmReasons = {
  scheme: "invalid_exact_avm_scheme",
  networkMismatch: "invalid_exact_avm_network_mismatch",
  payload: "invalid_exact_avm_payload",
  groupSizeExceeded: "invalid_exact_avm_group_size_exceeded",
  paymentIndex: "invalid_exact_avm_payment_index",
  invalidTransaction: "invalid_exact_avm_invalid_transaction",
  invalidGroupId: "invalid_exact_avm_invalid_group_id",
  notAssetTransfer: "invalid_exact_avm_not_asset_transfer",
  amountMismatch: "invalid_exact_avm_amount_mismatch",
  receiverMismatch: "invalid_exact_avm_receiver_mismatch",
  assetMismatch: "invalid_exact_avm_asset_mismatch",
  invalidFeePayer: "invalid_exact_avm_invalid_fee_payer",
  feeTooHigh: "invalid_exact_avm_fee_too_high",
  paymentNotSigned: "invalid_exact_avm_payment_not_signed",
  invalidSignature: "invalid_exact_avm_invalid_signature",
  facilitatorTransferring: "invalid_exact_avm_facilitator_transferring",
  unsignedNonFacilitator: "invalid_exact_avm_unsigned_non_facilitator",
  /** Not an SDK string: the group's genesis hash or validity rounds do not fit this network now. */
  invalidValidity: "invalid_exact_avm_invalid_transaction",
  settlementFailed: "invalid_exact_avm_settlement_failed",
  confirmationFailed: "invalid_exact_avm_confirmation_failed",
  insufficientFunds: "insufficient_funds",
  alreadyUsed: "invalid_transaction_state",
  settlementPending: "settlement_pending",
  unexpectedVerifyError: "unexpected_verify_error",
} as const;
