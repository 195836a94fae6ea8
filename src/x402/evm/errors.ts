/**
 * @module x402/evm/errors — EVM `exact` reason strings, exactly as the official SDK writes them, so
 * buyers' tooling that matches on them keeps working.
 */
export const evmReasons = {
  scheme: "invalid_exact_evm_scheme",
  networkMismatch: "invalid_exact_evm_network_mismatch",
  missingEip712Domain: "invalid_exact_evm_missing_eip712_domain",
  payload: "invalid_exact_evm_payload",
  recipientMismatch: "invalid_exact_evm_recipient_mismatch",
  signature: "invalid_exact_evm_signature",
  validAfter: "invalid_exact_evm_payload_authorization_valid_after",
  validBefore: "invalid_exact_evm_payload_authorization_valid_before",
  valueMismatch: "invalid_exact_evm_payload_authorization_value_mismatch",
  nonceAlreadyUsed: "invalid_exact_evm_nonce_already_used",
  insufficientBalance: "invalid_exact_evm_insufficient_balance",
  simulationFailed: "invalid_exact_evm_transaction_simulation_failed",
  transactionFailed: "invalid_exact_evm_transaction_failed",
  transferEventMismatch: "invalid_exact_evm_transfer_event_mismatch",
  settlementPending: "settlement_pending",
  unexpectedSettleError: "unexpected_settle_error",
  unexpectedVerifyError: "unexpected_verify_error",
} as const;
