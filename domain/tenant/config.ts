/**
 * A white-label tenant's configuration (docs/api.md §2.4): branding, theme, feature flags, enabled venues,
 * plan and the policy of self-opened accounts. Each section is a zod schema with defaults: a stored `{}`
 * (or any missing field) reads as the default, so a new tenant is complete from its first request.
 * The plan is the platform's: a tenant reads it but cannot write it (`403 plan_change_forbidden`). Pure.
 */
import { z } from 'zod';
import { dec, isPlainDecimal } from '../decimal.js';
import { positiveDecimal } from '../oms/decimal-input.js';
import { EXECUTION_MODE_POLICIES } from '../oms/execution.js';
import { FUNDING_APPROVALS, type FundingPolicy } from '../funding/operations.js';

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a #rrggbb colour');
const httpsUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'an http(s) URL');

/** Colour tokens of one mode. */
const palette = (
  d: Record<'background' | 'surface' | 'text' | 'muted' | 'primary' | 'positive' | 'negative' | 'border', string>,
) =>
  z
    .object(
      Object.fromEntries(Object.entries(d).map(([k, v]) => [k, hexColor.default(v)])) as Record<
        keyof typeof d,
        z.ZodDefault<typeof hexColor>
      >,
    )
    .default(d as never);

export const brandingSchema = z
  .object({
    displayName: z
      .string()
      .min(1)
      .max(80)
      .optional()
      .meta({ description: 'Shown in the trading page header; defaults to the tenant’s display name' }),
    logoUrl: httpsUrl.nullable().default(null),
    faviconUrl: httpsUrl.nullable().default(null),
    supportEmail: z.string().email().nullable().default(null),
  })
  .meta({ id: 'TenantBranding' });

export const themeSchema = z
  .object({
    light: palette({
      background: '#ffffff',
      surface: '#f5f6f8',
      text: '#111827',
      muted: '#6b7280',
      primary: '#2563eb',
      positive: '#16a34a',
      negative: '#dc2626',
      border: '#e5e7eb',
    }),
    dark: palette({
      background: '#0b0e14',
      surface: '#151a23',
      text: '#e5e7eb',
      muted: '#9ca3af',
      primary: '#3b82f6',
      positive: '#22c55e',
      negative: '#ef4444',
      border: '#262d3a',
    }),
    typography: z
      .object({
        fontFamily: z.string().min(1).max(200).default('Inter, system-ui, sans-serif'),
        baseSizePx: z.number().int().min(10).max(24).default(14),
      })
      .default({ fontFamily: 'Inter, system-ui, sans-serif', baseSizePx: 14 }),
    radiusPx: z.number().int().min(0).max(32).default(6),
    defaultMode: z.enum(['light', 'dark']).default('dark'),
  })
  .meta({ id: 'TenantTheme' });

/**
 * The feature flags that switch something on the platform, name → what they switch (docs/api.md §2.4).
 * Each is on unless the tenant sets it `false`. Any other flag name is the tenant's own: stored and served
 * (`GET /api/features`, for its trading page), switching nothing here.
 */
export const FEATURE_FLAGS = {
  smartRouting: 'smart order routing, `POST /api/v1/oms/route-intents`',
  propFirm: 'the challenge catalogue and its purchase, `GET /api/v1/prop/offers` and `POST /api/v1/prop/challenges`',
} as const;
export type FeatureFlag = keyof typeof FEATURE_FLAGS;

const FLAG_NAME = /^[a-z][a-zA-Z0-9_]{0,63}$/;

