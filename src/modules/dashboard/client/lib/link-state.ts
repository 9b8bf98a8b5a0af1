/**
 * What a link's state means for its visitors, in words: the badges of the links list and of a
 * link's page, and the sentences of its Status panel. The API judges `availability` (what a
 * visitor of the short link gets at the moment of the answer); `status` alone says only whether
 * it is paused or archived, so an "active" link whose expiry has passed must read as expired.
 * Archived is a status, not an availability (an archived link redirects): it is said beside it.
 * DOM-free (unit-tested on its own).
 */
import type { Link } from '../api/types';
import { formatNumber, formatUtc } from './format';

export type LinkState = Pick<Link, 'status' | 'availability' | 'expiresAt' | 'clickLimit' | 'clickCount'>;

export interface StateBadge {
  label: string;
  /**
   * paused: the 404 page; gone: the 410 page; archived: hidden from the default list; feature:
   * what the link does on a click (asks for a password, follows rules).
   */
  tone: 'paused' | 'gone' | 'archived' | 'feature';
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
  if (link.availability === 'expired') badges.push({ label: 'Expired', tone: 'gone' });
  if (link.availability === 'limit') badges.push({ label: 'Click limit reached', tone: 'gone' });
  if (link.status === 'archived') badges.push({ label: 'Archived', tone: 'archived' });
  return badges;
}

/** What stops a live link later: its expiry, its click limit. */
function upcoming(link: LinkState): string[] {
  const out: string[] = [];
  if (link.expiresAt !== null) out.push(`It expires ${formatUtc(link.expiresAt)}.`);
  if (link.clickLimit !== null) out.push(`Click limit: ${clicksOfLimit(link)} clicks used.`);
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
        `Expired: visitors get ${GONE_PAGE}${since}, and no clicks are recorded.`,
        'To make it redirect again, set a later expiry or clear it under Details.',
        ...(archived ? ['It is also archived: hidden from the default list.'] : []),
      ];
    }
    case 'limit':
      return [
        `Click limit reached (${clicksOfLimit(link)}): visitors get ${GONE_PAGE}, and no more clicks are recorded.`,
        'To make it redirect again, raise the click limit or clear it under Details.',
        ...(archived ? ['It is also archived: hidden from the default list.'] : []),
      ];
  }
}
