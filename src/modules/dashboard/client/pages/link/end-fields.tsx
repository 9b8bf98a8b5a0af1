/**
 * When a link ends: its expiry and its click limit, side by side, each hint saying what visitors
 * get afterwards for the fallback address typed in the same form (the 410 page, or the fallback).
 * Shared by New link and the link page's Details, so both say it the same way.
 */
import type { ApiError } from '../../api/client';
import { Field } from '../../components/field';
import { errorFor } from '../../components/form-error';
import { endedHint } from '../../lib/link-state';

export interface EndFieldsProps {
  expires: string;
  onExpires(value: string): void;
  limit: string;
  onLimit(value: string): void;
  /** The fallback address as typed in the form. */
  fallback: string;
  error: ApiError | null;
}

export function EndFields({ expires, onExpires, limit, onLimit, fallback, error }: EndFieldsProps) {
  return (
    <div class="row">
      <Field
        label="Expires (UTC)"
        type="datetime-local"
        hint={`Empty: never. After it, ${endedHint(fallback)}.`}
        value={expires}
        onValue={onExpires}
        error={errorFor(error, 'expiresAt')}
      />
      <Field
        label="Click limit"
        type="number"
        min={1}
        hint={`Empty: no limit. Once reached, ${endedHint(fallback)}.`}
        value={limit}
        onValue={onLimit}
        error={errorFor(error, 'clickLimit')}
      />
    </div>
  );
}
