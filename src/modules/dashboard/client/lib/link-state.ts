/**
 * What a link's state means for its visitors, in words: the badges of the links list and of a
 * link's page, and the sentences of its Status panel. The API judges `availability` (what a
 * visitor of the short link gets at the moment of the answer); `status` alone says only whether
 * it is paused or archived, so an "active" link whose expiry has passed must read as expired.
 * Archived is a status, not an availability (an archived link redirects): it is said beside it.
 * An expired or limit-reached link with a fallback URL redirects there (302) instead of the 410
 * page, so its words name the fallback and its badge is not the error one.
 * DOM-free (unit-tested on its own).
 */
import type { Link } from '../api/types';
import { formatNumber, formatUtc } from './format';

export type LinkState = Pick<
  Link,
  'status' | 'availability' | 'expiresAt' | 'clickLimit' | 'clickCount' | 'fallbackUrl'
>;

export interface StateBadge {
  label: string;
  /**
   * paused: the 404 page; gone: the 410 page; fallback: sent to the fallback URL instead of the
   * destination; archived: hidden from the default list; feature: what the link does on a click
   * (asks for a password, follows rules).
   */
  tone: 'paused' | 'gone' | 'fallback' | 'archived' | 'feature';
}

export type LinkFeatures = Pick<Link, 'passwordProtected' | 'rules'>;

/** What the link does before or instead of the plain redirect: a password asked, rules followed. */
export function featureBadges(link: LinkFeatures): StateBadge[] {
  const badges: StateBadge[] = [];
  if (link.passwordProtected) badges.push({ label: 'Protected', tone: 'feature' });
  const rules = link.rules.length;
  if (rules > 0) badges.push({ label: rules === 1 ? '1 rule' : `${formatNumber(rules)} rules`, tone: 'feature' });
  return badges;
}

// The titles of the pages a visitor gets (redirect/pages.ts), so the words match what they see.
const NOT_FOUND_PAGE = 'the "Link not found" page';
const GONE_PAGE = 'the "Link no longer available" page';

/** "100 of 100": the link's clicks against its limit. */
const clicksOfLimit = (link: LinkState) => `${formatNumber(link.clickCount)} of ${formatNumber(link.clickLimit ?? 0)}`;

/** What a visitor gets, then whether it is archived; nothing for an ordinary live, active link. */
export function stateBadges(link: LinkState): StateBadge[] {
  const badges: StateBadge[] = [];
  if (link.availability === 'paused') badges.push({ label: 'Paused', tone: 'paused' });
  const ended =
    link.availability === 'expired' ? 'Expired' : link.availability === 'limit' ? 'Click limit reached' : '';
  if (ended && link.fallbackUrl !== null) badges.push({ label: `${ended}: to fallback`, tone: 'fallback' });
  else if (ended) badges.push({ label: ended, tone: 'gone' });
  if (link.status === 'archived') badges.push({ label: 'Archived', tone: 'archived' });
  return badges;
}

/** Where an expired or limit-reached link sends its visitors: its fallback URL, else the 410 page. */
const whereTo = (link: LinkState) =>
  link.fallbackUrl === null ? `get ${GONE_PAGE}` : `go to the fallback URL ${link.fallbackUrl}`;

/** The way back to the destination (a link with a fallback redirects already, just not there). */
const wayBack = (link: LinkState) =>
  link.fallbackUrl === null ? 'To make it redirect again' : 'To send visitors to the destination again';

/**
 * What the expiry and click limit fields say happens once they are passed, for the fallback
 * address the form holds now (trimmed; empty: none).
 */
export function endedHint(fallback: string): string {
  return fallback.trim() === ''
    ? 'visitors get the 410 page (or the fallback address, if you set one)'
    : 'visitors go to the fallback address';
}

/** What stops a live link later: its expiry, its click limit. */
function upcoming(link: LinkState): string[] {
  const out: string[] = [];
  if (link.expiresAt !== null) out.push(`It expires ${formatUtc(link.expiresAt)}.`);
  if (link.clickLimit !== null) out.push(`Click limit: ${clicksOfLimit(link)} clicks used.`);
  if (out.length > 0 && link.fallbackUrl !== null)
    out.push(`Then visitors go to the fallback URL ${link.fallbackUrl}.`);
  return out;
}

/** The Status panel: what a visitor of the short link gets now, and what would change it. */
export function stateSentences(link: LinkState): string[] {
  const archived = link.status === 'archived';
  switch (link.availability) {
    case 'live':
      return [
        archived
          ? 'Archived: hidden from the default list; the short link keeps redirecting and counting clicks.'
          : 'Active: the short link redirects and counts clicks.',
        ...upcoming(link),
      ];
    case 'paused':
      return [`Paused: visitors get ${NOT_FOUND_PAGE}, and no clicks are recorded until it is resumed.`];
    case 'expired': {
      const since = link.expiresAt === null ? '' : ` since ${formatUtc(link.expiresAt)}`;
      return [
        `Expired: visitors ${whereTo(link)}${since}, and no clicks are recorded.`,
        `${wayBack(link)}, set a later expiry or clear it under Details.`,
        ...(archived ? ['It is also archived: hidden from the default list.'] : []),
      ];
    }
    case 'limit':
      return [
        `Click limit reached (${clicksOfLimit(link)}): visitors ${whereTo(link)}, and no more clicks are recorded.`,
        `${wayBack(link)}, raise the click limit or clear it under Details.`,
        ...(archived ? ['It is also archived: hidden from the default list.'] : []),
      ];
  }
}
