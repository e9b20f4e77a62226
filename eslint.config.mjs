import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'test/generated/**', '*.js', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // search and embeddings serve every feature: they import none, and nothing of GraphQL (ARCHITECTURE.md).
    files: ['src/search/**/*.ts', 'src/embeddings/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/modules', '**/modules/**'], message: 'search and embeddings import no feature module.' },
            { group: ['**/errors'], message: 'Throw a CodedError (src/coded-error.ts): formatError answers it as the GraphQL error of its code.' },
            { group: ['graphql', 'type-graphql', '@apollo/*'], message: 'search and embeddings know nothing of GraphQL.' },
          ],
        },
      ],
    },
  },
);
