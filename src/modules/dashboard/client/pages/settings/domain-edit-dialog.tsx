/**
 * A domain's own answers (admins): where its root, an unknown slug and an ended link send
 * visitors, and the two app-link files its host serves. Only what changed is sent (one PATCH);
 * an empty field clears the value. The API judges the addresses and the JSON, and its message
 * shows under the field it names.
 */
import { useState } from 'preact/hooks';
import { type DomainFields, updateDomain } from '../../api/domains';
import type { Domain } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field, TextAreaField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { useErrorFocus, useSubmit } from '../../lib/hooks';

type Key = keyof DomainFields;
const FIELDS: Key[] = ['rootUrl', 'notFoundUrl', 'expiredUrl', 'appleAppSiteAssociation', 'assetLinks'];

/** A stored JSON file as the text area shows it (the API keeps the text as it was given). */
const textOf = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2);

interface EditDomainProps {
  domain: Domain;
  onSaved(domain: Domain): void;
  onClose(): void;
}

function EditDomainForm({ domain, onSaved, onClose }: EditDomainProps) {
  const [values, setValues] = useState<Record<Key, string>>(() => ({
    rootUrl: textOf(domain.rootUrl),
    notFoundUrl: textOf(domain.notFoundUrl),
    expiredUrl: textOf(domain.expiredUrl),
    appleAppSiteAssociation: textOf(domain.appleAppSiteAssociation),
    assetLinks: textOf(domain.assetLinks),
  }));
  const set = (key: Key) => (value: string) => setValues((before) => ({ ...before, [key]: value }));
  const { busy, error, submit } = useSubmit(async () => {
    const fields: DomainFields = {};
    for (const key of FIELDS) {
      const value = values[key].trim();
      if (value !== textOf(domain[key]).trim()) fields[key] = value === '' ? null : value;
    }
    onSaved(Object.keys(fields).length > 0 ? await updateDomain(domain.host, fields) : domain);
  });
  const formRef = useErrorFocus<HTMLFormElement>(error);
  const at = (path: string) => `${domain.origin}${path}`;
  return (
    <form class="stack" ref={formRef} noValidate onSubmit={submit}>
      <FormError error={error} fields={FIELDS} />
      <Field
        label="Root URL"
        hint={`Where ${at('/')} sends visitors. Empty: the "Link not found" page.`}
        value={values.rootUrl}
        onValue={set('rootUrl')}
        inputMode="url"
        spellcheck={false}
        error={errorFor(error, 'rootUrl')}
      />
      <Field
        label="Not-found URL"
        hint='Where an address with no link on this domain sends visitors. Empty: the "Link not found" page.'
        value={values.notFoundUrl}
        onValue={set('notFoundUrl')}
        inputMode="url"
        spellcheck={false}
        error={errorFor(error, 'notFoundUrl')}
      />
      <Field
        label="Expired URL"
        hint='Where an expired or used-up link without its own fallback address sends visitors. Empty: the "Link no longer available" page.'
        value={values.expiredUrl}
        onValue={set('expiredUrl')}
        inputMode="url"
        spellcheck={false}
        error={errorFor(error, 'expiredUrl')}
      />
      <div class="json-field">
        <TextAreaField
          label="Apple app-site-association (JSON)"
          hint={`Served at ${at('/.well-known/apple-app-site-association')} for iOS universal links. Empty: none.`}
          rows={6}
          value={values.appleAppSiteAssociation}
          onValue={set('appleAppSiteAssociation')}
          error={errorFor(error, 'appleAppSiteAssociation')}
        />
      </div>
      <div class="json-field">
        <TextAreaField
          label="Android asset links (JSON)"
          hint={`Served at ${at('/.well-known/assetlinks.json')} for Android app links. Empty: none.`}
          rows={6}
          value={values.assetLinks}
          onValue={set('assetLinks')}
          error={errorFor(error, 'assetLinks')}
        />
      </div>
      <FormActions submit="Save changes" busy={busy} onCancel={onClose} />
    </form>
  );
}

export function EditDomainDialog({
  domain,
  onSaved,
  onClose,
}: Omit<EditDomainProps, 'domain'> & { domain: Domain | null }) {
  return (
    <Dialog open={domain !== null} title={`Edit ${domain?.host ?? 'domain'}`} onClose={onClose}>
      {domain && <EditDomainForm domain={domain} onSaved={onSaved} onClose={onClose} />}
    </Dialog>
  );
}
