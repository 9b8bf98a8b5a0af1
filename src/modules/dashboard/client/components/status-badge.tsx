/**
 * A link's state as badges: what a visitor of its short link gets when that is not a redirect
 * (paused, expired, click limit reached), archived, then what it does on a click (a password
 * asked, rules followed); nothing for an ordinary live link. Words, not colours alone.
 */
import { featureBadges, type LinkFeatures, type LinkState, stateBadges } from '../lib/link-state';

export function StatusBadge({ link }: { link: LinkState & LinkFeatures }) {
  const badges = [...stateBadges(link), ...featureBadges(link)];
  if (badges.length === 0) return null;
  return (
    <span class="badges">
      {badges.map((badge) => (
        <span key={badge.label} class={`badge ${badge.tone}`}>
          {badge.label}
        </span>
      ))}
    </span>
  );
}
