/**
 * ESLint (flat config), `npm run lint:eslint` (README "Tests" → Lint): typescript-eslint's
 * type-checked rules over the server, workflows, activities, domain, db, migrations, worker,
 * telemetry, the root modules, scripts, simulators, tests and the trading page (web/, with its own
 * tsconfig: the project service finds the nearest tsconfig.json of each file).
 *
 * Rules off or relaxed below each carry their reason; everything else in `recommendedTypeChecked`
 * is an error. Formatting is prettier's job (.prettierrc.json), not ESLint's.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** The `any`-consumption family: off where JSON of our own making is read and checked at once (see below). */
const UNSAFE_ANY_RULES = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

/** Node's globals for the few plain JavaScript files (the TypeScript files get them from @types/node). */
const NODE_GLOBALS = Object.fromEntries(
  ['console', 'process', 'module', 'require', 'URL', 'Buffer', 'setTimeout', 'clearTimeout'].map((name) => [
    name,
    'readonly',
  ]),
);

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'web/dist/',
      '.data/',
      '.tools/',
      'coverage/',
      // openapi-typescript's output (npm run client:generate): types only, checked by tsc; its unions such as
      // `unknown | null` are the document's, and test/unit/client-generated.test.ts keeps it equal to the generator's.
      'clients/typescript/src/generated/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The three the issue names, spelled out so a change of typescript-eslint's presets cannot drop them.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          // `const { secret: _secret, ...rest } = row` is how a field is dropped from a copy.
          ignoreRestSiblings: true,
        },
      ],
      // ws types a message as RawData (Buffer | ArrayBuffer | Buffer[]); it hands out an ArrayBuffer only
      // with binaryType 'arraybuffer', which we never set, so `String(raw)` is the frame's text.
      '@typescript-eslint/no-base-to-string': [
        'error',
        { ignoredTypeNames: ['Error', 'RegExp', 'URL', 'URLSearchParams', 'ArrayBuffer'] },
      ],
      // Off: an `async` function without `await` is how a Promise-returning contract is implemented
      // (MikroORM migrations' up(), Koa handlers, activities, fakes); it flags style, not bugs.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests, dev scripts and the venue simulators read JSON of our own making (the api's answers, the
    // WebSocket frames, our adapters' requests) and assert or echo it at once: a wrong shape fails the
    // test that reads it. Typing every answer would copy the api's zod schemas into each of them.
    // The product keeps the family on: there `any` is unvalidated input from a venue or a client.
    files: ['test/**/*.ts', 'scripts/**/*.ts', 'simulators/**/*.ts'],
    rules: UNSAFE_ANY_RULES,
  },
  {
    // Tests: `body: any` is the HTTP answer (test/support/stack.ts `call()`) and `frames: any[]` the
    // WebSocket frames a test asserts with `expect(...)`; `(client as any)._socket` reaches a private
    // of `ws` on purpose (pausing a reader). The product, scripts and simulators keep the rule.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: NODE_GLOBALS },
  },
);
