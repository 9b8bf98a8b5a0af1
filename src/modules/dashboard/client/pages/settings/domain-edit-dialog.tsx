/**
 * A domain's own answers (admins): where its root, an unknown slug and an ended link send
 * visitors, the old service its unknown slugs are asked of (read-through), and the two app-link
 * files its host serves. Only what changed is sent (one PATCH);
 * an empty field clears the value. A file that is not JSON at all is said under its field before
 * anything is sent (with the parser's words); the API judges the rest (an address, a file that
 * is JSON of the wrong shape or too large), and its message shows under the field it names.
 */
import { useState } from 'preact/hooks';
import { ApiFailure } from '../../api/client';
import { type DomainFields, updateDomain } from '../../api/domains';
import type { Domain } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field, TextAreaField } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { useErrorFocus, useSubmit } from '../../lib/hooks';

const URL_FIELDS = ['rootUrl', 'notFoundUrl', 'expiredUrl', 'upstream'] as const;
const JSON_FIELDS = ['appleAppSiteAssociation', 'assetLinks'] as const;
type Key = (typeof URL_FIELDS)[number] | (typeof JSON_FIELDS)[number];
const FIELDS: string[] = [...URL_FIELDS, ...JSON_FIELDS];

/** A stored file as the text area shows it: indented, so it reads and edits as a file. */
const jsonText = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2));

/** The file's JSON; one that does not parse fails like the API would, under its field, before any request. */
function parsed(field: Key, label: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiFailure({ code: 'invalid_json', field, status: 0, message: `${label} is not valid JSON: ${why}` });
  }
}

const LABELS: Record<(typeof JSON_FIELDS)[number], string> = {
  appleAppSiteAssociation: 'Apple app-site-association',
  assetLinks: 'Android asset links',
};

interface EditDomainProps {
  domain: Domain;
  onSaved(domain: Domain): void;
  onClose(): void;
}

function EditDomainForm({ domain, onSaved, onClose }: EditDomainProps) {
  const stored: Record<Key, string> = {
    rootUrl: domain.rootUrl ?? '',
    notFoundUrl: domain.notFoundUrl ?? '',
    expiredUrl: domain.expiredUrl ?? '',
    upstream: domain.upstream ?? '',
    appleAppSiteAssociation: jsonText(domain.appleAppSiteAssociation),
    assetLinks: jsonText(domain.assetLinks),
  };
  const [values, setValues] = useState<Record<Key, string>>(stored);
  const set = (key: Key) => (value: string) => setValues((before) => ({ ...before, [key]: value }));
  const { busy, error, submit } = useSubmit(async () => {
    const fields: Record<string, unknown> = {};
    for (const key of URL_FIELDS) {
      const value = values[key].trim();
      if (value !== stored[key]) fields[key] = value === '' ? null : value;
    }
    for (const key of JSON_FIELDS) {
      const text = values[key].trim();
      if (text === stored[key].trim()) continue;
      fields[key] = text === '' ? null : parsed(key, LABELS[key], text);
    }
    onSaved(Object.keys(fields).length > 0 ? await updateDomain(domain.host, fields as DomainFields) : domain);
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
      <Field
        label="Old service (read-through)"
        hint="The origin of the service this domain moved from, e.g. https://old.example.com. An address with no link here is asked there once; where it redirects becomes a link on this domain. Empty: not asked."
        value={values.upstream}
        onValue={set('upstream')}
        inputMode="url"
        spellcheck={false}
        error={errorFor(error, 'upstream')}
      />
      <div class="json-field">
        <TextAreaField
          label="Apple app-site-association (JSON)"
          hint={`A JSON object, served at ${at('/.well-known/apple-app-site-association')} for iOS universal links. Empty: none.`}
          rows={6}
          value={values.appleAppSiteAssociation}
          onValue={set('appleAppSiteAssociation')}
          error={errorFor(error, 'appleAppSiteAssociation')}
        />
      </div>
      <div class="json-field">
        <TextAreaField
          label="Android asset links (JSON)"
          hint={`A JSON array, served at ${at('/.well-known/assetlinks.json')} for Android app links. Empty: none.`}
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
