import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AppError } from '../errors.js';
import { sendError } from './error-handler.js';

/** dist/studio in the package root: this file runs from src/http (tsx) or dist/http (built). */
export const STUDIO_DIR = fileURLToPath(new URL('../../dist/studio/', import.meta.url));

// The Studio loads nothing from elsewhere (fonts and scripts are bundled); CodeMirror and uPlot
// add style elements, pages are blob: images, pdf.js runs its worker from this origin.
const securityHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Hashed build files never change under their name; the page itself is revalidated each time. */
function cacheControl(path: string): string {
  return /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

function sendIndex(reply: FastifyReply): FastifyReply {
  return reply.headers(securityHeaders).header('cache-control', 'no-cache').sendFile('index.html');
}

/**
 * The Studio at /studio: the built files of dist/studio, and index.html for every other address
 * below it (the Studio's own router reads them), so its addresses can be bookmarked. `GET /`
 * leads there.
 */
export async function studioRoutes(app: FastifyInstance, dir = STUDIO_DIR): Promise<void> {
  const hidden = { schema: { hide: true }, config: { auth: false } };
  app.get('/', hidden, async (_req, reply) => reply.redirect('/studio/', 302));

  if (!existsSync(`${dir}/index.html`)) {
    const notBuilt = new AppError('unavailable', 'the Studio is not built; run npm run build');
    app.get('/studio', hidden, async (req, reply) => sendError(req, reply, notBuilt));
    app.get('/studio/*', hidden, async (req, reply) => sendError(req, reply, notBuilt));
    return;
  }

  await app.register(
    async (studio) => {
      await studio.register(fastifyStatic, {
        root: dir,
        prefix: '/',
        index: false,
        wildcard: true,
        cacheControl: false,
        setHeaders: (res, path) => {
          for (const [k, v] of Object.entries(securityHeaders)) res.setHeader(k, v);
          res.setHeader('cache-control', cacheControl(path));
        },
      });
      studio.get('/', hidden, async (_req, reply) => sendIndex(reply));
      // Addresses of the Studio's views get the page; a missing build file stays a 404.
      studio.setNotFoundHandler(async (req, reply) => {
        const path = req.url.split('?')[0] ?? '';
        if (req.method === 'GET' && !path.startsWith('/studio/assets/') && !/\.[a-z0-9]+$/i.test(path)) return sendIndex(reply);
        return sendError(req, reply, new AppError('not_found', `no resource at ${req.method} ${path}`));
      });
    },
    { prefix: '/studio' },
  );
}
