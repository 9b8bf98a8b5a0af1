/**
 * The latest clicks as they arrive, and how they arrive: "Live" while the stream is open,
 * "Updating every 5 s" while the page polls instead, and why when the stream was refused. Every value is the visitor's (referrer,
 * place, destination): shown as text, which Preact escapes.
 */
import type { Click } from '../api/types';
import { formatUtc } from '../lib/format';
import { type LiveClicks, POLL_MS } from '../lib/live-clicks';
import { breakdownLabel, countryName } from '../lib/stats-labels';

/** Lines shown: a glance at what is happening, not a log (the clicks list is that). */
const SHOWN = 10;

const STATUS_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  polling: `Updating every ${POLL_MS / 1000} s`,
  refused: `Updating every ${POLL_MS / 1000} s`,
} as const;

const STATUS_HINT = {
  connecting: '',
  live: 'new clicks show as they are recorded',
  polling: 'the live stream is unavailable; it is tried again now and then',
  refused:
    'the live stream was refused: too many are open (other tabs or pages of this account hold them); it is tried again now and then',
} as const;

function place(c: Click): string {
  if (c.country === null) return 'Unknown place';
  return c.city ? `${c.city}, ${countryName(c.country)}` : countryName(c.country);
}

function device(c: Click): string {
  const parts = [c.device && breakdownLabel('device', c.device), c.browser].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'Unknown device';
}

export function LiveStatusLine({ status }: { status: LiveClicks['status'] }) {
  return (
    <p class={`live-status ${status}`} role="status">
      <span class="live-dot" aria-hidden="true" />
      <span>
        <strong>{STATUS_TEXT[status]}</strong>
        {STATUS_HINT[status] && `: ${STATUS_HINT[status]}`}
      </span>
    </p>
  );
}

/**
 * Beside a number that moves with the live clicks while the stream is open. Seen only: the
 * line under the numbers (LiveMarkHint) says in words which ones move, for everyone.
 */
export function LiveMark() {
  return <span class="live-mark" title="Moves as clicks arrive" aria-hidden="true" />;
}

/** Under numbers some of which move: says which. */
export function LiveMarkHint({ which }: { which: string }) {
  return (
    <p class="live-mark-hint">
      <span class="live-mark" aria-hidden="true" /> {which} as clicks arrive; the other numbers are as of when the page
      read them.
    </p>
  );
}

export function LiveFeed({ live, showLink = false }: { live: LiveClicks; showLink?: boolean }) {
  const shown = live.received.slice(0, SHOWN);
  return (
    <section class="panel live-feed" aria-labelledby="live-feed-title">
      <div class="panel-head">
        <h2 id="live-feed-title">Latest clicks</h2>
        <LiveStatusLine status={live.status} />
      </div>
      {shown.length === 0 ? (
        <p class="hint live-empty">No clicks since this page opened. New ones show here, newest first.</p>
      ) : (
        <ol aria-label="Latest clicks, newest first">
          {shown.map(({ click: c }) => (
            <li key={c.id}>
              <time dateTime={new Date(c.timestamp).toISOString()}>{formatUtc(c.timestamp, 'second')}</time>
              {showLink && <span class="slug">/{c.slug}</span>}
              <span>{[place(c), device(c), breakdownLabel('referrer', c.referrer)].join(' · ')}</span>
              <span class="destination">
                {'→\u00a0'}
                {c.destination}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
