// Lint rules: the recommended sets, type-aware for src so promise mistakes surface.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'templates/', 'coverage/', 'tmp/', 'src/studio/api/schema.d.ts'] },
  js.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    ignores: ['src/studio/**'],
    languageOptions: { parserOptions: { project: './tsconfig.json' } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // The Studio runs in the browser and has its own tsconfig (DOM, JSX for Preact).
    files: ['src/studio/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser }, parserOptions: { project: './src/studio/tsconfig.json' } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings through src/config/settings.ts.' }],
    },
  },
  {
    // The settings module reads the environment; `serve` passes it on to the processes it starts;
    // the XSLT sandbox's entry point runs in a child process with its own, empty environment.
    files: ['src/config/settings.ts', 'src/cli/serve.ts', 'test/**', 'bench/**', 'scripts/**', 'src/engines/xslt/sandbox*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
