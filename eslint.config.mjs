import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Import boundaries (ARCHITECTURE.md). In flat config a later block's `no-restricted-imports` replaces an earlier
// one for the files both match, so each block lists every pattern that holds for its files.
const engineEntryOnly = {
  group: ['**/packages/engine', '**/packages/engine/**', '@hindsight/engine/*'],
  message: 'Import the engine as @hindsight/engine (its public index.ts).',
};
const noEngine = {
  group: ['@hindsight/engine', '**/db/connection'],
  message: 'Features reach the database through the driver in their repositories, never through the engine.',
};
const noFeature = {
  group: ['**/modules', '**/modules/**'],
  message: 'search and embeddings import no feature module.',
};
const noGraphQLErrors = {
  group: ['**/errors'],
  message: 'Throw a CodedError (src/coded-error.ts): formatError answers it as the GraphQL error of its code.',
};
const noGraphQL = {
  group: ['graphql', 'type-graphql', '@apollo/*'],
  message: 'search and embeddings know nothing of GraphQL.',
};
const noBench = {
  group: ['**/bench', '**/bench/**'],
  message: 'Tests never import the benchmark; shared code lives in test/support.',
};
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'data/**',
      'test/support/generated/**',
      'packages/strands/src/generated/**',
      'packages/strands/test/generated/**',
      '*.js',
      'eslint.config.mjs',
      'packages/*/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  // The app reaches the engine through its package's public index only. (The engine's own tsconfig, with the
  // package as rootDir, rejects imports from the engine into the app.)
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  { files: ['src/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'], rules: restrict(engineEntryOnly) },
  { files: ['test/**/*.ts'], rules: restrict(engineEntryOnly, noBench) },
  { files: ['packages/engine/test/**/*.ts'], rules: restrict(noBench) },
  { files: ['src/modules/**/*.ts'], rules: restrict(engineEntryOnly, noEngine) },
  // search and embeddings serve every feature: they import none, and nothing of GraphQL.
  {
    files: ['src/search/**/*.ts', 'src/embeddings/**/*.ts'],
    rules: restrict(engineEntryOnly, noEngine, noFeature, noGraphQLErrors, noGraphQL),
  },
);
