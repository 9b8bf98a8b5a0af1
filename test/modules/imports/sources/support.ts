/**
 * What the source tests share: the options a source is built from (the real fetch, a sleep that
 * records the waits asked for instead of waiting, fakes on loopback allowed), and readers that
 * walk a source to its end.
 */

import type { ImportSource, SourceLink, SourceOptions, SourceVisit } from '../../../../src/modules/imports/public';

export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

export function optionsFor(url: string | null, token: string | null, extra: Partial<SourceOptions> = {}) {
  const recorder = recordingSleep();
  const options: SourceOptions = {
    url,
    token,
    file: null,
    fetch,
    sleep: recorder.sleep,
    allowPrivate: true,
    ...extra,
  };
  return { options, waits: recorder.waits };
}

export const never = new AbortController().signal;

/** Every link, page after page, with the cursors seen. */
export async function allLinks(source: ImportSource): Promise<{ links: SourceLink[]; pages: number }> {
  const links: SourceLink[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await source.page(cursor, never);
    links.push(...page.links);
    cursor = page.next;
    pages++;
  } while (cursor !== null);
  return { links, pages };
}

export async function allVisits(source: ImportSource, link: SourceLink, after: number | null = null) {
  const visits: SourceVisit[] = [];
  let batches = 0;
  for await (const batch of source.visits!(link, after, never)) {
    visits.push(...batch);
    batches++;
  }
  return { visits, batches };
}

/** The SourceError a promise rejects with (fails the test when it resolves). */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ name: string; message: string; retryable: boolean; field?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { name: string; message: string; retryable: boolean; field?: string };
  }
  throw new Error('expected a failure');
}
