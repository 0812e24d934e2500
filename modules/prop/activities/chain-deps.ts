/**
 * What the prop-firm activities need from the chain configuration (config.ts `chain`):
 * the RPC URL (`CHAIN_RPC_URL`), the gas-only platform deployer's key (`PROP_DEPLOYER_KEY`) and
 * the confirmations a deploy waits for (`CHAIN_CONFIRMATIONS`).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';

export interface ChainConfig {
  rpcUrl: string | null;
  deployerKey: Hex | null;
  confirmations: number;
  pollMs: number;
}

export interface PropDeps {
  orm: MikroORM;
  chain: ChainConfig;
}

/** The RPC URL. @throws ApplicationFailure `chain_unconfigured` (non-retryable) when none is set. */
export function rpcOf(chain: ChainConfig): string {
  if (!chain.rpcUrl)
    throw ApplicationFailure.create({
      type: 'chain_unconfigured',
      message: 'CHAIN_RPC_URL is not set',
      nonRetryable: true,
    });
  return chain.rpcUrl;
}
