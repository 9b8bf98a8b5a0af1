/** What the audit module needs to answer the log: its store, and who and what its entries name. */
import type { Clock } from '../../lib/clock';
import type { AuditStore } from './store';

export interface AuditDeps {
  stores: {
    readonly audit: AuditStore;
    readonly accounts: {
      findByEmail(email: string): Promise<{ id: string } | null>;
      list(): Promise<{ id: string; email: string }[]>;
    };
    readonly links: { names(ids: string[]): Promise<Map<string, { slug: string }>> };
  };
  clock: Clock;
}
