/**
 * Deleting a link. Without human clicks it goes through the public API; with clicks, its
 * statistics go too, so the person types the slug to confirm and the dashboard's own endpoint
 * does it (the public API refuses: delete_requires_dashboard).
 */
import { useState } from 'preact/hooks';
import { toApiError } from '../../api/client';
import { deleteClickedLink, deleteUnclickedLink } from '../../api/links';
import type { Link } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { formatNumber, withoutScheme } from '../../lib/format';
import { useSubmit } from '../../lib/hooks';
import { noteForNextPage } from '../../lib/next-page-note';
import { navigate } from '../../router';

function DeleteForm({ link, onCancel }: { link: Link; onCancel(): void }) {
  const [withClicks, setWithClicks] = useState(link.clickCount > 0);
  const [typed, setTyped] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    try {
      if (withClicks) await deleteClickedLink(link.id, typed);
      else await deleteUnclickedLink(link.id);
      const clicks = withClicks ? ` and its ${link.clickCount === 1 ? 'click' : 'clicks'}` : '';
      noteForNextPage(`Deleted ${withoutScheme(link.shortUrl)}${clicks}.`);
      navigate('/app', { replace: true });
    } catch (err) {
      // Clicks arrived since the page loaded: the slug confirmation is needed after all.
      if (toApiError(err).code === 'delete_requires_dashboard') setWithClicks(true);
      else throw err;
    }
  });
  return (
    <form class="stack" onSubmit={submit}>
      {withClicks ? (
        <>
          <p>
            This link has recorded {formatNumber(link.clickCount)} {link.clickCount === 1 ? 'click' : 'clicks'}.
            Deleting it deletes them and all of its statistics, for good. Archiving keeps them and hides the link.
          </p>
          <Field
            label="Type the slug to confirm"
            hint={`The slug is ${link.slug}`}
            spellcheck={false}
            autoComplete="off"
            value={typed}
            onValue={setTyped}
            error={errorFor(error, 'slug')}
          />
        </>
      ) : (
        <p>The short link stops working and cannot be brought back. It has no recorded clicks.</p>
      )}
      <FormError error={error} fields={withClicks ? ['slug'] : []} />
      <FormActions
        submit="Delete link"
        danger
        busy={busy}
        disabled={withClicks && typed !== link.slug}
        onCancel={onCancel}
      />
    </form>
  );
}

export function DeleteLink({ link }: { link: Link }) {
  const [open, setOpen] = useState(false);
  return (
    <section class="panel danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete</h2>
      <p>Deleting removes the short link for good. To stop it without losing anything, pause or archive it.</p>
      <button type="button" class="button danger" onClick={() => setOpen(true)}>
        Delete
      </button>
      <Dialog open={open} title={`Delete ${withoutScheme(link.shortUrl)}?`} onClose={() => setOpen(false)}>
        <DeleteForm link={link} onCancel={() => setOpen(false)} />
      </Dialog>
    </section>
  );
}
