import type { Serialized } from '../http/reply-cache.js';

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML content and for quoted attribute values alike. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (char) => entities[char] ?? char);
}

/**
 * A template tag that escapes every interpolated value, except the output of `html` itself,
 * so no page can forget to escape one.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = string | number | Html | undefined | null | false | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part as string | number);
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

const style = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.5rem; }
label { display: block; margin: 0.75rem 0 0.25rem; }
input { font: inherit; width: 100%; box-sizing: border-box; padding: 0.3rem 0.5rem; }
button { font: inherit; margin: 1rem 0.5rem 0 0; padding: 0.35rem 1rem; }
.error { color: #b42318; }
code { background: #f0f1f3; padding: 0 0.25rem; border-radius: 3px; }
table { border-collapse: collapse; margin: 1rem 0; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; }
th, td { padding: 0.1rem 0.75rem 0.1rem 0; text-align: right; }
.columns { display: flex; gap: 2rem; flex-wrap: wrap; }
body:has(main.console) { max-width: 64rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
td button { margin: 0 0.25rem 0 0; padding: 0 0.5rem; }
main.console input { width: 12rem; }
main.console label { display: inline; margin-right: 0.5rem; }
main.console p button { margin-top: 0; }
`;

/**
 * A whole page, without the interfaces' CORS headers: another origin must not read a page, or
 * the form token in it. Nothing on it loads from elsewhere or sits in a frame, and it runs no
 * script unless `scripts` allows the sandbox's own files (and connections back to it).
 */
export function page(
  status: number,
  title: string,
  body: Html,
  { scripts = false }: { scripts?: boolean } = {},
): Serialized {
  const bytes = Buffer.from(
    html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new Html(style)}</style>
</head>
<body>
${body}
</body>
</html>
`.text,
  );
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-length': bytes.length,
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'${scripts ? "; script-src 'self'; connect-src 'self'" : ''}`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
    bytes,
  };
}
