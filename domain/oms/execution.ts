/**
 * Execution mode (docs/api.md §1 "Routed and internalised execution"): a property of the account, never of
 * the venue an order names. An `internalised` account's order on any listed asset is matched by the platform
 * engine (venue `paper`) on the paper symbol of the same underlying, at its canonical mark; a `routed`
 * account's order goes to the exchange it names, and `paper` is not one. Which mode a new account gets is the
 * tenant's policy (`accounts.executionMode`, docs/api.md §2.4, §4.3). Pure.
 */
import { ApiError } from '../errors.js';
import { paperTwin, type SymbolSpec } from '../market/symbols.js';

/** The modes an account executes in. */
export const EXECUTION_MODES = ['internalised', 'routed'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** A tenant's policy for the accounts its traders open: one mode for all, or the trader's choice. */
export const EXECUTION_MODE_POLICIES = [...EXECUTION_MODES, 'trader_choice'] as const;
export type ExecutionModePolicy = (typeof EXECUTION_MODE_POLICIES)[number];

/** The mode of an account row (`accounts.execution_mode`: only these two values are ever written). */
export const executionModeOf = (stored: string): ExecutionMode => (stored === 'routed' ? 'routed' : 'internalised');

/** Per mode, the symbol an order named on `spec` executes on (module doc); each throws its refusal. */
const EXECUTION: Record<ExecutionMode, (spec: SymbolSpec) => SymbolSpec> = {
  internalised: (spec) => {
    const twin = paperTwin(spec);
    if (!twin)
      throw new ApiError(
        'venue_not_internalised',
        `${spec.symbol} has no internalised twin: an internalised account trades perps only (the paper symbols of GET /api/v1/symbols/paper)`,
        { venue: spec.venue, symbol: spec.symbol },
      );
    return twin;
  },
  routed: (spec) => {
    if (spec.venue === 'paper')
      throw new ApiError(
        'account_routed',
        'this account is routed: its orders go to the exchange they name (hyperliquid, aster, polymarket, kalshi), never to paper',
        { venue: spec.venue },
      );
    return spec;
  },
};

/**
 * The symbol an order of an account in `mode` named on `spec` executes on: for an internalised account the
 * paper twin of `spec` (`BTC.HL` → `BTC.PAPER`), for a routed one `spec` itself.
 * @throws ApiError `400 venue_not_internalised` (internalised, no paper twin: prediction markets),
 *   `400 account_routed` (routed, `spec` on `paper`).
 */
export function executionSymbol(mode: ExecutionMode, spec: SymbolSpec): SymbolSpec {
  return EXECUTION[mode](spec);
}

/**
 * The mode of an account a trader opens under the tenant's `policy`, `requested` the mode the trader asked for
 * (absent: the policy's mode; under `trader_choice`, `internalised`).
 * @throws ApiError `403 execution_mode_not_allowed` with `policy`, `requested` when the policy fixes another mode.
 */
export function newAccountMode(policy: ExecutionModePolicy, requested?: ExecutionMode): ExecutionMode {
  if (policy === 'trader_choice') return requested ?? 'internalised';
  if (requested && requested !== policy)
    throw new ApiError(
      'execution_mode_not_allowed',
      `this tenant opens ${policy} accounts only (its accounts.executionMode policy)`,
      { policy, requested },
    );
  return policy;
}
