import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import spec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import { launchChromium } from '@exchange-kit/test-support/chromium';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The browser build, bundled as an application would bundle it, run in a real Chromium
// against a server on the page's own origin.
const session =
  spec.paths['/api/v1/session'].post.responses['200'].content['application/json'].example;
const page = `<!doctype html><script type="module" src="/app.js"></script>`;
const app = `
import { createPartnerClient } from ${JSON.stringify(new URL('./browser.ts', import.meta.url).pathname)};
const client = createPartnerClient({ partnersUrl: location.origin, publicApiKey: 'pk_browser' });
client.sessions.create({ user_locale: navigator.language })
  .then((created) => { document.title = 'ok ' + created.session_id; })
  .catch((error) => { document.title = 'error ' + error.name + ': ' + error.message; });
`;

let out: string;
let server: Server;
let origin: string;
let browser: Browser;
const received: unknown[] = [];

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'partner-browser-'));
  await build({
    stdin: { contents: app, resolveDir: new URL('.', import.meta.url).pathname, loader: 'ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@exchange-kit/source', 'browser'],
    outdir: out,
    entryNames: 'app',
  });
  server = createServer(async (request, response) => {
    if (request.url === '/api/v1/session') {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.push(JSON.parse(body));
      const broken = request.headers.referer?.includes('broken');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          broken ? { ...session, payload: { ...session.payload, session_id: 42 } } : session,
        ),
      );
      return;
    }
    const file =
      request.url === '/' || request.url?.startsWith('/?') ? null : request.url?.slice(1);
    const text = file ? await readFile(join(out, file), 'utf8').catch(() => undefined) : page;
    response.writeHead(text === undefined ? 404 : 200, {
      'content-type': file ? 'text/javascript' : 'text/html',
    });
    response.end(text ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

async function titleAfterLoad(url: string): Promise<string> {
  const tab = await browser.newPage();
  await tab.goto(url);
  await tab.waitForFunction(() => /^(ok|error) /.test(document.title), undefined, {
    timeout: 10_000,
  });
  const title = await tab.title();
  await tab.close();
  return title;
}

describe('partner-client in Chromium', () => {
  it('opens a session from a browser bundle, with no secret sent', async () => {
    expect(await titleAfterLoad(`${origin}/`)).toBe(`ok ${session.payload.session_id}`);
    expect(received.at(-1)).toMatchObject({ public_api_key: 'pk_browser' });
  });

  it('loads the schemas on demand and reports an answer that breaks the spec', async () => {
    expect(await titleAfterLoad(`${origin}/?broken`)).toMatch(
      /^error ResponseValidationError: POST \/api\/v1\/session: response 200 does not match the spec \(\/payload\/session_id/,
    );
  });
});
