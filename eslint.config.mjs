import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'data/**', 'test/generated/**', '*.js', '*.mjs', 'packages/*/*.js'] },
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
    // The app reaches the engine through its package's public index only. (The engine's own tsconfig, with the
    // package as rootDir, rejects imports from the engine into the app.)
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/packages/engine', '**/packages/engine/**', '@hindsight/engine/*'],
              message: 'Import the engine as @hindsight/engine (its public index.ts).',
            },
          ],
        },
      ],
    },
  },
);
