/**
 * Reading the source a page at a time: a page that fails is asked again while the source says a
 * retry may help (a 5xx, a timeout), waiting longer each time, so a passing fault of the
 * old service does not fail a long run.
 */
import type { ImportDeps } from '../deps';
import { SourceError } from '../source';
import { Cancelled, type RunPlan } from './plan';

/** Attempts at reading a page when the source says retrying may help, waiting longer each time. */
const PAGE_ATTEMPTS = 5;
const RETRY_BASE_MS = 1000;

/** A page of the source, retried while the source says a retry may help. */
export async function readPage(deps: ImportDeps, plan: RunPlan, cursor: string | null) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await plan.source.page(cursor, plan.signal);
    } catch (err) {
      if (plan.signal.aborted) throw new Cancelled();
      if (!(err instanceof SourceError) || !err.retryable || attempt === PAGE_ATTEMPTS) throw err;
      await deps.sleep(RETRY_BASE_MS * 2 ** (attempt - 1));
    }
  }
}
