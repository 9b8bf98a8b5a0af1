/**
 * The start's part of domains: the default domain made to be SLINK_SHORT_HOST's (added, or the
 * first domain named after it), then every domain read into memory. Runs before the slug index
 * loads and before the server answers.
 */
import { describeError } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import type { DomainDirectory } from './directory';
import type { DomainRow, DomainStore } from './store';

/** The host name of an origin, as domains are keyed: lowercase, punycode, no port. */
export function hostOfOrigin(origin: string): string {
  return new URL(origin).hostname;
}

/**
 * A write refused (a full disk) does not stop the start: the domains are then used from memory as
 * the write would have left them, and it is made again at the next start.
 */
export async function startDomains(
  store: DomainStore,
  directory: DomainDirectory,
  shortHost: string,
  now: number,
  log: Logger,
): Promise<void> {
  const host = hostOfOrigin(shortHost);
  try {
    await store.ensureDefault(host, shortHost, now);
  } catch (err) {
    log.error(
      `could not record ${host} as the default domain (${describeError(err)}); used from memory until the next start`,
    );
  }
  directory.replace(withDefault(await store.list(), host, shortHost));
}

/** The domains as ensureDefault leaves them (a no-op on what it wrote). */
function withDefault(rows: readonly DomainRow[], host: string, origin: string): DomainRow[] {
  const named = rows.some((r) => r.host === host);
  let claimed = false;
  return rows.map((r) => {
    const mine = named ? r.host === host : !claimed && r.host === '';
    if (mine) claimed = true;
    return mine ? { ...r, host, origin, isDefault: true } : { ...r, isDefault: false };
  });
}
