import type { Serialized } from '../http/reply-cache.js';
import { html, page } from './html.js';

/** The sandbox's `/`: where its docs, specs and health are, for a person who opens the URL. */
export function indexPage(options: { docsUrl?: string }): Serialized {
  return page(
    200,
    'exchange-kit sandbox',
    html`<h1>exchange-kit sandbox</h1>
<p>The reference server of the exchange interface (paths at the root) and the Quick Exchange partner interface (under <code>/api/v1</code>).</p>
<ul>
<li><a href="/console">Console</a>: a product's book and fills, a demo user's orders, positions, balances and ledger, the partner's transactions, live</li>
${options.docsUrl ? html`<li><a href="${options.docsUrl}">Documentation</a></li>` : ''}
<li><a href="/openapi/exchange.json">Exchange interface spec</a> (OpenAPI, JSON)</li>
<li><a href="/openapi/partner.json">Partner interface spec</a> (OpenAPI, JSON)</li>
<li><a href="/health">Health</a></li>
</ul>
<p>An OAuth request's <code>app_challenge_href</code> opens a page here where a sandbox user approves or denies it.</p>`,
  );
}
