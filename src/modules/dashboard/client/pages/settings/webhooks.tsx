/**
 * /app/settings/webhooks: where the workspace's events are POSTed. Each webhook with its URL,
 * description, events and state; one failing says since when, and one disabled after a day
 * of failures says why, in words. Create (the secret shown once), edit, send a test event,
 * rotate the secret (asked first, the new one shown once), disable or enable, delete (asked
 * first), and each one's delivery log.
 */
import { useState } from 'preact/hooks';
import type { Webhook } from '../../api/types';
import { deleteWebhook, listWebhooks, rotateWebhookSecret, sendTestEvent, updateWebhook } from '../../api/webhooks';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Dialog } from '../../components/dialog';
import { EmptyState, ResourceStatus, StatusLine } from '../../components/feedback';
import { SettingsFrame } from '../../components/settings-frame';
import { formatNumber, formatUtc } from '../../lib/format';
import { useAction, useResource } from '../../lib/hooks';
import { SecretShown, WebhookDialog } from './webhook-dialog';

const nameOf = (w: Webhook) => w.description ?? w.url;

/** "12 failed attempts in a row since 2026-11-29 07:02 UTC": how long a failing one has failed. */
function Failing({ webhook: w }: { webhook: Webhook }) {
  const attempts = `${formatNumber(w.consecutiveFailures)} failed ${w.consecutiveFailures === 1 ? 'attempt' : 'attempts'}`;
  return (
    <>
      {attempts} in a row
      {w.failingSince !== null && (
        <>
          {' since '}
          <time class="webhook-time" dateTime={new Date(w.failingSince).toISOString()}>
            {formatUtc(w.failingSince)}
          </time>
        </>
      )}
    </>
  );
}

function State({ webhook: w }: { webhook: Webhook }) {
  if (w.active) {
    return (
      <p class="hint">
        <span class="badge ok">Active</span>
        {w.consecutiveFailures > 0 && (
          <>
            {' '}
            <Failing webhook={w} />; it is disabled if nothing succeeds for 24 hours (its events are kept for it).
          </>
        )}
      </p>
    );
  }
  if (w.disabledReason === null) {
    return (
      <p class="hint">
        <span class="badge paused">Disabled</span> Nothing is sent until it is enabled; its events are kept for it (7
        days) and delivered then.
      </p>
    );
  }
  return (
    <div class="alert error webhook-disabled">
      <p>
        <strong>Disabled automatically</strong> after 24 hours without a success (<Failing webhook={w} />)
      </p>
      <p>Reason: {w.disabledReason}</p>
      <p>
        Its events are still recorded (kept 7 days). Enable it once the receiver answers again: they are then delivered.
      </p>
    </div>
  );
}

interface ItemProps {
  webhook: Webhook;
  onEdit(): void;
  onToggle(): void;
  onTest(): void;
  onRotate(): void;
  onDelete(): void;
}

