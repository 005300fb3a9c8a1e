// typescript-eslint strictTypeChecked: floating promises matter in socket code.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', 'results/', '**/*.mjs'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
    },
  },
  {
    // A function a reader can hold: past 120 lines (comments counted) it is split into named parts.
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts', '**/test/**', '**/*.defaults.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120, IIFEs: true }] },
  },
  {
    // @types/k6 declares scenario configs as classes, but k6 takes plain objects (its own docs do).
    files: ['k6-scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-class-instance-assignment': 'off' },
  },
  {
    // @kubernetes/client-node's models are classes with only static metadata; its own examples type
    // plain object literals with them (`const d: V1Deployment = {...}`), which is how manifests are written.
    files: ['clusters/**/*.ts', 'mesh/control-plane/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
    },
  },
  {
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
