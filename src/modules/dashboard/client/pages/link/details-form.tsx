/**
 * A link's editable fields, all saved by one button: its address and filing, how it redirects,
 * its password, its social preview and its rules. Only what changed is sent (PATCH changes
 * exactly the fields it is given); the API's error appears under the field it names, down to a
 * rule's condition. A new slug waits for the person to confirm it (SlugChangeDialog: the old
 * address stops working). A failed Save takes the person to the first field in error and says so
 * beside the button; leaving with unsaved edits asks first.
 */
import { useState } from 'preact/hooks';
import { toApiError } from '../../api/client';
import { type LinkFields, updateLink } from '../../api/links';
import { listProjects } from '../../api/projects';
import type { Link } from '../../api/types';
import { DestinationField, DestinationParams, useDestination } from '../../components/destination-field';
import { Field, SelectField } from '../../components/field';
import { FilingFields, useFiling } from '../../components/filing-fields';
import { errorFor, FormError } from '../../components/form-error';
import { domainOptions, shortUrlOn, useDomains } from '../../lib/domains';
import { fromUtcInput, toUtcInput } from '../../lib/format';
import { useErrorFocus, useResource, useSubmit, useUnsavedGuard } from '../../lib/hooks';
import { linkChanges } from '../../lib/link-changes';
import { paramsFromRows, rowsFromParams } from '../../lib/params';
import { usePowers } from '../../lib/powers';
import { ruleErrorPlace } from '../../lib/rule-drafts';
import { useSession } from '../../session';
import { EndFields } from './end-fields';
import { PasswordFields, passwordAfterSave, usePassword } from './password-fields';
import { PreviewFields, usePreview } from './preview-fields';
import { RedirectFields, useRedirectOptions } from './redirect-fields';
import { RulesEditor, useRules } from './rules-editor';
import { SlugChangeDialog, shortUrlWith } from './slug-change-dialog';

const FIELDS = new Set([
  'destination',
  'domain',
  'title',
  'slug',
  'tags',
  'projectId',
  'expiresAt',
  'clickLimit',
  'params',
  'fallbackUrl',
  'redirectStatus',
  'password',
  'preview',
  'preview.title',
  'preview.description',
  'preview.image',
]);

/** Whether the form shows an error about `field` under a field of its own (else it is an alert on top). */
const placed = (field: string, rules: number) => {
  const rule = ruleErrorPlace(field);
  return rule ? rule.rule === null || rule.rule < rules : FIELDS.has(field);
};

