/**
 * GET /privacy: the privacy switches in force and what a click keeps, field by field, with how
 * long (docs/operations.md, "Privacy"). Read from the configuration alone, so it says exactly
 * what the click path applies: capture (clicks/capture/privacy.ts) and enrichment
 * (clicks/enrich/enrich.ts, geo.ts) read the same switches.
 */
import { t } from 'elysia';
import type { Config } from '../../config';
import { nullable, oneOf } from '../../http/models';

const Field = t.Object({
  field: t.String({ description: "The click's field, as the clicks list and the export name it." }),
  kept: t.Boolean({ description: 'Whether a click keeps it now (the switches in force).' }),
  keptWhenOptedOut: t.Boolean({
    description: 'Whether an opted-out click (counted but not profiled) keeps it: never anything of the visitor.',
  }),
  from: t.String({ description: 'What it is made of.' }),
  rawClicks: t.Boolean({
    description: 'Kept in the raw clicks (listed, exported; deleted after SLINK_RETENTION_DAYS).',
  }),
  rollups: t.Boolean({ description: 'Counted in the statistics (rollups, kept forever, never with the visitor).' }),
});

export const PrivacyModel = t.Object(
  {
    switches: t.Object(
      {
        honorGpc: t.Boolean({ description: 'SLINK_HONOR_GPC: Sec-GPC: 1 opts a click out.' }),
        honorDnt: t.Boolean({ description: 'SLINK_HONOR_DNT: DNT: 1 opts a click out.' }),
        noTrackParam: nullable(t.String(), {
          description: 'SLINK_NO_TRACK_PARAM: the query parameter that opts a click out (never forwarded); null: none.',
        }),
        referrer: oneOf(['host', 'none'], { description: 'SLINK_REFERRER' }),
        geo: oneOf(['city', 'country', 'none'], { description: 'SLINK_GEO' }),
      },
      { description: 'The switches in force, read once at start.' },
    ),
    optedOut: t.String({ description: 'What happens to an opted-out click.' }),
    retention: t.Object(
      {
        rawClicksDays: nullable(t.Integer({ minimum: 0 }), {
          description:
            'SLINK_RETENTION_DAYS: raw clicks are deleted after this many days; null: kept as long as their link.',
        }),
        rollups: t.Literal('forever', { description: 'Statistics (counts per hour and day) are never pruned.' }),
        visitorSaltDays: t.Integer({
          description:
            'The daily salt of the visitor hash is deleted after this many days; from then on no stored hash can be linked to an address.',
        }),
      },
      { description: 'How long what a click keeps is kept.' },
    ),
    fields: t.Array(Field, { description: 'Every fact of a click, and whether it is kept.' }),
    neverStored: t.Array(t.String(), { description: 'What a request carries that is never stored.' }),
  },
  { title: 'Privacy' },
);
export type Privacy = typeof PrivacyModel.static;

type FieldRow = Privacy['fields'][number];

/** A fact of the visitor's: never kept for an opted-out click. */
const profiled = (field: string, kept: boolean, from: string): FieldRow => ({
  field,
  kept,
  keptWhenOptedOut: false,
  from,
  rawClicks: kept,
  rollups: kept,
});

/** A fact of the link's or of the moment: kept for every click. */
const always = (field: string, from: string, rollups = true): FieldRow => ({
  field,
  kept: true,
  keptWhenOptedOut: true,
  from,
  rawClicks: true,
  rollups,
});

export function describePrivacy(config: Config): Privacy {
  const p = config.privacy;
  const signals = [
    ...(p.honorGpc ? ['Sec-GPC: 1'] : []),
    ...(p.honorDnt ? ['DNT: 1'] : []),
    ...(p.noTrackParam === null ? [] : [`the ${p.noTrackParam} query parameter`]),
  ];
  return {
    switches: { ...p },
    optedOut:
      signals.length === 0
        ? 'No signal opts a click out: every click is profiled as the fields say.'
        : `A click carrying ${signals.join(' or ')} is counted (clickCount, totals, series, totals.optedOut) but not profiled: every field marked keptWhenOptedOut false is empty, and no visitor hash is computed, so it adds no unique visitor.`,
    retention: {
      rawClicksDays: config.retentionDays === 0 ? null : config.retentionDays,
      rollups: 'forever',
      visitorSaltDays: 2,
    },
    fields: [
      always('timestamp', 'the time of the click'),
      always('linkId', 'the link clicked'),
      always('variantCode', 'the code in the short URL'),
      always('destination', 'where the click was sent', false),
      always('params', "the link's params (UTM values counted)"),
      always('rule', 'the link rule that chose the destination'),
      always('bot', 'the user agent, classified and dropped'),
      profiled('country', p.geo !== 'none', 'the address, looked up and dropped (SLINK_GEO)'),
      profiled('city', p.geo === 'city', 'the address, looked up and dropped (SLINK_GEO)'),
      profiled('device', true, 'the user agent, parsed and dropped'),
      profiled('os', true, 'the user agent, parsed and dropped'),
      profiled('browser', true, "the user agent, parsed and dropped (a bot's name for a bot)"),
      profiled('referrer', p.referrer === 'host', 'the Referer header: its host only (SLINK_REFERRER)'),
      always(
        'trafficType',
        p.referrer === 'host'
          ? "the referrer's host and the link's utm_medium (an opted-out click: utm_medium only)"
          : "the link's utm_medium only (SLINK_REFERRER=none)",
      ),
      profiled('language', true, 'the Accept-Language header: the preferred language only'),
      {
        field: 'visitor',
        kept: true,
        keptWhenOptedOut: false,
        from: "64 bits of sha256(the day's random salt, address, user agent): unique visitors per link and day",
        rawClicks: true,
        rollups: false,
      },
    ],
    neverStored: ['the client address', 'the user agent', 'the full referrer URL', 'cookies'],
  };
}
