import type { FastifyReply } from 'fastify';

/**
 * The headers of every HTML page the service serves (`/`, `/docs`, the
 * "not built" page) and their scripts. One definition, so no page is left
 * without them:
 *
 * - the page may talk to its own origin only: scripts and styles from the
 *   service (no inline script: `/docs` loads its script from `/docs.js`),
 *   requests to the service, images from data: and blob: URLs (the
 *   downloadable document), nothing framed, nothing sent elsewhere;
 * - it is never framed (`frame-ancestors 'none'`, and X-Frame-Options for
 *   browsers that only know that), never sniffed as another type, and sends
 *   no referrer.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

/** Sets the page headers on a reply (before it is sent). */
export function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers(PAGE_HEADERS);
}
