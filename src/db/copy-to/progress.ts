/**
 * `slink copy-to`'s progress on stderr: the table, rows done of how many, the percentage; at
 * most a line a second (a copy of millions of clicks would otherwise print thousands), the
 * first at once so an operator sees it has begun.
 */
export class CopyProgress {
  private last = Number.NEGATIVE_INFINITY;
  private table = '';
  private total = 0;
  private done = 0;

  constructor(
    private readonly print: (line: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A table begins: `total` rows to copy, `done` of them copied already (a resumed copy). */
  begin(table: string, total: number, done = 0): void {
    this.table = table;
    this.total = total;
    this.done = done;
    this.show();
  }

  advance(rows: number): void {
    this.done += rows;
    this.show();
  }

  private show(): void {
    const now = this.now();
    if (now - this.last < 1000) return;
    this.last = now;
    const percent = this.total === 0 ? 100 : Math.min(100, Math.floor((this.done / this.total) * 100));
    this.print(`copy-to: ${this.table} ${this.done}/${this.total} rows (${percent}%)`);
  }
}
