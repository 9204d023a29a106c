/**
 * Serves the example with Vite: the page, the partner interface proxied under /api (so the
 * page calls its own origin), and the backend that holds the token secret under /backend.
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer, type Logger } from 'vite';
import { type BackendOptions, intentBackend } from './backend.js';

const exampleDir = fileURLToPath(new URL('.', import.meta.url));

export interface ExampleServer {
  url: string;
  close(): Promise<void>;
}

/** `logger` takes what Vite would print: a test that expects errors asserts them there. */
export async function startExampleServer(
  options: BackendOptions & { port?: number; logger?: Logger },
): Promise<ExampleServer> {
  const backend = intentBackend(options);
  const server = await createServer({
    configFile: false,
    root: exampleDir,
    logLevel: 'warn',
    ...(options.logger ? { customLogger: options.logger } : {}),
    clearScreen: false,
    cacheDir: fileURLToPath(new URL('../node_modules/.vite-example', import.meta.url)),
    resolve: {
      conditions: ['@exchange-kit/source', 'module', 'browser', 'development|production'],
      alias: {
        '@exchange-kit/react-hooks': fileURLToPath(new URL('../src/index.ts', import.meta.url)),
      },
    },
    define: { __PUBLIC_API_KEY__: JSON.stringify(options.publicApiKey) },
    optimizeDeps: {
      // Known up front, so the first page load does not stop to optimise and reload.
      include: ['react', 'react/jsx-dev-runtime', 'react-dom/client', '@tanstack/react-query'],
    },
    server: {
      host: '127.0.0.1',
      port: options.port ?? 0,
      proxy: { '/api': { target: options.partnersUrl } },
    },
    plugins: [
      {
        name: 'example-backend',
        configureServer(dev) {
          dev.middlewares.use((request, response, next) => {
            void backend(request, response, next);
          });
        },
      },
    ],
  });
  await server.listen();
  const address = server.httpServer?.address() as AddressInfo | null | undefined;
  if (!address) throw new Error('The example server is not listening');
  const { port } = address;
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}
