/**
 * A link's state as badges: what a visitor of its short link gets when that is not a redirect
 * (paused, expired, click limit reached), and archived; nothing for an ordinary live link.
 */
import { type LinkState, stateBadges } from '../lib/link-state';

export function StatusBadge({ link }: { link: LinkState }) {
  const badges = stateBadges(link);
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
