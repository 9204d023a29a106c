/**
 * The README's TypeScript samples, run as written against the real sandbox. Each block runs as
 * a module of its own; what it uses without defining it (the reader's `publicApiKey`, the
 * `partner` of the first block, an `order`) is given to it, and the package's own name is this
 * package's sources. The one URL a sample writes is the sandbox's default, for which the URL
 * a test sandbox on another port prints stands in.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as partnerClient from './index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const samples = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
const sources = fileURLToPath(new URL('./index.ts', import.meta.url));
const defaultUrl = "'http://127.0.0.1:4000'";

let sandbox: SandboxProcess;
let folder: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  folder = await mkdtemp(join(tmpdir(), 'partner-client-readme-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** The partner URL the sandbox printed when it started, as a reader copies it. */
function printedPartnerUrl(): string {
  const url = /^partner API: +(\S+)/m.exec(sandbox.banner ?? '')?.[1];
  if (!url) throw new Error(`no partner URL in the banner:\n${sandbox.banner}`);
  return url;
}

/** What a reader has in scope before a block: their credentials, the first block's client. */
function readerScope(): Record<string, unknown> {
  const { publicApiKey, tokenId, tokenSecret } = sandbox;
  const partnersUrl = printedPartnerUrl();
  return {
    partnersUrl,
    publicApiKey,
    tokenId,
    tokenSecret,
    partner: partnerClient.createPartnerClient({ partnersUrl, publicApiKey }),
    order: { symbol: 'BTC/USDC', currency: 'BTC', side: 'buy', quantity: '0.01' },
    signal: AbortSignal.timeout(10_000),
  };
}

/**
 * Runs `sample` as a module and hands back what it declared at its top level. Names it uses
 * but neither imports nor declares come from the reader's scope or the package's exports.
 */
async function runSample(index: number, sample: string): Promise<Record<string, unknown>> {
  const imported = [...sample.matchAll(/^import \{([^}]*)\}/gm)].flatMap((match) =>
    (match[1] ?? '').split(',').map((name) => name.trim()),
  );
  const defined = [...sample.matchAll(/^(?:const|let)\s+(\w+)/gm)].map((match) => match[1] ?? '');
  const declared = new Set([...imported, ...defined]);
  const uses = (name: string) => !declared.has(name) && new RegExp(`\\b${name}\\b`).test(sample);
  const scope = Object.keys(readerScope()).filter(uses);
  const exports = Object.keys(partnerClient).filter(uses);
  const source = [
    `const { ${scope.join(', ')} } = globalThis.readerScope;`,
    `import { ${exports.join(', ')} } from ${JSON.stringify(sources)};`,
    sample
      .replaceAll("from '@exchange-kit/partner-client'", `from ${JSON.stringify(sources)}`)
      .replaceAll(defaultUrl, 'globalThis.readerScope.partnersUrl'),
    `export default { ${defined.join(', ')} };`,
  ].join('\n');
  const file = join(folder, `sample-${index}.ts`);
  await writeFile(file, source);
  (globalThis as { readerScope?: unknown }).readerScope = readerScope();
  return ((await import(file)) as { default: Record<string, unknown> }).default;
}

describe('the README samples, against the sandbox', () => {
  it('are three, the first writing the sandbox URL a reader starts', () => {
    expect(samples).toHaveLength(3);
    expect(samples[0]).toContain(`partnersUrl: ${defaultUrl}`);
  });

  it('the first: a session and a transaction, its funding method set', async () => {
    const { tx } = (await runSample(0, samples[0] ?? '')) as { tx: partnerClient.Transaction };
    // The method was set only if the transaction asked for one: it did, and still asks for
    // the payout's.
    expect(tx.status).toBe('SETTLEMENT_METHOD_REQUIRED');
    const after = await partnerClient
      .createPartnerClient({ partnersUrl: sandbox.partnerUrl, publicApiKey: sandbox.publicApiKey })
      .transactions.status(tx.transaction_id);
    expect(after.funding_settlement?.method).toBe('BLOCKCHAIN_TRANSFER');
  });

  it('the second: an intent created and the transactions listed, with the token', async () => {
    const { intent } = (await runSample(1, samples[1] ?? '')) as { intent: partnerClient.Intent };
    expect(intent.strategy).toBe('ONE_TO_ONE_ATTEMPTED');
  });

  it('the third: a transaction created and read through the session client', async () => {
    const { user, tx } = (await runSample(2, samples[2] ?? '')) as {
      user: { sessionId: string };
      tx: partnerClient.Transaction;
    };
    expect(user.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(tx.status).toBe('SETTLEMENT_METHOD_REQUIRED');
  });
});
