import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import { apis, operationLink, operations } from '../../src/reference/openapi.js';

const source = '@exchange-kit/source';

/** A `#region name` or `#endregion` line, as comments of TypeScript, HTML or CSS write it. */
const regionMarker = /^[ \t]*(?:\/\/|<!--|\/\*)[ \t]*#(?:end)?region\b.*\n/gm;

const apiSidebar = (Object.keys(apis) as (keyof typeof apis)[]).map((api) => ({
  text: apis[api].title,
  collapsed: true,
  items: [
    { text: 'Overview', link: `/reference/${api}/` },
    ...operations()
      .filter((op) => op.api === api)
      .map((op) => ({
        text: `${op.method} ${op.path.replace(/^\/api\/v1/, '')}`,
        link: operationLink(op),
      })),
    { text: 'Schemas', link: `/reference/${api}/schemas` },
  ],
}));

const packages = [
  '@exchange-kit/core',
  '@exchange-kit/core/auth',
  '@exchange-kit/core/decimal',
  '@exchange-kit/exchange-client',
  '@exchange-kit/exchange-client/precision',
  '@exchange-kit/contract/exchange/schemas',
  '@exchange-kit/partner-client',
  '@exchange-kit/contract/partner/schemas',
  '@exchange-kit/contract/state-tables',
  '@exchange-kit/react-hooks',
  '@exchange-kit/conformance',
  '@exchange-kit/conformance/vitest',
];

export default defineConfig({
  title: 'exchange-kit',
  // Declared, so that a browser does not ask for a /favicon.ico the site does not have.
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  description:
    'TypeScript toolkit for the exchange REST interface and the Quick Exchange partner interface.',
  outDir: '../dist',
  cacheDir: '../node_modules/.vitepress-cache',
  cleanUrls: false,
  // A broken internal link fails the build.
  ignoreDeadLinks: false,
  markdown: {
    config(md) {
      // A sample shown whole (`<<< file`, no region) is shown without the region markers that
      // its parts are cut along: readers copy it as it is.
      const fence = md.renderer.rules.fence;
      md.renderer.rules.fence = (tokens, index, options, env, self) => {
        const token = tokens[index] as (typeof tokens)[number] & { src?: [string, string?] };
        const [path, region] = token.src ?? [];
        if (path && !region) {
          token.content = readFileSync(path, 'utf8').replace(regionMarker, '');
          token.src = undefined;
        }
        return fence
          ? fence(tokens, index, options, env, self)
          : self.renderToken(tokens, index, options);
      };
    },
  },
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guides', link: '/guide/' },
      { text: 'API reference', link: '/reference/' },
      { text: 'Packages', link: '/reference/packages/' },
      { text: 'Live', link: '/live' },
    ],
    sidebar: {
      '/guide/': [
        {
          text: 'Guides',
          items: [
            { text: 'Start here', link: '/guide/' },
            { text: 'Backend teams', link: '/guide/backend' },
            { text: 'A bot that reconciles', link: '/guide/reconcile' },
            { text: 'Frontend teams', link: '/guide/frontend' },
            { text: 'Server implementers', link: '/guide/server' },
            { text: 'Contributors', link: '/guide/contributing' },
          ],
        },
      ],
      '/reference/': [
        {
          text: 'Reference',
          items: [
            { text: 'Overview', link: '/reference/' },
            { text: 'Authentication', link: '/reference/authentication' },
            { text: 'Events', link: '/reference/events' },
            { text: 'State tables', link: '/reference/state-tables' },
            { text: 'Conformance requirements', link: '/reference/conformance' },
          ],
        },
        ...apiSidebar,
        {
          text: 'Packages',
          collapsed: false,
          items: [
            { text: 'All packages', link: '/reference/packages/' },
            ...packages.map((name) => ({
              text: name.replace('@exchange-kit/', ''),
              link: `/reference/packages/${name}`,
            })),
          ],
        },
      ],
    },
    outline: { level: [2, 3] },
  },
  vite: {
    resolve: { conditions: [source, 'module', 'browser', 'development|production'] },
    ssr: { resolve: { conditions: [source, 'module', 'node', 'development|production'] } },
    esbuild: { jsx: 'automatic' },
    build: {
      chunkSizeWarningLimit: 2000,
      rollupOptions: {
        onwarn(warning, warn) {
          // React Server Components' "use client" markers mean nothing in a static site.
          if (warning.code !== 'INVALID_ANNOTATION' && warning.code !== 'MODULE_LEVEL_DIRECTIVE') {
            warn(warning);
          }
        },
      },
    },
    server: { fs: { allow: [fileURLToPath(new URL('../../../../', import.meta.url))] } },
  },
});
