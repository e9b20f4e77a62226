import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './reply';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
/** Request headers a browser app sends beyond the safelisted ones (apollo-require-preflight: Apollo's CSRF check). */
const ALLOWED_HEADERS = 'authorization, content-type, apollo-require-preflight, x-apollo-operation-name';
/** Response headers beyond the safelisted ones that a browser app may read. */
const EXPOSED_HEADERS = 'retry-after';
/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';

/**
 * Cross-origin access for browser apps (CORS_ORIGINS): a listed origin, or any with `*`, may call every route; others
 * get no Access-Control-* headers, so the browser withholds the response. Credentials (cookies, TLS client
 * certificates) are allowed only to listed origins, never with `*`. No origins: no cross-origin access.
 */
export class Cors {
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.anyOrigin = origins.includes('*');
    this.origins = new Set(origins);
  }

  /**
   * Sets the CORS headers of the response to `req`, and answers it when it is a preflight (204 when its origin is
   * allowed, else 403 CORS_ORIGIN_NOT_ALLOWED). Returns true when the request has been answered.
   */
  apply(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && (this.anyOrigin || this.origins.has(origin));
    // Only a listed origin's answer depends on Origin; caches must not hand one origin's answer to another.
    if (this.origins.size > 0 && !this.anyOrigin) res.setHeader('vary', 'Origin');
    if (allowed) {
      res.setHeader('access-control-allow-origin', this.anyOrigin ? '*' : origin);
      if (!this.anyOrigin) res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    }
    const preflight =
      req.method === 'OPTIONS' && origin !== undefined && !!req.headers['access-control-request-method'];
    if (!preflight) return false;
    if (!allowed) {
      sendJson(res, 403, {
        errors: [
          {
            message: `Origin ${origin} is not allowed to call this API from a browser: list it in CORS_ORIGINS.`,
            extensions: { code: 'CORS_ORIGIN_NOT_ALLOWED' },
          },
        ],
      });
      return true;
    }
    res.writeHead(204, {
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
      'content-length': '0',
    });
    res.end();
    return true;
  }
}
