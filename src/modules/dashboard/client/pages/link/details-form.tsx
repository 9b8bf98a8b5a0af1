/**
 * A link's editable fields. Only what changed is sent (PATCH changes exactly the fields it is
 * given); the API's error appears under the field it names.
 */
import { useState } from 'preact/hooks';
import { type LinkFields, updateLink } from '../../api/links';
import { listProjects } from '../../api/projects';
import type { Link } from '../../api/types';
import { DestinationField, DestinationParams, useDestination } from '../../components/destination-field';
import { Field } from '../../components/field';
import { FilingFields, useFiling } from '../../components/filing-fields';
import { errorFor, FormError } from '../../components/form-error';
import { fromLocalInput, toLocalInput } from '../../lib/format';
import { useResource, useSubmit } from '../../lib/hooks';
import { paramsFromRows, rowsFromParams } from '../../lib/params';
import { useSession } from '../../session';

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
  const [expires, setExpires] = useState(toLocalInput(link.expiresAt));
  const [limit, setLimit] = useState(link.clickLimit === null ? '' : String(link.clickLimit));
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    const ready = target.lift();
    const fields = changes(link, {
      destination: ready.destination,
      slug: slug.trim(),
      title: title.trim() || null,
      ...filing.sent,
      expiresAt: fromLocalInput(expires),
      clickLimit: limit.trim() === '' ? null : Number(limit),
      params: paramsFromRows(ready.rows),
    });
    if (Object.keys(fields).length > 0) onSaved(await updateLink(link.id, fields));
    setSaved(true);
  });

  return (
    <section class="panel" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <form class="stack" onSubmit={submit} onInput={() => setSaved(false)}>
        <FormError error={error} fields={FIELDS} />
        <DestinationField state={target} error={errorFor(error, 'destination')} />
        <Field label="Title" value={title} onValue={setTitle} error={errorFor(error, 'title')} />
        {account?.superuser && (
          <Field label="Slug" value={slug} onValue={setSlug} spellcheck={false} error={errorFor(error, 'slug')} />
        )}
        <FilingFields state={filing} projects={projects.data?.projects ?? []} error={error} />
        <div class="row">
          <Field
            label="Expires"
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
    </section>
  );
}
