/** The committed migrations, in order. Each is reviewed SQL; add new ones at the end. */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122093000Core } from './Migration20261122093000Core.js';
import { Migration20261122110000BatchLegs } from './Migration20261122110000BatchLegs.js';
import { Migration20261122111500Candles } from './Migration20261122111500Candles.js';
import { Migration20261122112500ManualTrades } from './Migration20261122112500ManualTrades.js';
import { Migration20261122170000MarketStreams } from './Migration20261122170000MarketStreams.js';
import { Migration20261122171000FundingPayments } from './Migration20261122171000FundingPayments.js';
import { Migration20261122172000PositionEntryFees } from './Migration20261122172000PositionEntryFees.js';
import { Migration20261122173000StateSnapshots } from './Migration20261122173000StateSnapshots.js';
import { Migration20261122180000AgentWallets } from './Migration20261122180000AgentWallets.js';
import { Migration20261122190000SessionsAndRouting } from './Migration20261122190000SessionsAndRouting.js';
import { Migration20261123040000PropFirm } from './Migration20261123040000PropFirm.js';
import { Migration20261123050000Webhooks } from './Migration20261123050000Webhooks.js';
import { Migration20261123060000TenantConfig } from './Migration20261123060000TenantConfig.js';
import { Migration20261123090000MailDelivery } from './Migration20261123090000MailDelivery.js';
import { Migration20261124120000UniqueOrigins } from './Migration20261124120000UniqueOrigins.js';
import { Migration20261124130000RateLimits } from './Migration20261124130000RateLimits.js';
import { Migration20261124140000PayoutRebuild } from './Migration20261124140000PayoutRebuild.js';
import { Migration20261124150000AuthCache } from './Migration20261124150000AuthCache.js';
import { Migration20261124160000RateLimitsUnlogged } from './Migration20261124160000RateLimitsUnlogged.js';
import { Migration20261124170000MarkNotice } from './Migration20261124170000MarkNotice.js';
import { Migration20261124180000EventNotice } from './Migration20261124180000EventNotice.js';

export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261122093000Core', class: Migration20261122093000Core },
  { name: 'Migration20261122110000BatchLegs', class: Migration20261122110000BatchLegs },
  { name: 'Migration20261122111500Candles', class: Migration20261122111500Candles },
  { name: 'Migration20261122112500ManualTrades', class: Migration20261122112500ManualTrades },
  { name: 'Migration20261122170000MarketStreams', class: Migration20261122170000MarketStreams },
  { name: 'Migration20261122171000FundingPayments', class: Migration20261122171000FundingPayments },
  { name: 'Migration20261122172000PositionEntryFees', class: Migration20261122172000PositionEntryFees },
  { name: 'Migration20261122173000StateSnapshots', class: Migration20261122173000StateSnapshots },
  { name: 'Migration20261122180000AgentWallets', class: Migration20261122180000AgentWallets },
  { name: 'Migration20261122190000SessionsAndRouting', class: Migration20261122190000SessionsAndRouting },
  { name: 'Migration20261123040000PropFirm', class: Migration20261123040000PropFirm },
  { name: 'Migration20261123050000Webhooks', class: Migration20261123050000Webhooks },
  { name: 'Migration20261123060000TenantConfig', class: Migration20261123060000TenantConfig },
  { name: 'Migration20261123090000MailDelivery', class: Migration20261123090000MailDelivery },
  { name: 'Migration20261124120000UniqueOrigins', class: Migration20261124120000UniqueOrigins },
  { name: 'Migration20261124130000RateLimits', class: Migration20261124130000RateLimits },
  { name: 'Migration20261124140000PayoutRebuild', class: Migration20261124140000PayoutRebuild },
  { name: 'Migration20261124150000AuthCache', class: Migration20261124150000AuthCache },
  { name: 'Migration20261124160000RateLimitsUnlogged', class: Migration20261124160000RateLimitsUnlogged },
  { name: 'Migration20261124170000MarkNotice', class: Migration20261124170000MarkNotice },
  { name: 'Migration20261124180000EventNotice', class: Migration20261124180000EventNotice },
];
