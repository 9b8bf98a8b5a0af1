/**
 * The links list's Status filter: one choice that a person reads as what visitors get (live,
 * paused, expired, at the click limit) or where the link is kept (archived), written into the
 * API's two filters, `status` and `availability`. An address with a pair no choice names (a
 * bookmark of ?status=active, or status and availability together) keeps it, as an extra choice
 * named after it. A link past its expiry or click limit with a fallback URL still redirects, to
 * the fallback: so "live" says where visitors go (the destination), and the ended choices say
 * both outcomes. DOM-free (unit-tested on its own).
 */
import type { LinkFilters } from '../api/links';
import type { LinkAvailability, LinkStatus } from '../api/types';

export type StatusPart = Pick<LinkFilters, 'status' | 'availability'>;

/** The choices, in the order shown; the first is the API's default (active and paused). */
export const STATUS_CHOICES: { label: string; part: StatusPart }[] = [
  { label: 'Not archived', part: {} },
  { label: 'Live (to its destination)', part: { availability: 'live' } },
  { label: 'Paused', part: { status: 'paused' } },
  { label: 'Expired (to fallback or 410 page)', part: { availability: 'expired' } },
  { label: 'Click limit reached (to fallback or 410 page)', part: { availability: 'limit' } },
  { label: 'Archived', part: { status: 'archived' } },
];

const STATUS_WORDS: Record<LinkStatus, string> = { active: 'Active', paused: 'Paused', archived: 'Archived' };
const AVAILABILITY_WORDS: Record<LinkAvailability, string> = {
  live: 'live (to its destination)',
  paused: 'paused',
  expired: 'expired',
  limit: 'click limit reached',
};

/** A choice's value in the select: its filters as a query string ('' for none). */
export function statusValue({ status, availability }: StatusPart): string {
  const query = new URLSearchParams();
  if (status) query.set('status', status);
  if (availability) query.set('availability', availability);
  return query.toString();
}

function nameOf({ status, availability }: StatusPart): string {
  const words = [status && STATUS_WORDS[status], availability && AVAILABILITY_WORDS[availability]];
  const text = words.filter(Boolean).join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The select's options and its value for the filters in the address. */
export function statusOptions(current: StatusPart): { value: string; options: { value: string; label: string }[] } {
  const value = statusValue(current);
  const options = STATUS_CHOICES.map((c) => ({ value: statusValue(c.part), label: c.label }));
  if (!options.some((o) => o.value === value)) options.push({ value, label: nameOf(current) });
  return { value, options };
}

/** The filters with the chosen status part in place of the old one. */
export function withStatusValue(filters: LinkFilters, value: string): LinkFilters {
  const query = new URLSearchParams(value);
  return {
    ...filters,
    status: (query.get('status') || undefined) as LinkStatus | undefined,
    availability: (query.get('availability') || undefined) as LinkAvailability | undefined,
  };
}
