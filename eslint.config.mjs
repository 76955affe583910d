import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ['.next/**', 'node_modules/**', '.data/**', 'db/migrations/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', '.cache/**', '.scratch/**', 'bench-results/**', 'scripts/bench/peers/**', 'sdk/dist/**', 'sdk/src/generated/**'],
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
];

export default config;
