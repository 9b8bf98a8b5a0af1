/** What the click pipeline needs: where the database is (for the writer Worker's own connection) and an inline writer. */
import type { Config } from '../../config';
import type { DatabaseAddress } from '../../db/address';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../lib/log';
import type { ClickWriter } from './store';
import type { WriterOptions } from './writer';

export interface ClicksDeps {
  stores: {
    readonly address: DatabaseAddress;
    /** The engine's click writer on this connection (the inline sink: tests, replays). */
    openClickWriter(options: WriterOptions): ClickWriter;
  };
  config: Config;
  clock: Clock;
  log: Logger;
}
