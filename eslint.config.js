// ESLint flat config: typescript-eslint's recommended rules for the sources, tests and scripts
// (`npm run lint`; `.ci/run` runs it before the type check). Formatting is not linted here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const base = tseslint.config({ ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'test/peers/'] }, js.configs.recommended, ...tseslint.configs.recommended, {
  languageOptions: {
    ecmaVersion: 2023,
    sourceType: 'module',
    globals: {
      // Node.js globals used by the sources, tests and scripts.
      process: 'readonly',
      Buffer: 'readonly',
      console: 'readonly',
      setTimeout: 'readonly',
      clearTimeout: 'readonly',
      setInterval: 'readonly',
      clearInterval: 'readonly',
      setImmediate: 'readonly',
      URL: 'readonly',
      URLSearchParams: 'readonly',
      fetch: 'readonly',
      Response: 'readonly',
      Headers: 'readonly',
      AbortController: 'readonly',
      AbortSignal: 'readonly',
      TextEncoder: 'readonly',
      TextDecoder: 'readonly',
      structuredClone: 'readonly',
      performance: 'readonly',
      queueMicrotask: 'readonly',
    },
  },
  rules: {
    // Style choice: `any` is used on purpose at boundaries (Kysely's dynamic queries, raw JSON in
    // tests); 57 findings, left to the type checker's strict mode elsewhere.
    '@typescript-eslint/no-explicit-any': 'off',
    // Unused names are errors, except the `_`-prefixed ones and the siblings of a rest pattern
    // (`const { omitted, ...rest } = o` drops keys on purpose).
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    // Text processing matches control characters on purpose (NUL, vertical tab: PHP's trim set).
    'no-control-regex': 'off',
  },
});

/** zlib's synchronous decompression, which holds the event loop for the whole output. */
const SYNC_DECOMPRESSION = ['gunzipSync', 'inflateSync', 'inflateRawSync', 'unzipSync', 'brotliDecompressSync', 'zstdDecompressSync'];
const STREAM_INSTEAD = 'Decompress with the streaming API and a byte count (src/import/source.ts), never a *Sync call in the server.';

export default [
  ...base,
  {
    // The server's process never decompresses in one synchronous call: a 259 KiB gzip answer
    // inflating to 256 MiB held the loop for seconds. Streams with a count of the bytes out instead.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', ...['node:zlib', 'zlib'].map((name) => ({ name, importNames: SYNC_DECOMPRESSION, message: STREAM_INSTEAD }))],
      'no-restricted-properties': ['error', ...SYNC_DECOMPRESSION.map((property) => ({ property, message: STREAM_INSTEAD }))],
    },
  },
];
