/**
 * Size budgets of what the published packages ship, in one place (`pnpm size`, and part of
 * `pnpm test`). Each check bundles a package's sources with esbuild, minified, and weighs the
 * result gzipped. Figures are KiB (1024 bytes).
 *
 * Each limit is what the check measured when its budget was last set, plus 10%, rounded up to
 * 0.1 KiB: a change of a few bytes passes, a regression of a tenth does not. A budget raised for
 * a change says why, and keeps the same headroom over the new figure.
 */

import { readFile, writeFile } from 'node:fs/promises';

/** Workspace packages resolve to their sources, as in the tests: no build needed. */
const source = '@exchange-kit/source';

/** What a browser downloads before the first call: dynamically imported modules load later. */
const laterLoadsExternal = {
  name: 'later-loads-external',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * Every chunk counts, weighed as one: the chunks are joined into one file, which is what the
 * budget is of (a client that validates its answers loads them all).
 */
const chunksJoined = {
  name: 'chunks-joined',
  setup(build) {
    build.onEnd(async (result) => {
      const outputs = result.metafile.outputs;
      const files = Object.keys(outputs);
      const joined = `${build.initialOptions.outdir}/all-chunks.js`;
      const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
      await writeFile(joined, texts.join('\n'));
      for (const file of files) delete outputs[file];
      outputs[joined] = {
        bytes: Buffer.byteLength(texts.join('\n')),
        inputs: {},
        imports: [],
        exports: [],
      };
    });
  },
};

const forBrowsers = (config) => ({
  ...config,
  platform: 'browser',
  format: 'esm',
  jsx: 'automatic',
  conditions: [source, 'browser'],
  plugins: [...(config.plugins ?? []), laterLoadsExternal],
});

export default [
  {
    // The hooks themselves: React, TanStack Query, the partner client and the contract are
    // counted (or not) where they belong.
    name: '@exchange-kit/react-hooks: the hooks in a browser',
    path: 'packages/react-hooks/src/index.ts',
    ignore: [
      'react',
      'react-dom',
      '@tanstack/react-query',
      '@exchange-kit/partner-client',
      '@exchange-kit/contract',
    ],
    gzip: true,
    // Measured 4.47 KiB.
    limit: '5 KiB',
    modifyEsbuildConfig: forBrowsers,
  },
  {
    // The trading hooks, an entry of their own: React, TanStack Query, the exchange client (the
    // page's public client) and the contract are counted apart.
    name: '@exchange-kit/react-hooks/trading: the trading hooks in a browser',
    path: 'packages/react-hooks/src/trading/index.ts',
    ignore: [
      'react',
      'react-dom',
      '@tanstack/react-query',
      '@exchange-kit/exchange-client',
      '@exchange-kit/contract',
    ],
    gzip: true,
    // Measured 1.65 KiB.
    limit: '1.9 KiB',
    modifyEsbuildConfig: forBrowsers,
  },
  {
    // The response schemas and the session signer load with the first call that needs them.
    // 10.5 KiB since calls refuse a query parameter or an option they do not take (0.2 kB):
    // plain JavaScript that passes `{ signal }` where the query goes had its signal dropped.
    name: '@exchange-kit/partner-client: browser entry before the first call',
    path: 'packages/partner-client/src/browser.ts',
    gzip: true,
    // Measured 10.48 KiB.
    limit: '11.6 KiB',
    modifyEsbuildConfig: forBrowsers,
  },
  {
    // Every chunk, the lazily loaded schemas too: this is what a validating client runs.
    // 22 KiB since resending calls refused for their nonce and signing once the socket is
    // connected (about 0.4 kB; without them, concurrent calls of one token fail), and since the
    // operations table carries each call's statuses, security, permission and 422 codes.
    // 32 KiB since Node compiles the response schemas (zod's compiler, 9.9 kB, loaded with the
    // schemas on the first call that validates): an order is checked in 0.3 µs, not 3.5 µs.
    // Browser and edge bundles carry no compiler. Plain-record attempt headers and the sweep
    // that closes idle sockets (about 1 kB) took a microsecond off every call.
    // 33 KiB since calls refuse a missing path parameter and guard the logging hooks (0.4 kB):
    // a call to a literal `{order_id}`, or a placed order reported failed by a broken logger,
    // cost users more than the bytes.
    // 38.4 KiB once the client covers the rest of the exchange (fills, ledger and balances,
    // trades, withdrawals and deposits: 22 more operations, each with its response schema) and
    // `client.events` (about 1.5 kB): the operations are the client's purpose.
    name: '@exchange-kit/exchange-client: with core and runtime schemas, on Node',
    path: 'packages/exchange-client/src/index.ts',
    gzip: true,
    // Measured 38.35 KiB.
    limit: '42.2 KiB',
    modifyEsbuildConfig: (config) => ({
      ...config,
      platform: 'node',
      format: 'esm',
      splitting: true,
      conditions: [source],
      plugins: [chunksJoined],
    }),
  },
  {
    // Rounding to a product's tick and step: decimal.js is nearly all of it.
    name: '@exchange-kit/exchange-client/precision',
    path: 'packages/exchange-client/src/precision.ts',
    gzip: true,
    // Measured 14.12 KiB.
    limit: '15.6 KiB',
    modifyEsbuildConfig: (config) => ({
      ...config,
      platform: 'node',
      format: 'esm',
      conditions: [source],
    }),
  },
];
