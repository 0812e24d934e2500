/**
 * Prop firm reads shared by the api (deploy dry run) and the deploy activity (the rules hash it
 * signs into the PropInstance constructor; docs/api.md §4.8).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { templateRules } from '../domain/prop/rules.js';
import { PropTemplate } from './entities.js';
import { scoped } from './orm.js';

/** The canonical rules a firm commits on-chain: every non-archived template's rules, by template id. */
export async function firmRules(orm: MikroORM, tenantId: string, firmId: string) {
  const templates = await scoped(orm, tenantId).find(
    PropTemplate,
    { firmId, archived: false },
    { orderBy: { id: 'asc' } },
  );
  return {
    firmId,
    templates: templates.map((t) => ({ id: t.id, ...templateRules(t), venue: t.venue })),
  };
}
