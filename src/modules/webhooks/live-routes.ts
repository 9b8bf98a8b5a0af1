/** /events: the live stream of events (live.ts). */
import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { principalPlugin } from '../../http/auth';
import { fieldError } from '../../http/errors';
import { errors, oneOf } from '../../http/models';
import { openLiveStream, resumeFrom, STREAMS_PER_KEY } from './live';

export function liveRoutes(deps: Deps) {
  return new Elysia({ name: 'slink.live', prefix: '/events' }).use(principalPlugin).get(
    '',
    ({ query, request, principal }) =>
      openLiveStream(deps, {
        holder: principal.key.id,
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
        description: `text/event-stream of every event as it is recorded, the same types and bodies as webhook deliveries: link.created, link.updated, link.deleted, clicks (human clicks unless bots=1). Each event's id is its number: reconnecting with Last-Event-ID resumes after it, within the 7 days events are kept (older: a gap event first). A comment every 15 s keeps proxies from closing it. At most ${STREAMS_PER_KEY} streams per key at once (429 beyond).`,
      },
    },
  );
}
