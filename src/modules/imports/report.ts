/**
 * An import's report as CSV (GET /imports/{id}/report.csv): one row per source link the run read,
 * in the order read, through the clicks export's cell writer (RFC 4180, formula-guarded). Read
 * in pages and written as fast as the client takes it.
 */
import { csvLine } from '../analytics/public';
import type { ImportDeps } from './deps';

const PAGE = 1000;

async function* reportLines(deps: ImportDeps, runId: string): AsyncGenerator<string> {
  yield csvLine(['sourceId', 'outcome', 'shortUrl', 'reason']);
  let after = 0;
  for (;;) {
    const items = await deps.stores.imports.items(runId, after, PAGE);
    if (items.length > 0) yield items.map((i) => csvLine([i.sourceId, i.outcome, i.shortUrl, i.reason])).join('');
    if (items.length < PAGE) return;
    after = items[items.length - 1]!.seq;
  }
}

export function reportBody(deps: ImportDeps, runId: string): ReadableStream<Uint8Array> {
  const lines = reportLines(deps, runId);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
