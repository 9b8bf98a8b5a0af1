/** Where the CLI reads and writes, injected so tests and the real process share one code path. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** All of standard input (used for passwords not given on the command line). */
  readStdin(): Promise<string>;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readStdin: () => Bun.stdin.text(),
};
