/** Analytics schemas: the single source for validation, types and OpenAPI. */

import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { NextCursor, nullable, oneOf, pageQuery } from '../../http/models';
import { ClickModel } from '../webhooks/public';
import { RANGES } from './names';
import { BREAKDOWN_LIMIT } from './top';

const windowFields = {
  range: t.Optional(
    oneOf(RANGES, {
      description:
        'today (since 00:00 UTC), 24h and 7d (the last 24 and 168 hours, current hour included), 30d and 90d (the last 30 and 90 UTC days, today included) or all. Default 30d. Counted back from `to` when `to` is given.',
      error: fieldError('range', `range must be one of ${RANGES.join(', ')}`),
    }),
  ),
  from: t.Optional(
    t.String({
      description: 'Epoch ms, or YYYY-MM-DD (start of that UTC day). Overrides range.',
      error: fieldError('from', 'from must be epoch milliseconds or a date as YYYY-MM-DD (UTC)'),
    }),
  ),
  to: t.Optional(
    t.String({
      description: 'Epoch ms (inclusive), or YYYY-MM-DD (that whole UTC day included). Default: now.',
      error: fieldError('to', 'to must be epoch milliseconds or a date as YYYY-MM-DD (UTC)'),
    }),
  ),
  bots: t.Optional(
    oneOf(['0', '1'], {
      description: '0 (default): humans only. 1: bot hits count too.',
      error: fieldError('bots', 'bots must be 0 or 1'),
    }),
  ),
};

export const StatsQuery = t.Object(windowFields);
export type WindowQuery = typeof StatsQuery.static;

export const WorkspaceStatsQuery = t.Object({
  ...windowFields,
  domain: t.Optional(
    t.String({
      maxLength: 300,
      description:
        'Only the clicks of the links on this short domain now (a link moved there brings its clicks; one moved away takes them): its host, matched without regard to case, as punycode, any port ignored. An unknown host is 400 (field domain).',
      error: fieldError('domain', "domain must be the host of one of the workspace's short domains"),
    }),
  ),
});
export type WorkspaceStatsInput = typeof WorkspaceStatsQuery.static;

export const ClicksQuery = t.Object({
  ...windowFields,
  ...pageQuery(200),
});
export type ClicksInput = typeof ClicksQuery.static;

const Count = Type.Integer({ minimum: 0 });
const Entry = t.Object({
  value: nullable(t.String(), { description: 'null: not known (for referrer: none, a direct visit).' }),
  clicks: Count,
});
const list = <T extends TSchema>(item: T, description: string) =>
  t.Array(item, {
    description: `${description} At most ${BREAKDOWN_LIMIT} entries, most clicks first (ties by value).`,
  });

