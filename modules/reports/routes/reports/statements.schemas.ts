/** Schemas of `/api/v1/reports/statements*` (docs/api.md §4.7 "Statement documents"). */
import { z } from 'zod';

export const statementListQuery = z
  .object({
    accountId: z.string().min(1).max(255).optional().meta({ description: 'Default: every account of the caller' }),
  })
  .meta({ id: 'StatementListQuery' });

export const statementParams = z.object({
  accountId: z.string().min(1).max(255),
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'a month YYYY-MM')
    .meta({ description: 'UTC month, YYYY-MM' }),
});

export const statementQuery = z
  .object({ format: z.enum(['csv', 'pdf']).default('csv').meta({ description: 'Default csv' }) })
  .meta({ id: 'StatementFormat' });

export const statementListView = z
  .object({
    statements: z.array(
      z.object({
        accountId: z.string(),
        month: z.string().meta({ description: 'UTC month, YYYY-MM' }),
        urls: z.object({
          csv: z.string().meta({ description: 'Path of the CSV document (same host)' }),
          pdf: z.string().meta({ description: 'Path of the PDF document (same host)' }),
        }),
      }),
    ),
  })
  .meta({
    id: 'StatementList',
    description:
      'One entry per account and UTC month with activity: a deposit, withdrawal, fill or funding payment logged in the month, or a round trip (manual ones included) closed in it. Ordered by account id, then month, oldest first.',
  });
