/**
 * MikroORM set-up: one `MikroORM` per process, `em.fork()` per unit of work (a request, an
 * activity). The `tenant` filter is on by default for every tenant-owned entity, so a fork that
 * has not called {@link scoped} cannot read or write tenant rows at all.
 */
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES, TENANT_OWNED } from './entities.js';
import { MIGRATIONS } from '../migrations/index.js';

/** ORM options for a PostgreSQL URL (`postgres://user:pass@host:port/db`). */
export function ormOptions(databaseUrl: string): Options {
  return {
    clientUrl: databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    forceUtcTimezone: true,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
    migrations: {
      migrationsList: MIGRATIONS,
      tableName: 'mikro_orm_migrations',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      path: 'migrations',
      pathTs: 'migrations',
    },
    filters: {
      tenant: {
        cond: (args: Record<string, unknown>) => ({ tenantId: args.tenantId }),
        entity: TENANT_OWNED,
        default: true,
      },
    },
    pool: { min: 0, max: 10 },
  };
}

/** Opens the ORM. The caller owns `close()`. */
export async function openOrm(databaseUrl: string): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl));
}

/** Applies every committed migration that has not run yet; returns the names applied. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

/** A fresh fork scoped to one tenant: every tenant-owned query is filtered by `tenantId`. */
export function scoped(orm: MikroORM, tenantId: string): EntityManager {
  const em = orm.em.fork();
  em.setFilterParams('tenant', { tenantId });
  return em;
}

/** A fresh fork for platform-level work (tenant resolution, marks): tenant rows stay unreachable. */
export function platformEm(orm: MikroORM): EntityManager {
  return orm.em.fork();
}
