// The builder console (issue 20): `GET /console`, a single page that uses only the public
// management API. No build step: the pages are plain ES modules in `assets/`, rendered with
// Preact and htm (tagged templates, so no JSX compiler), both served from our own
// node_modules; nothing is fetched from elsewhere, and the CSP says so.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

export interface ConsoleOptions {
  /** Where the management API answers (`APPBUILDER_BASE_PATH`, `APPBUILDER_PROJECTS_PATH`). */
  basePath: string;
  projectsPath: string;
  /** Where the generated apps answer (`APPBUILDER_APPS_PATH`). */
  appsPath: string;
}

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), 'assets');

/** The browser modules of our dependencies, by the name the pages import them under. */
// Their ES module builds sit beside the CommonJS builds that `require.resolve` finds (the
// `import` condition of their exports; vitest has no `import.meta.resolve`).
const require = createRequire(import.meta.url);
const besideMain = (specifier: string, file: string) => join(dirname(require.resolve(specifier)), file);
const VENDOR: Record<string, string> = {
  'preact.js': besideMain('preact', 'preact.mjs'),
  'hooks.js': besideMain('preact/hooks', 'hooks.mjs'),
  'htm.js': besideMain('htm', 'htm.mjs'),
};

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

function page(options: ConsoleOptions, prefix: string): { html: string; csp: string } {
  const importMap = JSON.stringify({
    imports: { preact: `${prefix}/vendor/preact.js`, 'preact/hooks': `${prefix}/vendor/hooks.js`, htm: `${prefix}/vendor/htm.js` },
  });
  // An inline import map is a script to the CSP: allowed by its hash, nothing else inline.
  const hash = createHash('sha256').update(importMap).digest('base64');
  const config = JSON.stringify(options).replace(/</g, '\\u003c');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>appbuilder console</title>
<link rel="stylesheet" href="${prefix}/assets/styles.css">
<script type="importmap">${importMap}</script>
<script type="module" src="${prefix}/assets/main.js"></script>
</head>
<body>
<div id="console" data-config='${config.replace(/'/g, '&#39;')}'><p class="boot">Loading the console…</p></div>
<noscript>The console needs JavaScript; the management API works without it.</noscript>
</body>
</html>
`;
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return { html, csp };
}

async function sendFile(reply: FastifyReply, path: string, type: string): Promise<FastifyReply> {
  const body = await readFile(path);
  return reply.header('content-type', type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(body);
}

/** Registers `GET /console` (and `/console/…` for deep links, `GET /` redirecting to it), its assets and the vendored modules. */
export function consolePlugin(options: ConsoleOptions, prefix = '/console') {
  return async (app: FastifyInstance): Promise<void> => {
    const { html, csp } = page(options, prefix);
    const index = async (_request: unknown, reply: FastifyReply) =>
      reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', csp).header('cache-control', 'no-cache').header('x-frame-options', 'DENY').send(html);
    app.get(prefix, { schema: { hide: true } }, index);
    // The service's root is the console: a person opening the printed address lands there.
    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(prefix, 302));
    app.get(`${prefix}/`, { schema: { hide: true } }, index);
    app.get<{ Params: { file: string } }>(`${prefix}/vendor/:file`, { schema: { hide: true } }, async (request, reply) => {
      const path = VENDOR[request.params.file];
      if (!path) return reply.code(404).send();
      return sendFile(reply, path, TYPES['.js']);
    });
    app.get<{ Params: { '*': string } }>(`${prefix}/assets/*`, { schema: { hide: true } }, async (request, reply) => {
      const relative = normalize(request.params['*']);
      const type = TYPES[relative.slice(relative.lastIndexOf('.'))];
      // Only our own files: no `..`, no hidden files, known types.
      if (!type || relative.startsWith('..') || relative.split(/[\\/]/).some((part) => part.startsWith('.'))) return reply.code(404).send();
      try {
        return await sendFile(reply, join(ASSETS, relative), type);
      } catch {
        return reply.code(404).send();
      }
    });
  };
}