export function LinkDetailsForm({ link, onSaved }: { link: Link; onSaved(link: Link): void }) {
  const { account } = useSession();
  const powers = usePowers();
  const projects = useResource(listProjects, []);
  const target = useDestination(link.destination, rowsFromParams(link.params));
  const domains = useDomains();
  const [domain, setDomain] = useState(link.domain);
  const [slug, setSlug] = useState(link.slug);
  const [title, setTitle] = useState(link.title ?? '');
  const filing = useFiling(link.tags, link.projectId);
  const [expires, setExpires] = useState(toUtcInput(link.expiresAt));
  const [limit, setLimit] = useState(link.clickLimit === null ? '' : String(link.clickLimit));
  const options = useRedirectOptions(link);
  const password = usePassword();
  const preview = usePreview(link.preview);
  const rules = useRules(link.rules);
  const [saved, setSaved] = useState(false);
  const [dirty, setDirty] = useState(false);
  useUnsavedGuard(dirty);
  const [waiting, setWaiting] = useState<LinkFields | null>(null);
  const save = async (fields: LinkFields) => {
    if (Object.keys(fields).length > 0) {
      const next = await updateLink(link.id, fields);
      onSaved(next);
      // The fields the API rewrites (utm_ keys lifted out of a rule's destination, a preview
      // trimmed) show as stored; a password is never shown again.
      if (fields.rules) rules.reset(next.rules);
      if (fields.preview !== undefined) preview.reset(next.preview);
      if (fields.password !== undefined) password.clear();
    }
    setSaved(true);
    setDirty(false);
  };
  const { busy, error, setError, submit } = useSubmit(async () => {
    const ready = target.lift();
    const fields = linkChanges(link, {
      destination: ready.destination,
      domain,
      slug: slug.trim(),
      title: title.trim() || null,
      ...filing.sent,
      expiresAt: fromUtcInput(expires),
      clickLimit: limit.trim() === '' ? null : Number(limit),
      params: paramsFromRows(ready.rows),
      ...options.sent,
      password: password.sent,
      preview: preview.sent,
      rules: rules.sent,
    });
    if (fields.slug === undefined && fields.domain === undefined) await save(fields);
    else setWaiting(fields);
  });
  const formRef = useErrorFocus<HTMLFormElement>(error);
  /** Where a change of slug or domain puts the link. */
  const nextAddress = (fields: LinkFields) => {
    const host = fields.domain ?? link.domain;
    const url =
      shortUrlOn(domains.list, host, fields.slug ?? link.slug) ?? shortUrlWith(link, fields.slug ?? link.slug);
    return { url, domain: host };
  };
  const edited = () => {
    setSaved(false);
    setDirty(true);
  };
  // A form button (add or move a rule, remove the preview or the password) edits without an input event.
  const clicked = (event: MouseEvent) => {
    if ((event.target as Element | null)?.closest?.('button[type="button"]')) edited();
  };
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
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: it only notes an edit; Enter and Space on a button click it too. */}
      <form
        class="stack"
        ref={formRef}
        noValidate
        onSubmit={submit}
        onInput={edited}
        onChange={edited}
        onClick={clicked}
      >
        {!powers.change && <p class="hint view-only-note">You can view this link; ask an admin to change it.</p>}
        {/* A viewer reads every field as it is, and can change none. */}
        <fieldset class="stack bare" disabled={!powers.change}>
          <FormError error={error} fields={(field) => placed(field, rules.drafts.length)} />
          <DestinationField state={target} error={errorFor(error, 'destination')} />
          <Field label="Title" value={title} onValue={setTitle} error={errorFor(error, 'title')} />
          {account?.superuser && domains.list.length > 1 && (
            <SelectField
              label="Domain"
              hint="Another domain gives the link a new short link: the old one stops working (you confirm first)."
              value={domain}
              onValue={setDomain}
              options={domainOptions(domains.list)}
              error={errorFor(error, 'domain')}
            />
          )}
          {account?.superuser && (
            <Field label="Slug" value={slug} onValue={setSlug} spellcheck={false} error={errorFor(error, 'slug')} />
          )}
          {powers.change && !powers.admin && (
            <p class="hint">Only admins can change a link's slug or domain (its short link).</p>
          )}
          <FilingFields state={filing} projects={projects.data?.projects ?? []} error={error} />
          <EndFields
            expires={expires}
            onExpires={setExpires}
            limit={limit}
            onLimit={setLimit}
            fallback={options.fallback}
            error={error}
          />
          <DestinationParams state={target} error={errorFor(error, 'params')} />
          <RedirectFields state={options} error={error} />
          <PasswordFields link={link} state={password} error={error} />
          <PreviewFields state={preview} error={error} passwordSet={passwordAfterSave(link, password)} />
          <RulesEditor state={rules} error={error} />
        </fieldset>
        {powers.change && (
          <div class="actions">
            <span class={error ? 'save-failed' : 'hint'} role="status">
              {saved ? 'Saved.' : error ? `Not saved: ${error.message}` : ''}
            </span>
            <button type="submit" class="button primary" disabled={busy} aria-busy={busy}>
              Save changes
            </button>
          </div>
        )}
      </form>
      <SlugChangeDialog
        link={link}
        next={waiting && nextAddress(waiting)}
        onConfirm={confirmed}
        onCancel={() => setWaiting(null)}
      />
    </section>
  );
}
