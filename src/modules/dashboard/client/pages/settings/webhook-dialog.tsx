/**
 * Creating or changing a webhook: its URL, description, events and whether bot hits go along.
 * A new webhook's signing secret is shown once, with a copy button; it lives only in this
 * dialog's state and is gone when the dialog closes. A change sends only the fields that differ.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import type { Webhook, WebhookEvent } from '../../api/types';
import { createWebhook, updateWebhook, type WebhookFields } from '../../api/webhooks';
import { CopyButton } from '../../components/copy-button';
import { Dialog } from '../../components/dialog';
import { CheckboxField, Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { withScheme } from '../../lib/destination';
import { useSubmit } from '../../lib/hooks';

export const EVENT_CHOICES: { value: WebhookEvent; label: string }[] = [
  { value: 'link.created', label: 'link.created: a link is created' },
  { value: 'link.updated', label: 'link.updated: a link is changed' },
  { value: 'link.deleted', label: 'link.deleted: a link is deleted' },
  { value: 'clicks', label: 'clicks: clicks were recorded (about once a second)' },
];

/** The API names `events` or one entry of it (`events[1]`): either belongs under the choices. */
const aboutEvents = (error: ApiError | null) => (error?.field?.startsWith('events') ? error.message : null);

function EventChoices(props: { value: WebhookEvent[]; onValue(v: WebhookEvent[]): void; error: string | null }) {
  const toggle = (event: WebhookEvent, on: boolean) =>
    props.onValue(EVENT_CHOICES.map((c) => c.value).filter((e) => (e === event ? on : props.value.includes(e))));
  return (
    <fieldset class="choices" aria-invalid={props.error ? true : undefined}>
      <legend>Events</legend>
      {EVENT_CHOICES.map((c) => (
        <label key={c.value}>
          <input
            type="checkbox"
            checked={props.value.includes(c.value)}
            onChange={(e) => toggle(c.value, e.currentTarget.checked)}
          />
          {c.label}
        </label>
      ))}
      {props.error && <p class="field-error">{props.error}</p>}
    </fieldset>
  );
}

/** What differs from the webhook as it is (everything, for a new one). */
function changes(webhook: Webhook | null, fields: Required<Omit<WebhookFields, 'active'>>): WebhookFields {
  if (webhook === null) return fields;
  const out: WebhookFields = {};
  if (fields.url !== webhook.url) out.url = fields.url;
  if (fields.description !== webhook.description) out.description = fields.description;
  if (fields.events.join() !== webhook.events.join()) out.events = fields.events;
  if (fields.bots !== webhook.bots) out.bots = fields.bots;
  return out;
}

/** A signing secret, shown the only time it is (a new webhook's, a rotation's), with a copy button. */
export function SecretShown({ secret, onClose }: { secret: string; onClose(): void }) {
  return (
    <div class="stack">
      <p class="alert notice">
        This is the only time the signing secret is shown: it will not be shown again. Copy it now into the receiver
        that checks the webhook-signature header.
      </p>
      <Field label="Signing secret" value={secret} onValue={() => {}} readOnly spellcheck={false} />
      <div class="actions">
        <CopyButton text={secret} what="signing secret" />
        <button type="button" class="button primary" onClick={onClose}>
          Done
        </button>
      </div>
    </div>
  );
}

interface FormProps {
  webhook: Webhook | null;
  onSaved(webhook: Webhook): void;
  onClose(): void;
}

function WebhookForm({ webhook, onSaved, onClose }: FormProps) {
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>(
    webhook?.events ?? ['link.created', 'link.updated', 'link.deleted'],
  );
  const [bots, setBots] = useState(webhook?.bots ?? false);
  const [secret, setSecret] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    const fields = { url: withScheme(url).trim(), description: description.trim() || null, events, bots };
    if (webhook === null) {
      const { secret: shown, ...created } = await createWebhook(fields);
      onSaved(created);
      setSecret(shown);
      return;
    }
    const changed = changes(webhook, fields);
    onSaved(Object.keys(changed).length > 0 ? await updateWebhook(webhook.id, changed) : webhook);
    onClose();
  });

  if (secret !== null) return <SecretShown secret={secret} onClose={onClose} />;
  return (
    <form class="stack" onSubmit={submit} noValidate>
      <FormError
        error={error}
        fields={(f) => f === 'url' || f === 'description' || f === 'bots' || f.startsWith('events')}
      />
      <Field
        label="URL"
        hint="Where each event is POSTed, signed (Standard Webhooks)."
        type="text"
        inputMode="url"
        placeholder="https://example.com/webhooks"
        value={url}
        onValue={setUrl}
        // Written without a scheme, as destinations may be: https:// is added (shown in the field).
        onBlur={() => setUrl(withScheme(url))}
        spellcheck={false}
        error={errorFor(error, 'url')}
      />
      <Field
        label="Description"
        hint="Optional: what receives it."
        value={description}
        onValue={setDescription}
        error={errorFor(error, 'description')}
      />
      <EventChoices value={events} onValue={setEvents} error={aboutEvents(error)} />
      <CheckboxField
        label="Include bot hits"
        hint="clicks events carry bot hits too; otherwise human clicks only."
        checked={bots}
        onChecked={setBots}
      />
      <FormActions submit={webhook === null ? 'Create webhook' : 'Save changes'} busy={busy} onCancel={onClose} />
    </form>
  );
}

export function WebhookDialog(props: {
  open: boolean;
  webhook: Webhook | null;
  onSaved(w: Webhook): void;
  onClose(): void;
}) {
  return (
    <Dialog open={props.open} title={props.webhook ? 'Edit webhook' : 'New webhook'} onClose={props.onClose}>
      <WebhookForm webhook={props.webhook} onSaved={props.onSaved} onClose={props.onClose} />
    </Dialog>
  );
}
