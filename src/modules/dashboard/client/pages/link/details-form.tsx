/**
 * A link's editable fields. Only what changed is sent (PATCH changes exactly the fields it is
 * given); the API's error appears under the field it names. A new slug waits for the person to
 * confirm it (SlugChangeDialog: the old address stops working).
 */
import { useState } from 'preact/hooks';
import { toApiError } from '../../api/client';
import { type LinkFields, updateLink } from '../../api/links';
import { listProjects } from '../../api/projects';
import type { Link } from '../../api/types';
import { DestinationField, DestinationParams, useDestination } from '../../components/destination-field';
import { Field } from '../../components/field';
import { FilingFields, useFiling } from '../../components/filing-fields';
import { errorFor, FormError } from '../../components/form-error';
import { fromUtcInput, toUtcInput } from '../../lib/format';
import { useResource, useSubmit } from '../../lib/hooks';
import { paramsFromRows, rowsFromParams } from '../../lib/params';
import { useSession } from '../../session';
import { SlugChangeDialog } from './slug-change-dialog';

const FIELDS = ['destination', 'title', 'slug', 'tags', 'projectId', 'expiresAt', 'clickLimit', 'params'];

/** The fields whose value differs from the link's, as PATCH wants them. */
function changes(link: Link, next: Required<Omit<LinkFields, 'status'>>): LinkFields {
  const out: LinkFields = {};
  if (next.destination !== link.destination) out.destination = next.destination;
  if (next.slug !== link.slug) out.slug = next.slug;
  if (next.title !== link.title) out.title = next.title;
  if (next.tags.join('\n') !== link.tags.join('\n')) out.tags = next.tags;
  if (next.projectId !== link.projectId) out.projectId = next.projectId;
  if (next.expiresAt !== link.expiresAt) out.expiresAt = next.expiresAt;
  if (next.clickLimit !== link.clickLimit) out.clickLimit = next.clickLimit;
  if (JSON.stringify(next.params) !== JSON.stringify(link.params)) out.params = next.params;
  return out;
}

export function LinkDetailsForm({ link, onSaved }: { link: Link; onSaved(link: Link): void }) {
  const { account } = useSession();
  const projects = useResource(listProjects, []);
  const target = useDestination(link.destination, rowsFromParams(link.params));
  const [slug, setSlug] = useState(link.slug);
  const [title, setTitle] = useState(link.title ?? '');
  const filing = useFiling(link.tags, link.projectId);
  const [expires, setExpires] = useState(toUtcInput(link.expiresAt));
  const [limit, setLimit] = useState(link.clickLimit === null ? '' : String(link.clickLimit));
  const [saved, setSaved] = useState(false);
  const [waiting, setWaiting] = useState<LinkFields | null>(null);
  const save = async (fields: LinkFields) => {
    if (Object.keys(fields).length > 0) onSaved(await updateLink(link.id, fields));
    setSaved(true);
  };
  const { busy, error, setError, submit } = useSubmit(async () => {
    const ready = target.lift();
    const fields = changes(link, {
      destination: ready.destination,
      slug: slug.trim(),
      title: title.trim() || null,
      ...filing.sent,
      expiresAt: fromUtcInput(expires),
      clickLimit: limit.trim() === '' ? null : Number(limit),
      params: paramsFromRows(ready.rows),
    });
    if (fields.slug === undefined) await save(fields);
    else setWaiting(fields);
  });
  const confirmed = async () => {
    try {
      if (waiting) await save(waiting);
    } catch (err) {
      setError(toApiError(err));
    }
    setWaiting(null);
  };

  return (
    <section class="panel" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      {/* noValidate: the API judges every field, and its message shows under the field, never a browser bubble. */}
      <form class="stack" noValidate onSubmit={submit} onInput={() => setSaved(false)}>
        <FormError error={error} fields={FIELDS} />
        <DestinationField state={target} error={errorFor(error, 'destination')} />
        <Field label="Title" value={title} onValue={setTitle} error={errorFor(error, 'title')} />
        {account?.superuser && (
          <Field label="Slug" value={slug} onValue={setSlug} spellcheck={false} error={errorFor(error, 'slug')} />
        )}
        <FilingFields state={filing} projects={projects.data?.projects ?? []} error={error} />
        <div class="row">
          <Field
            label="Expires (UTC)"
            type="datetime-local"
            hint="Empty: never. After it the short link answers 410."
            value={expires}
            onValue={setExpires}
            error={errorFor(error, 'expiresAt')}
          />
          <Field
            label="Click limit"
            type="number"
            min={1}
            hint="Empty: no limit."
            value={limit}
            onValue={setLimit}
            error={errorFor(error, 'clickLimit')}
          />
        </div>
        <DestinationParams state={target} error={errorFor(error, 'params')} />
        <div class="actions">
          <span class="hint" role="status">
            {saved ? 'Saved.' : ''}
          </span>
          <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
            Save changes
          </button>
        </div>
      </form>
      <SlugChangeDialog
        link={link}
        slug={waiting?.slug ?? null}
        onConfirm={confirmed}
        onCancel={() => setWaiting(null)}
      />
    </section>
  );
}
