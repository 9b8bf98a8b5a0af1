/**
 * The click record: its fields in their documented order (docs/behaviour.md, "Raw clicks"), its
 * schema, and how a stored click becomes one. One shape for the raw-click list, the CSV's
 * columns (analytics) and the `clicks` events' records (here): it sits in webhooks because the
 * clicks module records those events through webhooks, so the record cannot sit above it. The
 * dimensions come from their one definition.
 */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { nullable, StringMapModel } from '../../http/models';
import { CLICK_DIMS, type ClickDimValues } from '../rollups/dimensions';

export const CLICK_FIELDS = [
  'id',
  'linkId',
  'slug',
  'timestamp',
  'variantCode',
  'variantKnown',
  'destination',
  'params',
  ...CLICK_DIMS,
  'bot',
  // Added with link rules, after the columns CSV readers already count on.
  'rule',
  // Added with short domains, last for the same reason.
  'domain',
] as const;

const Nullable = nullable(t.String());
export const ClickModel = t.Object(
  {
    id: Type.Integer(),
    linkId: t.String(),
    slug: t.String({ description: 'The link slug as it is now.' }),
    timestamp: Type.Integer({ description: 'Epoch ms.' }),
    variantCode: nullable(t.String(), {
      description: 'The code in the short URL, known or not; null for the bare link.',
    }),
    variantKnown: t.Boolean({ description: 'The code named a variant when clicked and that variant still exists.' }),
    destination: t.String({ description: 'Where the click was sent (Location).' }),
    params: StringMapModel,
    country: Nullable,
    city: Nullable,
    device: Nullable,
    os: Nullable,
    browser: nullable(t.String(), {
      description:
        "For a bot hit, the bot's name from its user agent, or Bot (null for bot hits recorded before bots were named).",
    }),
    referrer: nullable(t.String(), { description: 'Referring host; null for none.' }),
    trafficType: Nullable,
    language: Nullable,
    bot: t.Boolean(),
    rule: nullable(Type.Integer({ minimum: 0 }), {
      description:
        "The index (from 0) of the link's rule that chose the destination, as the link's rules were when clicked; null when no rule matched.",
    }),
    domain: t.String({ description: "The host of the link's short domain as it is now (like slug)." }),
  },
  { title: 'Click', description: `Fields in this order: ${CLICK_FIELDS.join(', ')}.` },
);
export type Click = typeof ClickModel.static;

/** What a click record is made of, as either engine stores a click (its id and time apart). */
export interface ClickFacts extends ClickDimValues {
  code: string | null;
  destination: string;
  paramsJson: string;
  bot: boolean;
  rule: number | null;
}

/** Where a link answers now: its slug and its domain's host (a click record names both as they are now). */
export interface LinkAddress {
  slug: string;
  domain: string;
}

/**
 * The API's click record, its fields in CLICK_FIELDS order. `slug` and `domain` are the link's as they are now;
 * `variantKnown`: the code named a variant when clicked and that variant still exists; `params`
 * parsed already when the caller has them (a click batch's events: thousands of records).
 */
export function clickRecord(
  click: { id: number; timestamp: number; facts: ClickFacts; params?: Readonly<Record<string, string>> },
  link: { id: string } & LinkAddress,
  variantKnown: boolean,
): Click {
  const f = click.facts;
  const record = {
    id: click.id,
    linkId: link.id,
    slug: link.slug,
    timestamp: click.timestamp,
    variantCode: f.code,
    variantKnown,
    destination: f.destination,
    params: click.params ?? (JSON.parse(f.paramsJson) as Record<string, string>),
  } as Click;
  for (const d of CLICK_DIMS) record[d] = f[d];
  record.bot = f.bot;
  record.rule = f.rule;
  record.domain = link.domain;
  return record;
}
