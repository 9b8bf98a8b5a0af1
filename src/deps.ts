/** What every service and route receives: storage, configuration and the clock, never globals. */
import type { Config } from './config';
import type { Db } from './db/client';
import type { Clock } from './lib/clock';

export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

export const consoleLogger: Logger = {
  info: (message) => console.log(`${new Date().toISOString()} ${message}`),
  error: (message, error) => console.error(`${new Date().toISOString()} ${message}`, error ?? ''),
};

export interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
}
