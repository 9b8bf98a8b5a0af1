/** The Email and Password fields of sign-in, first-run setup and a new account. */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client';
import { useSubmit } from '../lib/hooks';
import { Field } from './field';
import { errorFor, FormError } from './form-error';

export interface CredentialsFieldsProps {
  email: string;
  onEmail(value: string): void;
  password: string;
  onPassword(value: string): void;
  error: ApiError | null;
  /** Signing in; choosing one's own first password; or creating someone else's account. */
  purpose: 'sign-in' | 'new-own' | 'new-other';
  passwordHint?: string;
}

export function CredentialsFields(props: CredentialsFieldsProps) {
  return (
    <>
      <Field
        label="Email"
        type="email"
        autoComplete={props.purpose === 'new-other' ? 'off' : 'username'}
        required
        value={props.email}
        onValue={props.onEmail}
        error={errorFor(props.error, 'email')}
      />
      <Field
        label="Password"
        type="password"
        autoComplete={props.purpose === 'sign-in' ? 'current-password' : 'new-password'}
        required
        hint={props.passwordHint}
        value={props.password}
        onValue={props.onPassword}
        error={errorFor(props.error, 'password')}
      />
    </>
  );
}

export interface CredentialsFormProps {
  purpose: 'sign-in' | 'new-own';
  /** The button's text. */
  submit: string;
  passwordHint?: string;
  send(email: string, password: string): Promise<unknown>;
}

/** A whole email-and-password form (sign-in, first-run setup): the API's errors where they belong. */
export function CredentialsForm({ purpose, submit: label, passwordHint, send }: CredentialsFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(() => send(email, password));
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['email', 'password']} />
      <CredentialsFields
        purpose={purpose}
        passwordHint={passwordHint}
        email={email}
        onEmail={setEmail}
        password={password}
        onPassword={setPassword}
        error={error}
      />
      <button type="submit" class="button primary wide" disabled={busy} aria-busy={busy}>
        {label}
      </button>
    </form>
  );
}
