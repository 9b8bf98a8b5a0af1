/**
 * How a link redirects: the status it answers with, whether the visitor's query goes along, and
 * where it sends visitors once expired or at its click limit. Permanent statuses warn where they
 * are chosen: a browser that cached one never asks Slink again, so its clicks go uncounted.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import type { Link, RedirectStatus } from '../../api/types';
import { CheckboxField, Field, SelectField } from '../../components/field';
import { errorFor } from '../../components/form-error';
import { withScheme } from '../../lib/destination';

const STATUSES: { value: RedirectStatus; label: string }[] = [
  { value: 302, label: '302 Found (temporary, the default)' },
  { value: 307, label: '307 Temporary Redirect' },
  { value: 301, label: '301 Moved Permanently' },
  { value: 308, label: '308 Permanent Redirect' },
];

const NEW_LINK_OPTIONS = { redirectStatus: 302, forwardQuery: false, fallbackUrl: null } as const;

export interface RedirectOptionsState {
  status: RedirectStatus;
  setStatus(value: RedirectStatus): void;
  forward: boolean;
  setForward(value: boolean): void;
  fallback: string;
  setFallback(value: string): void;
  sent: { redirectStatus: RedirectStatus; forwardQuery: boolean; fallbackUrl: string | null };
}

/** The options as `link` has them (a new link: 302, no query forwarded, no fallback). */
export function useRedirectOptions(
  link: Pick<Link, 'redirectStatus' | 'forwardQuery' | 'fallbackUrl'> = NEW_LINK_OPTIONS,
): RedirectOptionsState {
  const [status, setStatus] = useState<RedirectStatus>(link.redirectStatus);
  const [forward, setForward] = useState(link.forwardQuery);
  const [fallback, setFallback] = useState(link.fallbackUrl ?? '');
  const trimmed = fallback.trim();
  return {
    status,
    setStatus,
    forward,
    setForward,
    fallback,
    setFallback,
    sent: { redirectStatus: status, forwardQuery: forward, fallbackUrl: trimmed === '' ? null : withScheme(trimmed) },
  };
}

const permanent = (status: RedirectStatus) => status === 301 || status === 308;

export function RedirectFields({ state, error }: { state: RedirectOptionsState; error: ApiError | null }) {
  return (
    <fieldset class="stack">
      <legend>Redirect</legend>
      <SelectField
        label="Redirect status"
        value={String(state.status)}
        onValue={(value) => state.setStatus(Number(value) as RedirectStatus)}
        options={STATUSES.map((s) => ({ value: String(s.value), label: s.label }))}
        error={errorFor(error, 'redirectStatus')}
        hint={
          permanent(state.status) ? (
            <span class="warning">
              Browsers cache a {state.status}: later clicks from the same browser may go straight to the destination
              without reaching Slink, and are then not counted.
            </span>
          ) : (
            'Browsers ask Slink on every click, so every click is counted. 301 and 308 are cached by browsers.'
          )
        }
      />
      <CheckboxField
        label="Forward the visitor's query"
        checked={state.forward}
        onChecked={state.setForward}
        hint="Adds the short link's ?query to the destination; keys the destination or its parameters set keep their value."
      />
      <Field
        label="Fallback address"
        inputMode="url"
        spellcheck={false}
        placeholder="https://example.com/offer-ended"
        hint="Where visitors go once the link has expired or reached its click limit. Empty: the 410 page."
        value={state.fallback}
        onValue={state.setFallback}
        onBlur={() => state.setFallback(withScheme(state.fallback))}
        error={errorFor(error, 'fallbackUrl')}
      />
    </fieldset>
  );
}
