/**
 * What the last bulk action on the selection did, and each link it could not change. It takes
 * the focus when it changes: the buttons that started the action are gone with the selection.
 */
import { useFocusOn } from '../../lib/hooks';

export interface Outcome {
  text: string;
  failures: { label: string; message: string }[];
}

export const linksText = (n: number) => (n === 1 ? '1 link' : `${n} links`);

export function OutcomeNote({ outcome }: { outcome: Outcome | null }) {
  const ref = useFocusOn<HTMLDivElement>(outcome);
  const failed = (outcome?.failures.length ?? 0) > 0;
  return (
    <div ref={ref} tabIndex={-1} role="status" class="outcome">
      {outcome && (
        <div class={`alert ${failed ? 'error' : 'notice'}`}>
          <p>{outcome.text}</p>
          {failed && (
            <ul>
              {outcome.failures.map((f) => (
                <li key={f.label}>
                  {f.label}: {f.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
