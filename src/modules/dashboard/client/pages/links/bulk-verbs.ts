/**
 * The selection's status, tags and delete verbs: one bulk call each for the whole selection
 * (api/bulk.ts), and its answer said in words for the outcome area. Delete keeps the links that
 * have clicks (the API's rule): they are named with their clicks, linked to their pages, and
 * stay selected so that Archive is one click away.
 */
import { type BulkChanged, changeTagsOf, deleteLinksOf, setStatusOf } from '../../api/bulk';
import type { Link, LinkStatus } from '../../api/types';
import { formatNumber } from '../../lib/format';
import { linkPagePath } from '../../lib/paths';
import { linksText, linksWere, type Outcome } from './outcome';

/** An action's outcome, and the links to keep selected afterwards. */
export interface BulkResult {
  outcome: Outcome;
  keep: string[];
}

export type StatusVerb = 'pause' | 'resume' | 'archive' | 'restore';

interface StatusVerbText {
  status: LinkStatus;
  /** The button. */
  label: string;
  done: string;
  /** Said of the links that already were so. */
  already: string;
  /** Whether the verb changes `link` (the button shows when it changes one of the selection). */
  applies(link: Link): boolean;
}

export const STATUS_VERBS: Record<StatusVerb, StatusVerbText> = {
  pause: {
    status: 'paused',
    label: 'Pause',
    done: 'Paused',
    already: 'paused already',
    applies: (l) => l.status === 'active',
  },
  resume: {
    status: 'active',
    label: 'Resume',
    done: 'Resumed',
    already: 'active already',
    applies: (l) => l.status === 'paused',
  },
  archive: {
    status: 'archived',
    label: 'Archive',
    done: 'Archived',
    already: 'archived already',
    applies: (l) => l.status !== 'archived',
  },
  restore: {
    status: 'active',
    label: 'Restore',
    done: 'Restored',
    already: 'active already',
    applies: (l) => l.status === 'archived',
  },
};

const clicksText = (n: number) => (n === 1 ? '1 click' : `${formatNumber(n)} clicks`);
const noLonger = (notFound: string[]) => (notFound.length ? [`${linksText(notFound.length)} no longer existed.`] : []);

function changedText(first: string, answer: BulkChanged, already: string): string {
  const unchanged = answer.unchanged ? [`${linksWere(answer.unchanged)} ${already}.`] : [];
  return [first, ...unchanged, ...noLonger(answer.notFound)].join(' ');
}

export async function runStatusVerb(verb: StatusVerb, ids: string[]): Promise<BulkResult> {
  const v = STATUS_VERBS[verb];
  const answer = await setStatusOf(ids, v.status);
  return { outcome: { text: changedText(`${v.done} ${linksText(answer.updated)}.`, answer, v.already) }, keep: [] };
}

export async function runTags(ids: string[], add: string[], remove: string[]): Promise<BulkResult> {
  const answer = await changeTagsOf(ids, add, remove);
  const what = [add.length ? `added ${add.join(', ')}` : '', remove.length ? `removed ${remove.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
  const first = `Changed the tags of ${linksText(answer.updated)} (${what}).`;
  return { outcome: { text: changedText(first, answer, 'so already') }, keep: [] };
}

/** `links` are the selected links as the list shows them: a kept one is named with its title too. */
export async function runDelete(links: Link[]): Promise<BulkResult> {
  const answer = await deleteLinksOf(links.map((l) => l.id));
  const titles = new Map(links.map((l) => [l.id, l.title]));
  const deleted = answer.deleted.length ? `Deleted ${linksText(answer.deleted.length)}.` : 'No link was deleted.';
  const text = [deleted, ...noLonger(answer.notFound)];
  const kept = answer.refused;
  if (kept.length === 0) return { outcome: { text: text.join(' ') }, keep: [] };
  const one = kept.length === 1;
  text.push(`${linksWere(kept.length)} kept because ${one ? 'it has' : 'they have'} clicks:`);
  return {
    outcome: {
      text: text.join(' '),
      items: kept.map((r) => {
        const title = titles.get(r.id);
        const note = title ? `${title}, ${clicksText(r.clickCount)}` : clicksText(r.clickCount);
        return { label: r.slug, note, href: linkPagePath(r.id) };
      }),
      next: `${one ? 'It is' : 'They are'} still selected: archive ${one ? 'it' : 'them'}, or delete each from its page, where its clicks and statistics go with it.`,
      tone: 'warn',
    },
    keep: kept.map((r) => r.id),
  };
}

/** What the delete confirmation says of the selected links that have clicks, as the list shows them. */
export function clickedText(links: Link[]): string | null {
  const clicked = links.filter((l) => l.clickCount > 0);
  if (clicked.length === 0) return null;
  const names = clicked.map((l) => `${l.slug} (${clicksText(l.clickCount)})`).join(', ');
  return `Of the selected, ${clicked.length === 1 ? 'this one has' : `these ${clicked.length} have`} clicks: ${names}.`;
}
