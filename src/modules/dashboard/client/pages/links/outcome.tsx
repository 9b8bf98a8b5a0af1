/**
 * What the last bulk action on the selection did, and each link it left as it was with why
 * (a link kept because it has clicks, named and linked to its page). It takes the focus when it
 * changes: the buttons that started the action are gone with the selection.
 */
import { useFocusOn } from '../../lib/hooks';

export interface OutcomeItem {
  label: string;
  /** Why it is named ("12 clicks"). */
  note: string;
  /** The link's page, where what the bulk action could not do can be done. */
  href?: string;
}

export interface Outcome {
  text: string;
  items?: OutcomeItem[];
  /** Said after the items: what the person can do about them. */
  next?: string;
  /** notice (default): done; warn: done, but not to every link; error: the action failed. */
  tone?: 'notice' | 'warn' | 'error';
}

export const linksText = (n: number) => (n === 1 ? '1 link' : `${n} links`);
/** "1 link was" / "3 links were", to start a sentence about some of the links. */
export const linksWere = (n: number) => (n === 1 ? '1 link was' : `${n} links were`);

export function OutcomeNote({ outcome }: { outcome: Outcome | null }) {
  const ref = useFocusOn<HTMLDivElement>(outcome);
  const items = outcome?.items ?? [];
  return (
    <div ref={ref} tabIndex={-1} role="status" class="outcome">
      {outcome && (
        <div class={`alert ${outcome.tone ?? 'notice'}`}>
          <p>{outcome.text}</p>
          {items.length > 0 && (
            <ul>
              {items.map((item) => (
                <li key={item.label}>
                  {item.href ? <a href={item.href}>{item.label}</a> : item.label} ({item.note})
                </li>
              ))}
            </ul>
          )}
          {outcome.next && <p>{outcome.next}</p>}
        </div>
      )}
    </div>
  );
}
