/**
 * GET /metrics on the app host (docs/operations.md, "Metrics"): Prometheus text format for
 * `Authorization: Bearer <SLINK_METRICS_TOKEN>`. Without the token configured the route does not
 * exist (404 like any unknown path); a missing or wrong token is 401.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Elysia } from 'elysia';
import { AppError } from '../../lib/errors';
import type { MetricsDeps } from './deps';

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsRoutes(deps: MetricsDeps) {
  const { metrics } = deps;
  const token = deps.config.metricsToken;
  if (metrics === null || token === null) return new Elysia({ name: 'slink.metrics' });
  // Compared as digests in constant time: neither the token's length nor its bytes leak.
  const expected = digest(token);
  return new Elysia({ name: 'slink.metrics' }).get(
    '/metrics',
    async ({ request }) => {
      const match = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '');
      if (!match) throw new AppError('key_missing', 'Send the metrics token as Authorization: Bearer <token>');
      if (!timingSafeEqual(digest(match[1]!), expected)) throw new AppError('key_unknown', 'Wrong metrics token');
      return new Response(await metrics.registry.metrics(), {
        headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
      });
    },
    { detail: { hide: true } },
  );
}
