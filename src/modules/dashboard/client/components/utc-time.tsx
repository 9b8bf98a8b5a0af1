/**
 * A time in a table: "2026-11-26 14:05 UTC" as formatUtc writes it, which may break between the
 * day and the time (never inside either), so a table of several times fits a narrower page.
 */
import { formatUtc } from '../lib/format';

export function UtcTime({ ms }: { ms: number }) {
  const text = formatUtc(ms);
  const day = text.slice(0, 10);
  return (
    <time class="utc-time" dateTime={new Date(ms).toISOString()}>
      <span>{day}</span> <span>{text.slice(day.length + 1)}</span>
    </time>
  );
}
