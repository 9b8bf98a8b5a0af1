/** The logger every part of the service writes to: injected, so tests read what was logged. */
import { describeError } from './errors';

export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

/**
 * Lines on stdout and stderr, each starting with its time and, for a node of the service, the
 * node's name. One line each (docs/operations.md, "Health and logs"): an error is described by
 * its name, code, message and where it was thrown, never by its stack trace.
 */
export function consoleLoggerOf(node: string | null): Logger {
  const head = () => (node === null ? new Date().toISOString() : `${new Date().toISOString()} ${node}`);
  return {
    info: (message) => console.log(`${head()} ${message}`),
    error: (message, error) =>
      console.error(error === undefined ? `${head()} ${message}` : `${head()} ${message}: ${describeError(error)}`),
  };
}

/** The operator commands' logger (no node: they are not one). */
export const consoleLogger: Logger = consoleLoggerOf(null);
