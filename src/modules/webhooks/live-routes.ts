/** /events: the live stream of events (live.ts). */
import { Elysia, t } from 'elysia';
import { type GuardDeps, principalPlugin, stillAuthenticated } from '../../http/auth';
import { fieldError } from '../../http/errors';
import { errors, oneOf } from '../../http/models';
import type { WebhookRoutesDeps } from './deps';
import { type OpenDeps, openLiveStream, resumeFrom, STREAMS_PER_ACCOUNT, STREAMS_PER_KEY } from './live';
import { STREAM_LIFETIME_MS } from './live-hub';

export function liveRoutes(deps: WebhookRoutesDeps & GuardDeps & OpenDeps) {
  return new Elysia({ name: 'slink.live', prefix: '/events' }).use(principalPlugin).get(
    '',
    ({ query, request, principal, access }) =>
      openLiveStream(deps, {
        access,
        holder: principal.key.id,
        account: principal.account.id,
        stillAllowed: () => stillAuthenticated(deps, request, principal, access),
        linkId: query.link ?? null,
        bots: query.bots === '1',
        after: resumeFrom(request.headers.get('last-event-id') ?? query.lastEventId),
      }),
    {
      query: t.Object({
        link: t.Optional(
          t.String({
            description: 'Only the events of this link.',
            error: fieldError('link', 'link must be a link id'),
          }),
        ),
        bots: t.Optional(
          oneOf(['0', '1'], {
            description: '0 (default): `clicks` events carry human clicks only. 1: bot hits too.',
            error: fieldError('bots', 'bots must be 0 or 1'),
          }),
        ),
        lastEventId: t.Optional(
          t.String({
            description: 'The same as the Last-Event-ID header, for clients that cannot send headers.',
            error: fieldError('lastEventId', 'lastEventId must be an event id'),
          }),
        ),
      }),
      response: { ...errors(400, 401, 404, 429) },
      detail: {
        tags: ['Webhooks'],
        summary: 'Live events (Server-Sent Events)',
        description: `text/event-stream of every event as it is recorded, the same types and bodies as webhook deliveries: link.created, link.updated, link.deleted, clicks (human clicks unless bots=1). A caller limited to projects or domains receives the events of the links it sees only (a link moved out of its limits goes silent from that change on). Each event's id is its number: reconnecting with Last-Event-ID resumes after it, within the 7 days events are kept (older: a gap event first). A comment every 15 s keeps proxies from closing it. A stream ends when its key is revoked or expires, its account is disabled or its session ends, and after ${STREAM_LIFETIME_MS / 60_000} minutes in any case (reconnect with Last-Event-ID). A reader that falls more than 1 MB behind is dropped with a gap event naming the id to resume after. At most ${STREAMS_PER_KEY} streams per key, ${STREAMS_PER_ACCOUNT} per account and SLINK_LIVE_STREAMS per process at once (429 beyond).`,
      },
    },
  );
}
