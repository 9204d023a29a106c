import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServer } from 'verdaccio';

export interface Registry {
  /** With a trailing slash, as npm writes registry URLs. */
  url: string;
  /** A token of a user allowed to publish `@exchange-kit/*`. */
  token: string;
  stop(): Promise<void>;
}

/**
 * A real npm registry (Verdaccio) on a loopback port (a free one by default), its storage in a
 * temp folder. It
 * holds `@exchange-kit/*` only and proxies nothing: consumers take every other package from
 * their usual registry through a scoped `.npmrc`, so nothing they install can come from a
 * stale copy of ours.
 */
export async function startRegistry(port = 0): Promise<Registry> {
  const storage = await mkdtemp(join(tmpdir(), 'exchange-kit-registry-'));
  const server: Server = await runServer({
    self_path: storage,
    storage,
    auth: { htpasswd: { file: join(storage, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: {
      '@exchange-kit/*': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
    },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
    web: { enable: false },
  } as never);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const created = await fetch(`${url}-/user/org.couchdb.user:release`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release', password: 'release-rehearsal' }),
  });
  if (created.status !== 201) throw new Error(`registry: adding a user answered ${created.status}`);
  const { token } = (await created.json()) as { token: string };
  return {
    url,
    token,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(storage, { recursive: true, force: true });
    },
  };
}