const statsFields = {
  range: t.Object(
    { from: Type.Integer(), to: Type.Integer(), bots: t.Boolean() },
    {
      description:
        'The window counted, widened to whole UTC hours: from = start of its first hour, to = last ms of its last hour.',
    },
  ),
  interval: oneOf(['hour', 'day'], {
    description: 'Series step: hour for windows up to 7 days, day beyond.',
  }),
  totals: t.Object({
    clicks: Count,
    uniques: t.Integer({
      minimum: 0,
      description: 'Unique visitors per link and UTC day, summed over the window (and over links for the workspace).',
    }),
    bots: t.Integer({
      minimum: 0,
      description: 'Bot hits in the window, whatever `bots` says; clicks includes them only with bots=1.',
    }),
    optedOut: t.Integer({
      minimum: 0,
      description:
        "Of `clicks`, those counted but not profiled: the visitor's privacy signal (Sec-GPC, DNT or the no-track parameter, as SLINK_HONOR_GPC, SLINK_HONOR_DNT and SLINK_NO_TRACK_PARAM say). They count in clicks and the series, add no unique visitor, and are in the breakdowns as unknown.",
    }),
  }),
  notCollected: t.Array(oneOf(['country', 'city', 'referrer']), {
    description:
      'Dimensions this server does not collect (SLINK_GEO, SLINK_REFERRER): their breakdowns hold only clicks stored before the switch, and a client shows "not collected" instead of an unknown bar. Empty: everything is collected.',
  }),
  series: t.Array(
    t.Object({
      t: Type.Integer({ description: 'Start of the bucket (epoch ms, UTC).' }),
      clicks: Count,
      uniques: Count,
    }),
    {
      description: 'One point per hour or UTC day of the window, zeros included.',
    },
  ),
  breakdowns: t.Object({
    country: list(Entry, 'ISO 3166 country codes.'),
    city: list(
      t.Object({ value: nullable(t.String()), country: nullable(t.String()), clicks: Count }),
      'Cities with their country code.',
    ),
    device: list(Entry, 'desktop, mobile, tablet, ...'),
    os: list(Entry, 'Operating systems.'),
    browser: list(
      Entry,
      "Browsers; a bot hit (counted with bots=1) under the bot's name from its user agent (Googlebot, curl, ...), or Bot when it names none.",
    ),
    referrer: list(Entry, 'Referring hosts.'),
    trafficType: list(Entry, 'direct, email, social, search or referral.'),
    utmSource: list(Entry, 'utm_source values.'),
    utmMedium: list(Entry, 'utm_medium values.'),
    utmCampaign: list(Entry, 'utm_campaign values.'),
    variant: list(
      t.Object({ value: t.String(), clicks: Count }),
      'By variant, under its current code; `""` counts the clicks on the link itself: on the bare link, and on codes that match no variant now (never did, or their variant was deleted since; unknownVariants lists those by code). So the list adds up to totals.clicks (when it holds every value: at most 100 are listed).',
    ),
    language: list(Entry, 'Preferred languages (Accept-Language).'),
    rule: list(
      t.Object({ value: Type.Integer({ minimum: 0 }), clicks: Count }),
      "By the link rule that chose the destination: its index (from 0) in the link's rules when clicked. Clicks no rule matched are not listed. For the workspace, every link's rule of one index counts together.",
    ),
    params: list(
      t.Object({ key: t.String(), value: t.String(), clicks: Count }),
      'Custom params (utm_source/medium/campaign have their own lists).',
    ),
  }),
  unknownVariants: list(
    t.Object({ code: t.String(), clicks: Count }),
    'Codes clicked that match no variant (never did, or the variant was deleted).',
  ),
};

export const StatsModel = t.Object(statsFields, { title: 'Stats' });
export type Stats = typeof StatsModel.static;
export type Breakdowns = Stats['breakdowns'];

const WorkspaceVariantEntry = t.Object({
  value: t.String({ description: "`<slug>/<code>`: the link's and the variant's current names." }),
  linkId: t.String(),
  code: t.String({ description: "The variant's current code." }),
  clicks: Count,
});

export const WorkspaceStatsModel = t.Object(
  {
    ...statsFields,
    breakdowns: t.Object({
      ...statsFields.breakdowns.properties,
      variant: list(
        WorkspaceVariantEntry,
        'One entry per variant of each link, never codes of different links together. Clicks on a link itself (the bare link, or a code that matches no variant) are not listed; unknownVariants lists unrecognised codes of every link together, by code.',
      ),
    }),
    topLinks: list(
      t.Object({
        id: t.String(),
        slug: t.String({ description: "The link's current slug." }),
        title: nullable(t.String(), { description: "The link's current title." }),
        clicks: Count,
      }),
      'Links with the most clicks in the window.',
    ),
  },
  { title: 'WorkspaceStats' },
);
export type WorkspaceStats = typeof WorkspaceStatsModel.static;
export type WorkspaceVariant = typeof WorkspaceVariantEntry.static;

export type { Click } from '../webhooks/public';

export const ClickPageModel = t.Object({
  items: t.Array(ClickModel),
  cursor: NextCursor,
  retainedFrom: nullable(Type.Integer(), {
    description:
      'Epoch ms: raw clicks are kept from this instant on (SLINK_RETENTION_DAYS); older ones are deleted and never listed, while statistics still count them. Null when every click is kept.',
  }),
});
