/** /links/{id}/rules routes. */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../../http/auth';
import { errors, IdParams } from '../../../http/models';
import type { RedirectDeps } from '../deps';
import { ruleGeo } from './geo';
import { RulesTestBody, RulesTestModel } from './model';
import { testLinkRules } from './test-rules';

export function rulesRoutes(deps: RedirectDeps) {
  const geo = ruleGeo(deps.config.geoDb, (err) => deps.log.error('link rules: the geo database cannot be opened', err));
  return new Elysia({ name: 'slink.rules', prefix: '/links/:id/rules' })
    .use(principalPlugin)
    .post('/test', ({ params, body, access }) => testLinkRules(deps, geo, access, params.id, body), {
      parse: 'json',
      params: IdParams,
      body: RulesTestBody,
      response: { 200: RulesTestModel, ...errors(400, 401, 404, 415, 429) },
      detail: {
        tags: ['Links'],
        summary: "Test a link's rules",
        description:
          "What the visit described would get from the bare short link at `at`, by the redirect's own checks in its order (paused, expired, click limit, fallback, password, preview, then the rules: docs, Link rules), and records nothing. Every field is optional: one left out is a visit without it (no User-Agent, no address, and so on). A read key may call it.",
      },
    });
}
