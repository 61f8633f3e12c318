import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', '.appbuilder', 'dist', 'coverage', 'test-artifacts', 'docs', 'src/sdk/generated'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
