import type { Serialized } from '../http/reply-cache.js';
import { consoleCommonScript } from './console-common-script.js';
import { consolePartnerScript } from './console-partner-script.js';
import { consoleScript } from './console-script.js';
import { consoleUserScript } from './console-user-script.js';
import { html, page } from './html.js';

const userTable = (id: string, caption: string, columns: string[]) =>
  html`<table aria-label="${caption}"><caption>${caption}</caption><thead><tr>${columns.map((column) => html`<th>${column}</th>`)}<th></th></tr></thead><tbody id="${id}"></tbody></table>`;

/**
 * The sandbox console, `/console`: a product's book and fills from the public channels, a demo
 * user's views from the private ones, the partner's transactions, and the test-control buttons.
 * Same-origin only: the page runs its scripts from the sandbox and opens no other origin.
 */
export function consolePage(): Serialized {
  return page(
    200,
    'exchange-kit sandbox console',
    html`<main class="console">
<h1>Sandbox console</h1>
<p class="error" id="error" role="alert"></p>
<section id="market">
<h2>Market</h2>
<p><label for="product">Product</label><select id="product"></select>
Events: <output id="connection" aria-live="polite">starting</output></p>
<div class="columns">
<table aria-label="Bids"><caption>Bids</caption><thead><tr><th>price</th><th>quantity</th></tr></thead><tbody id="buy-levels"></tbody></table>
<table aria-label="Asks"><caption>Asks</caption><thead><tr><th>price</th><th>quantity</th></tr></thead><tbody id="sell-levels"></tbody></table>
</div>
<table aria-label="Fills"><caption>Fills, newest first</caption><thead><tr><th>id</th><th>taker</th><th>price</th><th>quantity</th><th>time (UTC)</th></tr></thead><tbody id="fills"></tbody></table>
</section>
<section id="user-views">
<h2>User</h2>
<p><label for="user">Demo user</label><select id="user"></select>
Events: <output id="user-connection" aria-live="polite">starting</output></p>
${userTable('orders', 'Orders, newest first', ['id', 'pair', 'side', 'type', 'price', 'quantity', 'filled', 'status'])}
<p class="test-control" hidden><label for="deposit-amount">Deposit amount</label><input id="deposit-amount" value="1" inputmode="decimal"></p>
${userTable('balances', 'Balances', ['currency', 'balance', 'reserved'])}
<p class="test-control" hidden><label for="mark-product">Mark price of</label><select id="mark-product"></select>
<input id="mark-price" aria-label="Mark price" inputmode="decimal"><button type="button" id="move-mark">move mark price</button></p>
${userTable('positions', 'Open positions', ['id', 'pair', 'side', 'quantity', 'open price', 'open P&L', 'P&L'])}
${userTable('ledger', 'Ledger, newest first', ['id', 'currency', 'type', 'amount', 'balance'])}
${userTable('withdrawals', 'Withdrawals', ['id', 'currency', 'amount', 'state'])}
</section>
<section id="partner">
<h2>Partner transactions</h2>
${userTable('transactions', 'Transactions of the demo partner, newest first', ['transaction', 'status', 'created (ms)'])}
</section>
</main>
<script src="/console-common.js"></script>
<script src="/console.js"></script>
<script src="/console-user.js"></script>
<script src="/console-partner.js"></script>`,
    { scripts: true },
  );
}

/** A script of the console, as a same-origin file the page's policy allows. */
function scriptFile(source: string): Serialized {
  const bytes = Buffer.from(source);
  return {
    status: 200,
    headers: {
      'content-type': 'text/javascript; charset=utf-8',
      'content-length': bytes.length,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
    bytes,
  };
}

/** The console's scripts by path, in the order the page runs them. */
export function consoleScriptFiles(): Map<string, Serialized> {
  return new Map([
    ['/console-common.js', scriptFile(consoleCommonScript)],
    ['/console.js', scriptFile(consoleScript)],
    ['/console-user.js', scriptFile(consoleUserScript)],
    ['/console-partner.js', scriptFile(consolePartnerScript)],
  ]);
}
