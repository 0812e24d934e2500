/**
 * The two pages of the API reference site (README "Documentation"; api/routes/docs-site.ts serves them),
 * each a self-contained HTML document that loads nothing from outside the api:
 *
 * - {@link referencePage}, `GET /docs`: a shell that runs Redoc's standalone bundle (served by the api
 *   itself from the `redoc` npm package) on the api's own OpenAPI document.
 * - {@link asyncApiPage}, `GET /docs/asyncapi`: the WebSocket channels and their frames, rendered here
 *   from the AsyncAPI document the api builds (api/asyncapi.ts), one table per channel.
 *
 * Each page has its own Content-Security-Policy ({@link REFERENCE_CSP}, {@link asyncApiPageCsp}): scripts
 * only from this origin (none at all on the AsyncAPI page), no outside images, fonts or connections.
 */
import { createHash } from 'node:crypto';

/** Text made safe for HTML element content and double-quoted attribute values. */
function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/** The links shared by both pages (relative: they hold behind any proxy). */
const NAV = `<nav class="docs-nav"><strong>multivenue-platform API</strong>
<a href="/docs">REST reference</a>
<a href="/docs/asyncapi">WebSocket channels</a>
<a href="/api/v1/openapi.json">openapi.json</a>
<a href="/api/v1/asyncapi.json">asyncapi.json</a></nav>`;

const NAV_CSS = `.docs-nav{display:flex;gap:1.25rem;align-items:baseline;padding:.6rem 1.25rem;border-bottom:1px solid #ddd;font:14px/1.4 system-ui,sans-serif;background:#fafafa}
.docs-nav a{color:#1a56a8;text-decoration:none}.docs-nav a:hover{text-decoration:underline}`;

/**
 * The CSP of `GET /docs`. Redoc styles itself with styled-components (inserted `<style>` elements and
 * style attributes: `'unsafe-inline'` styles) and runs its search index in a Worker made from a `blob:`
 * URL; its script, the spec and everything else come from this origin. Its footer logo is an outside
 * image: `img-src` refuses it and Redoc drops the image.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The HTML of `GET /docs`: the shared navigation and a `<redoc>` element that the standalone bundle at
 * `bundleUrl` (a path of ours, e.g. `/docs/assets/redoc-2.5.4.standalone.js`) renders from `specUrl`
 * (`/api/v1/openapi.json`). No inline script: the bundle finds the element and its options by itself.
 */
export function referencePage(bundleUrl: string, specUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>multivenue-platform API reference</title>
<style>body{margin:0}${NAV_CSS}</style>
</head>
<body>
${NAV}
<redoc spec-url="${esc(specUrl)}" required-props-first="true" path-in-middle-panel="true" expand-responses="200,201"></redoc>
<script src="${esc(bundleUrl)}"></script>
</body>
</html>
`;
}

/** The parts of an AsyncAPI 3.0 document the channel page reads (what api/asyncapi.ts builds). */
export interface AsyncApiDoc {
  info: { title: string; version: string; description?: string };
  servers?: Record<string, { host: string; protocol: string }>;
  channels: Record<
    string,
    {
      address: string;
      description?: string;
      messages: Record<
        string,
        {
          name?: string;
          description?: string;
          payload?: { properties?: Record<string, { description?: string }> };
        }
      >;
    }
  >;
  operations?: Record<string, { action: 'send' | 'receive'; channel: { $ref: string }; messages: { $ref: string }[] }>;
}

/** Who sends each message of each channel: `send` operations are the client's, `receive` the server's. */
function directions(doc: AsyncApiDoc): Map<string, string> {
  const dir = new Map<string, string>();
  for (const op of Object.values(doc.operations ?? {}))
    for (const m of op.messages) dir.set(m.$ref, op.action === 'send' ? 'client → server' : 'server → client');
  return dir;
}

/** One channel's section: address, URL, description and the frame table. */
function channelSection(doc: AsyncApiDoc, key: string, wsBase: string | undefined, dir: Map<string, string>): string {
  const channel = doc.channels[key];
  const rows = Object.entries(channel.messages).map(([id, m]) => {
    const fields = Object.entries(m.payload?.properties ?? {})
      .filter(([name]) => name !== 'type')
      .map(([name, p]) => `<li><code>${esc(name)}</code>${p.description ? `: ${esc(p.description)}` : ''}</li>`)
      .join('');
    return `<tr id="${esc(key)}-${esc(id)}"><td><code>${esc(m.name ?? id)}</code></td>
<td>${esc(dir.get(`#/channels/${key}/messages/${id}`) ?? '')}</td>
<td>${esc(m.description ?? '')}</td>
<td>${fields ? `<ul>${fields}</ul>` : '<span class="none">none</span>'}</td></tr>`;
  });
  return `<section id="${esc(key)}">
<h2><code>${esc(channel.address)}</code></h2>
${wsBase ? `<p class="url"><code>${esc(wsBase + channel.address)}</code></p>` : ''}
<p>${esc(channel.description ?? '')}</p>
<table>
<thead><tr><th>Frame (<code>type</code>)</th><th>Direction</th><th>Summary</th><th>Payload fields</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

const ASYNCAPI_CSS = `body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#222}
${NAV_CSS}
main{max-width:72rem;padding:0 1.25rem 3rem}
h1{font-size:1.6rem}h2{margin-top:2.5rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ddd;padding:.35rem .55rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}td ul{margin:0;padding-left:1.1rem}
code{font-family:ui-monospace,monospace;font-size:.92em}
.url code,.none{color:#666}`;

/**
 * The CSP of `GET /docs/asyncapi`: no script at all, and only the page's own `<style>` element (by its hash).
 */
export function asyncApiPageCsp(): string {
  const hash = createHash('sha256').update(ASYNCAPI_CSS).digest('base64');
  return [
    "default-src 'none'",
    `style-src 'sha256-${hash}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The HTML of `GET /docs/asyncapi`: the document's title and description, a contents list, and per
 * channel its address, its `ws(s)://` URL (from the document's first server), its description and a
 * table of its messages: name (the frame's `type`), direction (from the `send`/`receive` operations),
 * summary, and payload fields with their descriptions. Every text is HTML-escaped.
 */
export function asyncApiPage(doc: AsyncApiDoc): string {
  const server = Object.values(doc.servers ?? {})[0];
  const wsBase = server ? `${server.protocol}://${server.host}` : undefined;
  const dir = directions(doc);
  const keys = Object.keys(doc.channels);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)}</title>
<style>${ASYNCAPI_CSS}</style>
</head>
<body>
${NAV}
<main>
<h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>
<p>${esc(doc.info.description ?? '')}</p>
<p>Every frame is a JSON object whose <code>type</code> is the frame name below.</p>
<ul>
${keys.map((k) => `<li><a href="#${esc(k)}"><code>${esc(doc.channels[k].address)}</code></a></li>`).join('\n')}
</ul>
${keys.map((k) => channelSection(doc, k, wsBase, dir)).join('\n')}
</main>
</body>
</html>
`;
}
