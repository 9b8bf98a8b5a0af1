/**
 * A link's password: whether one is set (it is never shown, nor sent back by the API), a new one
 * to set or change it, and removing it. Nothing changes until the form is saved.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import type { Link } from '../../api/types';
import { Field } from '../../components/field';
import { errorFor } from '../../components/form-error';

export interface PasswordState {
  value: string;
  setValue(value: string): void;
  removing: boolean;
  setRemoving(value: boolean): void;
  /** undefined: leave it; a string: set it; null: remove it. */
  sent: string | null | undefined;
  /** After a save: the typed password is gone from the page. */
  clear(): void;
}

export function usePassword(): PasswordState {
  const [value, setValue] = useState('');
  const [removing, setRemoving] = useState(false);
  return {
    value,
    setValue,
    removing,
    setRemoving,
    sent: removing ? null : value === '' ? undefined : value,
    clear() {
      setValue('');
      setRemoving(false);
    },
  };
}

/** Whether the link has a password once the form is saved as it stands (the one it has, or one typed). */
export function passwordAfterSave(link: Pick<Link, 'passwordProtected'>, state: PasswordState): boolean {
  return !state.removing && (link.passwordProtected || state.value !== '');
}

export function PasswordFields({
  link,
  state,
  error,
}: {
  link: Pick<Link, 'passwordProtected'>;
  state: PasswordState;
  error: ApiError | null;
}) {
  const protectedNow = link.passwordProtected;
  return (
    <fieldset class="stack">
      <legend>Password</legend>
      <p class="hint" role="status">
        {state.removing
          ? 'The password will be removed when you save: the short link will redirect without asking.'
          : protectedNow
            ? 'Protected: visitors type the password before they are sent on.'
            : 'Not protected: the short link redirects without asking.'}
      </p>
      {!state.removing && (
        <Field
          label={protectedNow ? 'New password' : 'Set a password'}
          type="password"
          autoComplete="new-password"
          spellcheck={false}
          hint={
            protectedNow ? '8 to 128 characters. Empty: keep the current one.' : '8 to 128 characters. Empty: none.'
          }
          value={state.value}
          onValue={state.setValue}
          error={errorFor(error, 'password')}
        />
      )}
      {protectedNow && (
        <div class="actions start">
          <button type="button" class="button small secondary" onClick={() => state.setRemoving(!state.removing)}>
            {state.removing ? 'Keep the password' : 'Remove password'}
          </button>
        </div>
      )}
    </fieldset>
  );
}
