/**
 * dependency-cruiser, `npm run lint:deps` (README "Tests" → Lint): the import rules of the house,
 * every one an error. Paths are relative to the repository root; `tsConfig` resolves our `.js`
 * import suffixes to the `.ts` files, and `tsPreCompilationDeps` keeps `import type` edges (marked
 * `type-only`) so the rules can tell a type from an implementation.
 *
 * Choices:
 * - "the product imports no scripts/ or test/": tests may import the dev scripts' libraries
 *   (test/support/global-setup.ts starts PostgreSQL, Temporal and anvil with scripts/lib/) and the
 *   dev scripts and benches may import test/support; what must never happen is any other folder
 *   (the shipped code: api, worker, workflows, activities, domain, db, migrations, the root modules;
 *   and the simulators) reaching into either.
 * - db/ may import migrations/ besides domain/: db/orm.ts registers the migration list, the
 *   schema's other half; migrations/ import nothing of ours.
 * - A cycle with an `import type` edge in it is broken at compile time: a warning, not an error.
 */

/**
 * `to` of a rule about our own modules: any module that is neither a package nor a Node built-in
 * (so a new top-level folder is covered without editing this file), except those matching `allowed`.
 */
const oursExcept = (allowed) => ({ pathNot: [allowed, '(^|/)node_modules/'], dependencyTypesNot: ['core'] });

/** Workflow code: the bundle entry `workflows/` and every context's `modules/<context>/workflows/`. */
const WORKFLOWS = '^(workflows|modules/[^/]+/workflows)/';
/** Route files: the api shell's own (`api/routes/`) and every context's `modules/<context>/routes/`. */
const ROUTES = '^(api/routes|modules/[^/]+/routes)/';
/** The api process's code: its shell (`api/`) and every context's routes, commands, queries and presenters. */
const API_SIDE =
  '^(api/|modules/[^/]+/routes/|modules/[^/]+/commands/|modules/[^/]+/queries/|modules/[^/]+/presenters/)';
/**
 * The worker's side: activity implementations (`activities/`, `modules/<context>/activities/`), the
 * market feeds the worker runs (`modules/market/feeds/`) and the chain clients (`modules/prop/chain/`).
 */
const WORKER_SIDE = '^(activities/|modules/[^/]+/activities/|modules/market/feeds/|modules/prop/chain/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ is pure TypeScript: it imports packages and other domain/ modules, nothing else of ours.',
      severity: 'error',
      from: { path: '^domain/' },
      to: oursExcept('^domain/'),
    },
    {
      name: 'db-only-domain',
      comment:
        'db/ (entities, ORM set-up, queries) imports only db/, domain/ and the migration list; never the api or activities.',
      severity: 'error',
      from: { path: '^db/' },
      to: oursExcept('^(db|domain|migrations)/'),
    },
    {
      name: 'infra-is-shared-io',
      comment:
        'infra/ holds I/O both processes use that is neither the database nor an activity (mail transports, recorded market data): ' +
        'it imports domain/, db/ and the root modules, never the api, activities, workflows or the worker.',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^(api|activities|workflows|worker|modules)/' },
    },
    {
      name: 'migrations-stand-alone',
      comment: 'A migration is reviewed SQL; it imports no code of ours outside migrations/.',
      severity: 'error',
      from: { path: '^migrations/' },
      to: oursExcept('^migrations/'),
    },
    {
      name: 'workflows-import-activity-types-only',
      comment:
        'Workflow code is bundled into the deterministic sandbox: it takes activities through proxyActivities<typeof ...>, ' +
        'so it may import activities/ with `import type` only.',
      severity: 'error',
      from: { path: WORKFLOWS },
      to: { path: WORKER_SIDE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'routes-import-no-route',
      comment:
        'A route file holds its endpoints; shared logic lives in a module of its own. A route may import any *.schemas.ts ' +
        'and shared modules, never another route file.',
      severity: 'error',
      from: { path: ROUTES },
      to: { path: ROUTES, pathNot: '\\.schemas\\.ts$' },
    },
    {
      name: 'api-imports-no-activity-implementation',
      comment:
        'The api starts workflows and reads the database; it does not run activity code. Types from activities/ are fine.',
      severity: 'error',
      from: { path: API_SIDE },
      to: { path: WORKER_SIDE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'product-imports-no-scripts-or-tests',
      comment:
        'Nothing outside scripts/ and test/ imports scripts/ or test/ (tests using scripts/lib/ is fine; see the header).',
      severity: 'error',
      from: { pathNot: '^(scripts|test)/' },
      to: { path: '^(scripts|test)/' },
    },
    {
      name: 'client-imports-only-its-own',
      comment:
        'The TypeScript client (clients/typescript/, its own npm package) holds its generated types and its hand-written ' +
        'layer and imports packages only: nothing of the server tree, scripts or tests, so it builds and ships alone.',
      severity: 'error',
      from: { path: '^clients/typescript/' },
      to: oursExcept('^clients/typescript/'),
    },
    {
      name: 'examples-use-the-client',
      comment:
        "The examples (examples/) show the API from the outside: they import the client package and each other, never the server's code.",
      severity: 'error',
      from: { path: '^examples/' },
      to: oursExcept('^(examples|clients/typescript)/'),
    },
    {
      name: 'product-imports-no-client',
      comment:
        'The client is for callers of the API: the shipped code never imports it (scripts, tests and examples may). ' +
        'The trading page (web/), itself a caller, takes the generated schema types with `import type` only.',
      severity: 'error',
      from: { pathNot: '^(scripts|test|examples|clients|web)/' },
      to: { path: '^clients/' },
    },
    {
      name: 'web-takes-client-types-only',
      comment: 'web/ imports from the client only types (erased at build time)...',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^clients/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-takes-generated-types-only',
      comment: '...and only the generated OpenAPI schema types, never the hand-written layer.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^clients/', pathNot: '^clients/typescript/src/generated/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle with a runtime edge in it: module initialisation order would decide what is undefined.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-type-only',
      comment:
        'A cycle broken by an `import type` edge: erased at compile time, harmless at run time, still worth untangling.',
      severity: 'warn',
      from: {},
      to: { circular: true, via: { dependencyTypes: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to no file (a typo, a deleted module, a package missing from package.json).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|web/dist|\\.data|\\.tools|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
