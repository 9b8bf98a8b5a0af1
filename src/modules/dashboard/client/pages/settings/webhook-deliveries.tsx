/**
 * /app/settings/webhooks/:id: one webhook's delivery log, newest attempt first, a page at a time.
 * Each attempt opens to the request body sent and the answer kept (both are the receiver's or
 * our own JSON: shown as text, never as markup). A delivery's newest attempt says when it is
 * tried next, or that it was given up. Redeliver asks for the event to be sent again now; the
 * log is then read again until the new attempt shows.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DeliveryAttempt } from '../../api/types';
import { getWebhook, listDeliveries, retryDelivery } from '../../api/webhooks';
import { EmptyState, LoadFailed, Loading, ResourceStatus, StatusLine } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatNumber, formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { usePagedList } from '../../lib/paged';
import type { PageProps } from '../page';

/** How often, and how many times, the log is read again after a Redeliver. */
const REFRESH_MS = 1000;
const REFRESH_TRIES = 20;

/** A JSON body indented for reading; anything else (a cut-off body, plain text) as it is. */
function readable(text: string): string {
  if (text === '') return '(empty)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A body in a box that scrolls when long, so it takes the keyboard focus too (WCAG 2.1.1). */
function Payload({ text }: { text: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard.
    <pre class="payload" tabIndex={0}>
      {readable(text)}
    </pre>
  );
}

function outcome(a: DeliveryAttempt): string {
  if (a.error === null) return a.statusCode === null ? 'Delivered' : `Delivered: ${a.statusCode}`;
  if (a.statusCode === null) return `Failed: ${a.error}`;
  // The server words a plain refusal as "answered <status>": the status alone says it.
  return a.error === `answered ${a.statusCode}` ? `Failed: ${a.statusCode}` : `Failed: ${a.statusCode} (${a.error})`;
}

function Attempt({ a, newest, onRedeliver }: { a: DeliveryAttempt; newest: boolean; onRedeliver(): void }) {
  return (
    <li class={`delivery-item ${a.error === null ? 'ok' : 'failed'}`}>
      <div class="delivery-head">
        <div>
          <p>
            <strong>{outcome(a)}</strong> <span class="hint">attempt {a.attempt}</span>
          </p>
          <p class="hint">
            <code>{a.type}</code> · <code>{a.eventId}</code> · {formatNumber(a.durationMs)} ms ·{' '}
            {formatUtc(a.at, 'second')}
          </p>
          {a.nextAttemptAt !== null && (
            <p class="hint delivery-next">
              {a.error === null ? 'Sent again' : 'Next attempt'} at {formatUtc(a.nextAttemptAt, 'second')}
            </p>
          )}
          {a.gaveUp && <p class="delivery-gave-up">Gave up: it failed for 24 hours, nothing more is tried.</p>}
        </div>
        {newest && (
          <button
            type="button"
            class="button small secondary"
            aria-label={`Redeliver ${a.eventId}`}
            onClick={onRedeliver}
          >
            Redeliver
          </button>
        )}
      </div>
      <details>
        <summary>Request and response</summary>
        <h3>Request body</h3>
        <Payload text={a.request} />
        <h3>Response body{a.statusCode === null ? '' : ` (${a.statusCode})`}</h3>
        <Payload text={a.response} />
      </details>
    </li>
  );
}

export function WebhookDeliveriesPage({ params }: PageProps) {
  const id = params.id ?? '';
  const webhook = useResource(() => getWebhook(id), [id]);
  const [generation, setGeneration] = useState(0);
  const log = usePagedList((cursor) => listDeliveries(id, cursor), `${id}#${generation}`);
  const action = useAction();
  const [done, setDone] = useState('');
  // After a Redeliver: read the log again until an attempt newer than `waitingFor` shows.
  const waiting = useRef<{ after: number; tries: number } | null>(null);
  const newestId = log.items[0]?.id ?? 0;

  useEffect(() => {
    const w = waiting.current;
    if (w === null || log.loading) return;
    if (newestId > w.after || w.tries >= REFRESH_TRIES) {
      waiting.current = null;
      return;
    }
    const timer = setTimeout(() => {
      w.tries++;
      setGeneration((g) => g + 1);
    }, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [log.loading, newestId]);

  const redeliver = async (a: DeliveryAttempt) => {
    setDone('');
    if (!(await action.run(() => retryDelivery(id, a.deliveryId)))) return;
    setDone(`Redelivering ${a.eventId}: the new attempt shows at the top when it is made.`);
    waiting.current = { after: newestId, tries: 0 };
    setGeneration((g) => g + 1);
  };

  const seen = new Set<number>();
  const title = webhook.data ? `Deliveries to ${webhook.data.description ?? webhook.data.url}` : 'Deliveries';
  return (
    <SettingsFrame title={title}>
      <p class="breadcrumb">
        <a href="/app/settings/webhooks">Webhooks</a>
      </p>
      {webhook.error?.code === 'not_found' ? (
        <EmptyState title="No such webhook">
          <p>It may have been deleted.</p>
        </EmptyState>
      ) : (
        <>
          {webhook.data && (
            <p class="webhook-url">
              <code>{webhook.data.url}</code>
            </p>
          )}
          <p>
            Every attempt, newest first, kept 7 days. A failed delivery is tried again by itself (after about 5 s, 30 s,
            2 min, ... up to 24 hours); Redeliver sends the event again now, with the same webhook-id.
          </p>
          <p>
            <button type="button" class="button small secondary" onClick={() => setGeneration((g) => g + 1)}>
              Refresh
            </button>
          </p>
          <StatusLine text={done} />
          <ResourceStatus resource={webhook} action={action} />
          {log.items.length > 0 && (
            <ul class="delivery-list" aria-label="Delivery attempts">
              {log.items.map((a) => {
                const newest = !seen.has(a.deliveryId);
                seen.add(a.deliveryId);
                return <Attempt key={a.id} a={a} newest={newest} onRedeliver={() => redeliver(a)} />;
              })}
            </ul>
          )}
          {log.error && <LoadFailed error={log.error} retry={log.retry} />}
          {!log.loading && !log.error && log.items.length === 0 && (
            <EmptyState title="No deliveries yet">
              <p>Attempts show here once an event this webhook listens to happens.</p>
            </EmptyState>
          )}
          <Loading active={log.loading && log.items.length === 0} />
          {log.cursor && !log.loading && !log.error && (
            <p class="more">
              <button type="button" class="button secondary" onClick={log.more}>
                Load older attempts
              </button>
            </p>
          )}
        </>
      )}
    </SettingsFrame>
  );
}