export const flagsSchema = z
  .object(
    Object.fromEntries(
      Object.entries(FEATURE_FLAGS).map(([name, what]) => [
        name,
        z.boolean().default(true).meta({ description: what }),
      ]),
    ) as Record<FeatureFlag, z.ZodDefault<z.ZodBoolean>>,
  )
  .catchall(z.boolean())
  .refine((flags) => Object.keys(flags).every((name) => FLAG_NAME.test(name)), {
    message: 'flag names are 1-64 of a-z, A-Z, 0-9 and _, starting with a lower-case letter',
  })
  .meta({
    id: 'TenantFlags',
    description: `Feature flags, name → on/off. ${Object.keys(FEATURE_FLAGS)
      .map((f) => `\`${f}\``)
      .join(', ')} switch features (default on); any other name switches nothing on the platform`,
  });

export const venuesSchema = z
  .object({
    enabled: z
      .array(z.string().min(1))
      .default(['paper', 'hyperliquid', 'aster', 'polymarket', 'kalshi'])
      .meta({ description: 'Venue slugs the tenant’s traders see' }),
    symbols: z
      .record(z.string(), z.array(z.string()))
      .default({})
      .meta({ description: 'Per venue, the symbols shown (absent = all)' }),
  })
  .meta({ id: 'TenantVenues' });

export const planSchema = z
  .object({
    name: z.enum(['starter', 'growth', 'enterprise']).default('starter'),
    maxAccounts: z
      .number()
      .int()
      .positive()
      .default(1000)
      .meta({ description: 'Accounts the tenant may hold; the next one is `409 plan_limit_reached`' }),
    webhooks: z
      .boolean()
      .default(true)
      .meta({ description: 'Webhook endpoints; without: `403 plan_feature_unavailable` on register and enable' }),
    propFirm: z.boolean().default(false).meta({
      description: 'A prop firm; without: `403 plan_feature_unavailable` on firm creation, offers, purchases',
    }),
  })
  .meta({ id: 'TenantPlan', description: 'Set by the platform; enforced (docs/api.md §2.4)' });

/** The plan's switches, field → the feature it allows (docs/api.md §2.4). */
export const PLAN_FEATURES = {
  webhooks: 'webhook endpoints (`POST /api/v1/webhooks`, `POST /api/v1/webhooks/{id}/enable`)',
  propFirm: 'a prop firm (`POST /api/v1/firms`; for traders `GET /api/v1/prop/offers`, `POST /api/v1/prop/challenges`)',
} as const;
export type PlanFeature = keyof typeof PLAN_FEATURES;

/** The largest amount a tenant's deposit policy may name, USD: the platform's bound on any paper deposit. */
export const MAX_POLICY_DEPOSIT_USD = '1000000000';
/** The deposit policy when the tenant has set none, USD (decimal strings). */
export const DEFAULT_DEPOSIT_POLICY = { defaultUsd: '100000', maxUsd: '1000000' } as const;

/** The funding policy when the tenant has set none: every operation allowed, none held for approval. */
export const DEFAULT_FUNDING_POLICY: FundingPolicy = {
  deposits: true,
  withdrawals: true,
  transfers: true,
  approval: 'none',
  maxDepositUsd: null,
};

const policyUsd = positiveDecimal.refine((v) => dec(v).lte(MAX_POLICY_DEPOSIT_USD), {
  message: `at most ${MAX_POLICY_DEPOSIT_USD} USD`,
});

/**
 * How the accounts a trader opens itself (`POST /api/v1/accounts`, `POST /api/v1/sandbox/paper-account`)
 * are set up: their execution mode (domain/oms/execution.ts; default `internalised`, as every account was
 * before the policy existed), the trading group they join when the trader's own account has none (leverage
 * caps, docs/api.md §2.6), the opening paper deposit of an internalised one (default, and the most a
 * trader may ask for), and the funding operations its trader may ask for afterwards (domain/funding/operations.ts).
 */
export const accountsSchema = z
  .object({
    executionMode: z.enum(EXECUTION_MODE_POLICIES).default('internalised').meta({
      description:
        '`internalised`: every account a trader opens is matched by the platform engine; `routed`: every one goes to the exchanges; `trader_choice`: the trader names `executionMode` when opening it (default `internalised`)',
    }),
    defaultTradingGroupId: z
      .string()
      .min(1)
      .max(255)
      .nullable()
      .default(null)
      .meta({ description: 'A trading group of the tenant; null: no group (the symbols’ own maximum leverage)' }),
    deposit: z
      .object({
        defaultUsd: policyUsd
          .default(DEFAULT_DEPOSIT_POLICY.defaultUsd)
          .meta({ description: 'Opening deposit when the trader names none, USD' }),
        maxUsd: policyUsd.default(DEFAULT_DEPOSIT_POLICY.maxUsd).meta({
          description: `Largest initialDepositUsd a trader may ask for, USD (at most ${MAX_POLICY_DEPOSIT_USD})`,
        }),
      })
      .refine((d) => !isPlainDecimal(d.defaultUsd) || !isPlainDecimal(d.maxUsd) || dec(d.defaultUsd).lte(d.maxUsd), {
        message: 'defaultUsd must not exceed maxUsd',
        path: ['defaultUsd'],
      })
      .default({ ...DEFAULT_DEPOSIT_POLICY }),
    funding: z
      .object({
        deposits: z
          .boolean()
          .default(true)
          .meta({ description: 'Traders may deposit (`POST /accounts/{id}/deposits`)' }),
        withdrawals: z
          .boolean()
          .default(true)
          .meta({ description: 'Traders may withdraw (`POST /accounts/{id}/withdrawals`)' }),
        transfers: z
          .boolean()
          .default(true)
          .meta({ description: 'Traders may transfer between their own accounts (`POST /accounts/{id}/transfers`)' }),
        approval: z.enum(FUNDING_APPROVALS).default('none').meta({
          description:
            'Which operations wait `pending` for an operator with `accounts:intervene`: `none`, `withdrawals`, or `all` (docs/api.md §4.3)',
        }),
        maxDepositUsd: policyUsd
          .nullable()
          .default(null)
          .meta({ description: 'Largest single deposit, USD; null: `deposit.maxUsd`' }),
      })
      .default({ ...DEFAULT_FUNDING_POLICY }),
  })
  .meta({ id: 'TenantAccounts' });

/** The configurable sections, their schemas. */
export const TENANT_SECTIONS = {
  branding: brandingSchema,
  theme: themeSchema,
  flags: flagsSchema,
  venues: venuesSchema,
  plan: planSchema,
  accounts: accountsSchema,
} as const;
export type TenantSection = keyof typeof TENANT_SECTIONS;

/** The sections only the platform writes: a tenant's `PUT` of one is `403 plan_change_forbidden`. */
export const PLATFORM_SECTIONS: readonly TenantSection[] = ['plan'];

/** A section as read: the stored value with every default filled in. */
export function readSection<S extends TenantSection>(
  section: S,
  stored: unknown,
): z.infer<(typeof TENANT_SECTIONS)[S]> {
  const parsed = TENANT_SECTIONS[section].safeParse(stored ?? {});
  return (parsed.success ? parsed.data : TENANT_SECTIONS[section].parse({})) as z.infer<(typeof TENANT_SECTIONS)[S]>;
}

/** Slug rules (documented in the README): 3-32 of a-z, 0-9 and inner hyphens, starting with a letter, not reserved. */
export const SLUG_RE = /^[a-z][a-z0-9-]{1,30}[a-z0-9]$/;
export const RESERVED_SLUGS = new Set([
  'platform',
  'api',
  'www',
  'admin',
  'app',
  'docs',
  'status',
  'mail',
  'support',
  'static',
  'assets',
]);
