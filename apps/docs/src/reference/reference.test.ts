import { catalog, requirementDocsUrl } from '@exchange-kit/conformance';
import { channels } from '@exchange-kit/contract/events';
import { stateTables } from '@exchange-kit/contract/state-tables';
import { describe, expect, it } from 'vitest';
import { authSamples } from './auth-samples.js';
import { operationCalls } from './calls.js';
import { renderConformance } from './conformance.js';
import { renderEvents } from './events.js';
import {
  apis,
  cell,
  operations,
  parametersOf,
  renderAuthentication,
  renderOperation,
  renderSchemas,
} from './openapi.js';
import { generatedPages } from './pages.js';
import { renderStateTables } from './state-tables.js';

describe('API reference', () => {
  const pages = generatedPages();

  it('has a page per operation of both specs', () => {
    expect(operations().length).toBeGreaterThan(20);
    for (const op of operations()) {
      const page = pages[`reference/${op.api}/${op.operationId}.md`];
      expect(page, op.operationId).toContain(`# ${op.method} `);
      expect(page).toContain(`x-source: ${op.source}`);
      for (const status of Object.keys(op.raw.responses as object)) {
        expect(page).toContain(`### ${status}`);
      }
    }
  });

  it('shows fields, types, enum values, examples and coverage of cancel_all', () => {
    const op = operations().find((o) => o.operationId === 'cancelAllOrders');
    if (!op) throw new Error('no cancelAllOrders');
    const page = renderOperation(op, [{ id: 'X-1', level: 'MUST', summary: 's' }]);
    expect(page).toContain('| `trading_type` |');
    expect(page).toContain('`spot`, `margin`, `cfd`, `perpetual`');
    expect(page).toContain('"client_order_id": "my-order-1"');
    expect(page).toContain('[X-1](/reference/conformance#x-1)');
  });

  it('names a method that reads every page on the page of each paged list', () => {
    const calls = operationCalls();
    const paged = operations().filter((op) =>
      parametersOf(op).some((p) => p.in === 'query' && p.name === 'page'),
    );
    expect(paged.map((op) => op.operationId)).toContain('listOwnExecutions');
    for (const op of paged) {
      const methods = calls.get(op.operationId)?.clients.map((client) => client.method) ?? [];
      expect([op.operationId, methods.some((m) => /\.iterate\w*$/.test(m))]).toEqual([
        op.operationId,
        true,
      ]);
    }
  });

  it('describes every field of every error response', () => {
    for (const op of operations()) {
      const page = pages[`reference/${op.api}/${op.operationId}.md`] as string;
      const errors = page
        .split(/^### /m)
        .filter((section) => Number(section.slice(0, 3)) >= 400)
        .join('\n');
      expect(errors, op.operationId).toMatch(/^\| `/m);
      const undescribed = errors.split('\n').filter((line) => /^\| `.*\|\s*\|$/.test(line));
      expect(undescribed, op.operationId).toEqual([]);
    }
  });

  it("says a named schema's description once per field table, not on each field using it", () => {
    const decimal = cell(
      ((apis.exchange.spec.components as Record<string, Record<string, { description: string }>>)
        .schemas?.DecimalLike?.description as string) ?? '',
    );
    expect(decimal).toMatch(/decimal string/);
    const page = pages['reference/exchange/cancelOrder.md'] as string;
    const order = page.split('### 200')[1]?.split('**Example**')[0] ?? '';
    expect(order.split(decimal)).toHaveLength(2);
    expect(order).toContain(
      '- `quantity`, `disc_quantity`, `iceberg_total_quantity`, `filled_quantity`, `price`, `average_price`, `order_fee`: [DecimalLike]',
    );
    for (const [name, schema] of Object.entries(
      (apis.exchange.spec.components as { schemas: Record<string, { description?: string }> })
        .schemas,
    )) {
      if (!schema.description || name === 'Order') continue;
      for (const [path, text] of Object.entries(pages)) {
        for (const table of text.split(/\n\n(?=\| Field )/).slice(1)) {
          const block = table.split(/\n\n(?!- )/)[0] ?? '';
          expect(block.split(cell(schema.description)).length, `${name} in ${path}`).toBeLessThan(
            3,
          );
        }
      }
    }
  });

  it('names the client method and the hooks that make each call, as the packages make them', () => {
    const calls = operationCalls();
    for (const op of operations()) {
      const page = pages[`reference/${op.api}/${op.operationId}.md`] as string;
      const made = calls.get(op.operationId);
      expect(made?.clients.length, op.operationId).toBeGreaterThan(0);
      for (const client of made?.clients ?? []) {
        expect(page).toContain(`Client method: \`${client.call}\` (\`${client.packageName}\`)`);
      }
    }
    const page = (id: string) =>
      pages[`reference/${operations().find((o) => o.operationId === id)?.api}/${id}.md`];
    expect(page('cancelOrderByClientId')).toContain('`client.orders.cancel(ref, options)`');
    expect(page('getUserContext')).toContain('`client.forUser(request).context(options)`');
    expect(page('createSession')).toMatch(
      /React hooks: [^\n]*`useRenewSession`[^\n]*`useUserSession`/,
    );
    expect(page('getTransactionStatus')).toContain(
      '`client.transactions.status(transactionId, options)`',
    );
    // Through the package's own functions too: the query option factory, the hook it serves.
    expect(page('getTransactionStatus')).toMatch(
      /React hooks: [^\n]*`useTransaction`, `useTransactionQuery`/,
    );
    expect(page('createIntent')).toContain('React hook: none makes this call.');
  });

  it('documents the four JWT payloads, with one signed by core/auth for each', async () => {
    const samples = await authSamples();
    expect(Object.keys(samples)).toHaveLength(4);
    expect(samples.PartnerDelegatedPayload?.payload).toMatchObject({
      path: '/realtime',
      delegate_path: '/api/v1/partner/pk_sandbox_demo/intent',
    });
    const page = renderAuthentication(samples);
    expect(page).toContain('"alg": "HS256"');
    for (const name of [
      'ServiceAuthPayload',
      'OAuthDelegatedPayload',
      'PartnerDelegatedPayload',
      'SessionAuthPayload',
    ]) {
      expect(page).toContain(`### ${name} {#${name.toLowerCase()}}`);
    }
    expect(page).toContain('| `delegate_path` |');
  });
});

describe('events page', () => {
  const page = renderEvents();
  const schemas = renderSchemas('exchange');

  it('has a line per channel with its address, and links its payload to a schema that exists', () => {
    for (const [name, channel] of Object.entries(channels)) {
      const line = page.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      expect(line, name).toContain(`\`${channel.address}\``);
      const [, anchor] = /\/reference\/exchange\/schemas#([a-z0-9-]+)/.exec(line ?? '') ?? [];
      expect(anchor, name).toBe(channel.payload.replace(/\[\]$/, '').toLowerCase());
      expect(schemas, name).toContain(`{#${anchor}}`);
    }
  });

  it('says which channels carry their whole state in each event', () => {
    for (const [name, channel] of Object.entries(channels)) {
      const line = page.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      expect(line?.includes('its whole state'), name).toBe(channel.carriesState);
    }
  });
});

describe('state-tables page', () => {
  const page = renderStateTables();
  const conformance = renderConformance();

  it('has a section per table and a line per requirement under its own table', () => {
    const sections = page.split(/^## /m).slice(1);
    expect(sections.map((s) => s.split('\n')[0])).toEqual(
      Object.values(stateTables.tables).map((t) => t.title),
    );
    for (const requirement of stateTables.requirements) {
      const title = stateTables.tables[requirement.table as keyof typeof stateTables.tables].title;
      const section = sections.find((s) => s.startsWith(`${title}\n`));
      expect(section).toContain(
        `| [${requirement.id}](/reference/conformance#${requirement.id.toLowerCase()}) | ${requirement.level} |`,
      );
    }
  });

  it('links every row to a conformance anchor that exists', () => {
    for (const [, anchor] of page.matchAll(/\/reference\/conformance#([a-z0-9-]+)/g)) {
      expect(conformance).toContain(`<a id="${anchor}"></a>`);
    }
  });

  it('escapes pipes so a condition cannot break the table', () => {
    for (const line of page.split('\n').filter((l) => l.startsWith('| ') && !l.includes('---'))) {
      expect(line.split(/(?<!\\)\|/)).toHaveLength(11);
    }
  });
});

describe('conformance page', () => {
  it('has the row every requirement of an HTML report links to', () => {
    const pages = generatedPages();
    for (const requirement of catalog) {
      const link = new URL(requirementDocsUrl(requirement.id, 'https://docs.example/'));
      const page = pages[link.pathname.slice(1).replace(/\.html$/, '.md')];
      expect(page, link.pathname).toBeDefined();
      expect(page).toContain(`<a id="${link.hash.slice(1)}"></a>\`${requirement.id}\``);
    }
  });

  it('quotes the sentence each statement about values covers', () => {
    const page = renderConformance();
    const values = catalog.filter((r) => r.kind === 'value');
    expect(values.length).toBeGreaterThan(0);
    for (const requirement of values) {
      const line = page
        .split('\n')
        .find((l) => l.includes(`<a id="${requirement.id.toLowerCase()}">`));
      expect(line).toContain(cell(requirement.sentence ?? 'no sentence'));
    }
  });
});
