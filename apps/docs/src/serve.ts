/**
 * Serves the built site on 127.0.0.1, and when given a sandbox, proxies its partner interface
 * under /api/ so the live page calls its own origin, with /live-config.json telling it so.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const distDir = fileURLToPath(new URL('../dist/', import.meta.url));

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export interface DocsServerOptions {
  port?: number;
  host?: string;
  root?: string;
  /** A sandbox whose partner interface the live page uses, proxied under /api/. */
  sandboxUrl?: string;
  publicApiKey?: string;
}

export interface DocsServer {
  url: string;
  close(): Promise<void>;
}

async function file(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (info.isFile()) return path;
    if (info.isDirectory()) return file(join(path, 'index.html'));
  } catch {
    if (!path.endsWith('.html')) return file(`${path}.html`);
  }
  return undefined;
}

export async function startDocsServer(options: DocsServerOptions = {}): Promise<DocsServer> {
  const root = options.root ?? distDir;
  const sandbox = options.sandboxUrl ? new URL(options.sandboxUrl) : undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (sandbox && url.pathname.startsWith('/api/')) {
      const upstream = httpRequest(
        {
          hostname: sandbox.hostname,
          port: sandbox.port,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers: { ...req.headers, host: sandbox.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end('sandbox unreachable'));
      req.pipe(upstream);
      return;
    }
    if (url.pathname === '/live-config.json' && sandbox) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ partnersUrl: 'same-origin', publicApiKey: options.publicApiKey }));
      return;
    }
    void (async () => {
      const relative = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
      const found = await file(join(root, relative));
      const path = found ?? join(root, '404.html');
      res.writeHead(found ? 200 : 404, {
        'content-type': types[extname(path)] ?? 'application/octet-stream',
      });
      createReadStream(path).pipe(res);
    })();
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
