/**
 * The one error type of the platform (docs/architecture.md "Errors") and the table of stable codes (docs/api.md §7.2).
 * Thrown anywhere; api/middleware/errors.ts turns it into `{ error, detail?, ...extra }`.
 * Workflow Update failures carry the same code as their `ApplicationFailure` type.
 */

/** Stable error code → HTTP status. Clients branch on the code, never on `detail` (docs/api.md §7). */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  invalid_encoding: 400,
  invalid_input: 400,
  body_too_deep: 400,
  validation_failed: 400,
  invalid_idempotency_key: 400,
  stopLimitPrice_required: 400,
  venue_not_supported: 400,
  symbol_unknown: 400,
  cold_cache: 503,
  leverage_above_cap: 400,
  invalid_cursor: 400,
  invalid_signature: 400,
  siwe_message_invalid: 400,
  routing_disabled: 400,
  asset_unknown: 400,
  no_eligible_venue: 400,
  no_quotes: 400,
  payout_exceeds_ceiling: 400,
  risk_limit_exceeded: 400,
  signup_token_invalid: 400,
  payout_authorization_invalid: 400,
  webhook_target_forbidden: 400,
  unauthorized: 401,
  token_expired: 401,
  token_revoked: 401,
  credential_revoked: 401,
  invalid_credentials: 401,
  bearer_required: 401,
  siwe_domain_mismatch: 401,
  siwe_nonce_invalid: 401,
  siwe_signature_invalid: 401,
  forbidden: 403,
  tier_readonly: 403,
  tier_insufficient: 403,
  wrong_credential_audience: 403,
  tenant_mismatch: 403,
  credential_missing_agent_wallet: 403,
  agent_authorization_revoked: 403,
  agent_authorization_expired: 403,
  wallet_not_linked: 403,
  wallet_session_required: 403,
  account_suspended: 403,
  plan_change_forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  unknown_tenant_origin: 404,
  intent_not_found: 404,
  account_not_found: 404,
  order_not_found: 404,
  agent_not_found: 404,
  statement_not_found: 404,
  firm_not_found: 404,
  template_not_found: 404,
  risk_profile_not_found: 404,
  trading_group_not_found: 404,
  prop_account_not_found: 404,
  payout_not_found: 404,
  deployment_not_found: 404,
  webhook_not_found: 404,
  idempotency_key_conflict: 409,
  idempotency_request_in_flight: 409,
  invalid_state: 409,
  agent_not_dispatchable: 409,
  agent_exists: 409,
  batch_predecessor_pending: 409,
  firm_not_ready: 409,
  firm_not_live: 409,
  payout_authorization_stale: 409,
  payout_already_executed: 409,
  payout_cancel_unsafe: 409,
  slug_taken: 409,
  origin_taken: 409,
  tenant_suspended: 410,
  payload_too_large: 413,
  unsupported_encoding: 415,
  venue_rejected: 422,
  backtest_too_large: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  custody_unconfigured: 503,
  deployer_unconfigured: 503,
  chain_unconfigured: 503,
  page_unavailable: 503,
} as const;

/** A stable error code of the platform. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * An API error: `status` from {@link ERROR_STATUS}, `code` the stable `error` string,
 * `detail` best-effort (an array of field issues for validation), `extra` merged into the body
 * (e.g. `{ expected, actual }` for `wrong_credential_audience`), `headers` set on the response.
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail?: unknown,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? `${code}: ${detail}` : code);
    this.status = ERROR_STATUS[code];
  }
}
