/** Domain schemas: validation, types and the OpenAPI document from one place. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { nullable } from '../../http/models';

/** The most JSON text a .well-known file may hold (as stored: compact JSON). */
export const MAX_WELL_KNOWN_BYTES = 64 * 1024;
/** A redirect target's length: a link destination's (links/destination.ts). */
export const MAX_URL_LENGTH = 2048;
/** An origin's length: a host name is at most 253 characters, with a scheme and a port. */
export const MAX_ORIGIN_LENGTH = 300;

// Record keys admit every character (the default key pattern does not match line breaks).
const ANY_KEY = t.String({ pattern: '^[\\s\\S]*$' });

const urlField = (field: string, description: string) =>
  nullable(t.String(), {
    description: `${description} An absolute http(s) URL, at most 2048 characters (the destination rules); null clears it.`,
    error: fieldError(field, `${field} must be an absolute http(s) URL or null`),
  });

const RootUrl = urlField('rootUrl', 'Where `GET /` on the domain sends visitors (302); else the usual answer.');
const NotFoundUrl = urlField(
  'notFoundUrl',
  'Where an unknown slug on the domain sends visitors (302) instead of the 404 page.',
);
const ExpiredUrl = urlField(
  'expiredUrl',
  'Where an expired or used-up link without its own fallbackUrl sends visitors (302) instead of the 410 page; no click is recorded.',
);
const Upstream = nullable(t.String(), {
  description:
    "An origin (http(s)://host[:port]) where the service this domain moved from still answers: a slug unknown here is asked there once and, when it redirects, becomes a link on this domain. Not one of this Slink's own hosts or domains, nor an internal address unless SLINK_UPSTREAM_ALLOW_PRIVATE=1; null clears it.",
  error: fieldError('upstream', 'upstream must be an http(s) origin or null'),
});
const AppleAppSiteAssociation = nullable(t.Record(ANY_KEY, t.Unknown()), {
  description: `Served as /.well-known/apple-app-site-association on the domain (200 application/json; 404 while null). A JSON object, at most ${MAX_WELL_KNOWN_BYTES / 1024} KB as compact JSON.`,
  error: fieldError('appleAppSiteAssociation', 'appleAppSiteAssociation must be a JSON object or null'),
});
const AssetLinks = nullable(t.Array(t.Unknown()), {
  description: `Served as /.well-known/assetlinks.json on the domain (200 application/json; 404 while null). A JSON array, at most ${MAX_WELL_KNOWN_BYTES / 1024} KB as compact JSON.`,
  error: fieldError('assetLinks', 'assetLinks must be a JSON array or null'),
});

export const DomainModel = t.Object(
  {
    host: t.String({
      description: 'The host name requests are routed by: lowercase, punycode for an internationalised name, no port.',
    }),
    origin: t.String({ description: 'What short URLs of its links start with: http(s)://host[:port].' }),
    default: t.Boolean({
      description: 'The domain SLINK_SHORT_HOST names: links that name no domain go to it; it cannot be deleted.',
    }),
    rootUrl: RootUrl,
    notFoundUrl: NotFoundUrl,
    expiredUrl: ExpiredUrl,
    upstream: Upstream,
    appleAppSiteAssociation: AppleAppSiteAssociation,
    assetLinks: AssetLinks,
    linkCount: Type.Integer({ description: 'Links on the domain, archived ones included.' }),
    lastSeenAt: nullable(Type.Integer(), {
      description:
        'Epoch ms when a request last arrived for the domain (kept to the minute); null: none yet, so its DNS or proxy does not reach this service.',
    }),
    createdAt: Type.Integer(),
  },
  { title: 'Domain' },
);
export type Domain = typeof DomainModel.static;

export const DomainListModel = t.Object({ domains: t.Array(DomainModel) });

export const DomainCreateBody = t.Object({
  origin: t.String({
    maxLength: MAX_ORIGIN_LENGTH,
    description:
      "http(s)://host[:port], nothing after it (a trailing slash is dropped). The host is stored lowercase, punycode for an internationalised name; it must be a new one and not SLINK_APP_HOST's (when that differs from SLINK_SHORT_HOST).",
    error: fieldError('origin', 'origin must be an http(s) origin such as https://go.example.com'),
  }),
  rootUrl: t.Optional(RootUrl),
  notFoundUrl: t.Optional(NotFoundUrl),
  expiredUrl: t.Optional(ExpiredUrl),
});
export type DomainCreate = typeof DomainCreateBody.static;

export const DomainPatchBody = t.Object({
  rootUrl: t.Optional(RootUrl),
  notFoundUrl: t.Optional(NotFoundUrl),
  expiredUrl: t.Optional(ExpiredUrl),
  upstream: t.Optional(Upstream),
  appleAppSiteAssociation: t.Optional(AppleAppSiteAssociation),
  assetLinks: t.Optional(AssetLinks),
});
export type DomainPatch = typeof DomainPatchBody.static;

export const HostParams = t.Object({
  host: t.String({ description: 'The domain host name (any case; an internationalised name as is or in punycode).' }),
});

export const DomainDeletedModel = t.Object({ host: t.String(), deleted: t.Literal(true) });

export const TlsAskQuery = t.Object({
  domain: t.Optional(
    t.String({
      description: 'The host name a certificate is asked for (a port is ignored).',
      error: fieldError('domain', 'domain must be a host name'),
    }),
  ),
});

export const TlsAskModel = t.Object({ host: t.String({ description: 'The domain, as stored.' }) });