function WebhookItem(props: ItemProps) {
  const w = props.webhook;
  const name = nameOf(w);
  return (
    <li class="webhook-item">
      <div class="webhook-main">
        {w.description && (
          <p>
            <strong>{w.description}</strong>
          </p>
        )}
        <p class="webhook-url">
          <code>{w.url}</code>
        </p>
        <p class="hint">
          Events: {w.events.join(', ')}
          {w.events.includes('clicks') && (w.bots ? ' (with bot hits)' : ' (human clicks only)')}
        </p>
        {w.previousSecretUntil !== null && (
          <p class="hint">The previous secret signs deliveries too until {formatUtc(w.previousSecretUntil)}.</p>
        )}
        <State webhook={w} />
      </div>
      <div class="actions webhook-actions">
        <a
          class="button small secondary"
          href={`/app/settings/webhooks/${encodeURIComponent(w.id)}`}
          aria-label={`Delivery log of ${name}`}
        >
          Delivery log
        </a>
        <button type="button" class="button small secondary" aria-label={`Edit ${name}`} onClick={props.onEdit}>
          Edit
        </button>
        <button type="button" class="button small secondary" aria-label={`Send test to ${name}`} onClick={props.onTest}>
          Send test
        </button>
        <button
          type="button"
          class="button small secondary"
          aria-label={`Rotate secret of ${name}`}
          onClick={props.onRotate}
        >
          Rotate secret
        </button>
        <button
          type="button"
          class="button small secondary"
          aria-label={`${w.active ? 'Disable' : 'Enable'} ${name}`}
          onClick={props.onToggle}
        >
          {w.active ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="button small danger" aria-label={`Delete ${name}`} onClick={props.onDelete}>
          Delete
        </button>
      </div>
    </li>
  );
}

export function WebhooksPage() {
  const webhooks = useResource(listWebhooks, []);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [rotated, setRotated] = useState<string | null>(null);
  const action = useAction();
  const [done, setDone] = useState('');
  const items = webhooks.data?.items ?? [];

  const toggle = async (w: Webhook) => {
    setDone('');
    if (!(await action.run(() => updateWebhook(w.id, { active: !w.active })))) return;
    setDone(
      w.active
        ? `Disabled ${nameOf(w)}: nothing is sent to it until it is enabled; its events are kept for it.`
        : `Enabled ${nameOf(w)}: what was kept for it is delivered now.`,
    );
    webhooks.reload();
  };
  const test = async (w: Webhook) => {
    setDone('');
    if (!(await action.run(() => sendTestEvent(w.id)))) return;
    setDone(`Sent a test event to ${nameOf(w)}: its delivery log shows how the receiver answered.`);
  };
  const rotate = async (w: Webhook) => {
    setDone('');
    const got: { secret?: string } = {};
    const ok = await action.run(async () => {
      got.secret = (await rotateWebhookSecret(w.id)).secret;
    });
    setRotating(null);
    if (!ok || got.secret === undefined) return;
    setRotated(got.secret);
    webhooks.reload();
  };
  const remove = async (w: Webhook) => {
    setDone('');
    const deleted = await action.run(() => deleteWebhook(w.id));
    setDeleting(null);
    if (deleted) setDone(`Deleted ${nameOf(w)}.`);
    webhooks.reload();
  };

  return (
    <SettingsFrame title="Webhooks">
      <p>
        A webhook POSTs each event to a URL as it happens: links created, changed or deleted, and clicks. Every delivery
        is signed with the webhook's secret, and failed ones are tried again for 24 hours.
      </p>
      <p>
        <button type="button" class="button primary" onClick={() => setEditing('new')}>
          Create webhook
        </button>
      </p>
      <StatusLine text={done} />
      <ResourceStatus resource={webhooks} action={action} />
      {webhooks.data && items.length === 0 && (
        <EmptyState title="No webhooks">
          <p>Create one to have links and clicks sent to another service as they happen.</p>
        </EmptyState>
      )}
      {items.length > 0 && (
        <ul class="webhook-list">
          {items.map((w) => (
            <WebhookItem
              key={w.id}
              webhook={w}
              onEdit={() => setEditing(w)}
              onToggle={() => toggle(w)}
              onTest={() => test(w)}
              onRotate={() => setRotating(w)}
              onDelete={() => setDeleting(w)}
            />
          ))}
        </ul>
      )}
      <WebhookDialog
        open={editing !== null}
        webhook={editing === 'new' ? null : editing}
        onSaved={() => webhooks.reload()}
        onClose={() => setEditing(null)}
      />
      <ConfirmDialog
        open={rotating !== null}
        title={rotating ? `Rotate the secret of ${nameOf(rotating)}?` : 'Rotate the secret?'}
        confirm="Rotate secret"
        onConfirm={() => (rotating ? rotate(rotating) : undefined)}
        onCancel={() => setRotating(null)}
      >
        <p>
          A new signing secret is made and shown once. For 24 hours every delivery is signed with both the new and the
          current secret, so the receiver can switch over without refusing any; then only the new one signs.
        </p>
      </ConfirmDialog>
      <Dialog open={rotated !== null} title="New signing secret" onClose={() => setRotated(null)}>
        {rotated !== null && <SecretShown secret={rotated} onClose={() => setRotated(null)} />}
      </Dialog>
      <ConfirmDialog
        open={deleting !== null}
        title={deleting ? `Delete ${nameOf(deleting)}?` : 'Delete webhook?'}
        confirm="Delete webhook"
        onConfirm={() => (deleting ? remove(deleting) : undefined)}
        onCancel={() => setDeleting(null)}
      >
        <p>Nothing more is delivered to it, and what is still pending is dropped. This cannot be undone.</p>
      </ConfirmDialog>
    </SettingsFrame>
  );
}
