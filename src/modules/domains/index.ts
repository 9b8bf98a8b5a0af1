/** /domains routes, and /tls/ask (Caddy's on-demand TLS question, on the app host, no key). */
import { Elysia } from 'elysia';
import { principalPlugin } from '../../http/auth';
import { errors } from '../../http/models';
import type { DomainsDeps } from './deps';
import {
  DomainCreateBody,
  DomainDeletedModel,
  DomainListModel,
  DomainModel,
  DomainPatchBody,
  HostParams,
  TlsAskModel,
  TlsAskQuery,
} from './model';
import { addDomain, deleteDomain, getDomain, listDomains, tlsAsk, updateDomain } from './service';

const tags = ['Domains'];
const SUPERUSERS = 'A superuser key or session only (else 403 superuser_required).';

export function domainsRoutes(deps: DomainsDeps) {
  return new Elysia({ name: 'slink.domains', prefix: '/domains' })
    .use(principalPlugin)
    .get('', ({ access }) => listDomains(deps, access), {
      response: { 200: DomainListModel, ...errors(401, 429) },
      detail: {
        tags,
        summary: 'List domains',
        description:
          'Oldest first; the default domain is among them. A key limited to domains lists those only; a caller limited to projects or domains counts the links it sees.',
      },
    })
    .post(
      '',
      ({ body, set, access }) => {
        set.status = 201;
        return addDomain(deps, access, body);
      },
      {
        parse: 'json',
        body: DomainCreateBody,
        response: { 201: DomainModel, ...errors(400, 401, 403, 409, 429) },
        detail: {
          tags,
          summary: 'Add a domain',
          description: `${SUPERUSERS} 409 conflict (field origin) when a domain of that host exists.`,
        },
      },
    )
    .get('/:host', ({ params, access }) => getDomain(deps, access, params.host), {
      params: HostParams,
      response: { 200: DomainModel, ...errors(401, 404, 429) },
      detail: {
        tags,
        summary: 'Get a domain',
        description: 'A domain outside a key’s domains is 404, as one that does not exist.',
      },
    })
    .patch('/:host', ({ params, body, access }) => updateDomain(deps, access, params.host, body), {
      parse: 'json',
      params: HostParams,
      body: DomainPatchBody,
      response: { 200: DomainModel, ...errors(400, 401, 403, 404, 429) },
      detail: {
        tags,
        summary: 'Change a domain',
        description: `${SUPERUSERS} Only the fields sent change; null clears one. The origin cannot change.`,
      },
    })
    .delete('/:host', ({ params, access }) => deleteDomain(deps, access, params.host), {
      params: HostParams,
      response: { 200: DomainDeletedModel, ...errors(401, 403, 404, 409, 429) },
      detail: {
        tags,
        summary: 'Delete a domain',
        description: `${SUPERUSERS} 409 conflict while a link is on it, and for the default domain.`,
      },
    });
}

/** GET /tls/ask?domain=<host>: 200 for one of the domains, 404 otherwise; from memory. */
export function tlsAskRoutes(deps: Pick<DomainsDeps, 'domains'>) {
  return new Elysia({ name: 'slink.tls-ask' }).get('/tls/ask', ({ query }) => tlsAsk(deps, query.domain), {
    query: TlsAskQuery,
    response: { 200: TlsAskModel, ...errors(400, 404) },
    detail: {
      // Outside the API (no key, on the app host): docs/behaviour.md describes it.
      hide: true,
      tags,
      summary: 'May a certificate be issued for this host?',
      description:
        "For Caddy's on_demand_tls ask: 200 when the host (any case, Unicode or punycode, a port ignored) is one of the domains, else 404. No key; answered from memory.",
    },
  });
}
