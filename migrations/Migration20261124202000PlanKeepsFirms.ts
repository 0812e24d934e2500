/**
 * The plan's `propFirm` switch is enforced from this release on (docs/api.md §2.4; issue 17), and it
 * defaults to off. A tenant that already runs a prop firm keeps it: its stored plan gets
 * `propFirm: true`. Every other tenant's plan is left as stored.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration20261124202000PlanKeepsFirms extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update tenants set plan = coalesce(plan, '{}'::jsonb) || '{"propFirm": true}'::jsonb
        where exists (select 1 from firms where firms.tenant_id = tenants.id)
          and coalesce(plan ->> 'propFirm', 'false') <> 'true'`,
    );
  }

  override async down(): Promise<void> {
    // Which plans this set is not recorded; leaving `propFirm: true` is the safe direction.
  }
}
