import type { Serialized } from '../http/reply-cache.js';
import { consoleScript } from './console-script.js';
import { html, page } from './html.js';

/**
 * The sandbox console, `/console`: a product's book and fills, live from the public channels.
 * Same-origin only: the page runs its one script from `/console.js` and opens no other origin.
 */
export function consolePage(): Serialized {
  return page(
    200,
    'exchange-kit sandbox console',
    html`<h1>Sandbox console</h1>
<p><label for="product">Product</label><select id="product"></select>
Events: <output id="connection" aria-live="polite">starting</output></p>
<div class="columns">
<table aria-label="Bids"><caption>Bids</caption><thead><tr><th>price</th><th>quantity</th></tr></thead><tbody id="buy-levels"></tbody></table>
<table aria-label="Asks"><caption>Asks</caption><thead><tr><th>price</th><th>quantity</th></tr></thead><tbody id="sell-levels"></tbody></table>
</div>
<table aria-label="Fills"><caption>Fills, newest first</caption><thead><tr><th>id</th><th>taker</th><th>price</th><th>quantity</th><th>time (UTC)</th></tr></thead><tbody id="fills"></tbody></table>
<script src="/console.js"></script>`,
    { scripts: true },
  );
}

/** The console's script, as a same-origin file the page's policy allows. */
export function consoleScriptFile(): Serialized {
  const bytes = Buffer.from(consoleScript);
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
