/**
 * Adding a short domain (admins): its origin, then what to set up outside Slink for it to answer
 * (DomainSteps), shown right away in the same dialog.
 */
import { useState } from 'preact/hooks';
import { addDomain } from '../../api/domains';
import type { Domain } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { withScheme } from '../../lib/destination';
import { useSubmit } from '../../lib/hooks';
import { DomainSteps } from './domain-steps';

interface AddDomainProps {
  appHost: string | null;
  onAdded(domain: Domain): void;
  onClose(): void;
}

function AddDomainForm({ appHost, onAdded, onClose }: AddDomainProps) {
  const [origin, setOrigin] = useState('');
  const [added, setAdded] = useState<Domain | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    // A host typed alone is taken as https://, as destinations are, and the field shows it so.
    const completed = withScheme(origin).trim();
    setOrigin(completed);
    const domain = await addDomain(completed);
    setAdded(domain);
    onAdded(domain);
  });

  if (added) {
    return (
      <div class="stack">
        <p class="alert notice" role="status">
          Added <code>{added.host}</code>. Its short links will start with <code>{added.origin}/</code>. To make it
          answer:
        </p>
        <DomainSteps domain={added} appHost={appHost} />
        <div class="actions">
          <button type="button" class="button primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    );
  }
  return (
    <form class="stack" noValidate onSubmit={submit}>
      <FormError error={error} fields={['origin']} />
      <Field
        label="Origin"
        hint="What its short links start with: https:// and the domain, such as https://go.example.com (a port if it needs one, no path)."
        value={origin}
        onValue={setOrigin}
        onBlur={() => setOrigin(withScheme(origin))}
        inputMode="url"
        spellcheck={false}
        autoComplete="off"
        error={errorFor(error, 'origin')}
      />
      <FormActions submit="Add domain" busy={busy} onCancel={onClose} />
    </form>
  );
}

export function AddDomainDialog({ open, ...rest }: AddDomainProps & { open: boolean }) {
  return (
    <Dialog open={open} title="Add a domain" onClose={rest.onClose}>
      <AddDomainForm {...rest} />
    </Dialog>
  );
}
