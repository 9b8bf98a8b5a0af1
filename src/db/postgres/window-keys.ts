/**
 * The keys of the windows the nodes count in together (the API rate limit, sign-in failures):
 * what they count by (an API key's id, a client address, an email) is stored only as its
 * HMAC-SHA256 keyed with the database's random secret (`window_secret`, made by its migration),
 * so a raw address or email is never stored, and an address cannot be found again by hashing
 * every IPv4 address without the secret. Every node reads the same secret, so they agree on
 * every key. It is read once per process, at the first use; a failed read is tried again at the next.
 */
import { hmacHex } from '../../lib/hash';
import type { Pg } from './client';

export class WindowKeys {
  private secret: string | null = null;
  private loading: Promise<string> | null = null;

  constructor(private readonly sql: Pg) {}

  /** The stored key of `identity` (which carries its kind: `ip:...`, `email:...`). */
  async of(identity: string): Promise<string> {
    return hmacHex(this.secret ?? (await this.load()), identity);
  }

  private load(): Promise<string> {
    this.loading ??= (async () => {
      try {
        const [row] = await this.sql<{ secret: string }[]>`SELECT secret FROM window_secret WHERE id = 1`;
        if (!row) throw new Error('window_secret is empty: the database was not migrated by this release');
        this.secret = row.secret;
        return row.secret;
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }
}
