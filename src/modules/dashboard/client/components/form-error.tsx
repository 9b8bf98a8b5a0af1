/**
 * A form's API error: shown next to the field it names when the form has that field, else at
 * the top of the form as an alert (sign-in failures, rate limits, network errors).
 */
import type { ApiError } from '../api/client';

/** The message to show under `field`, if the error is about it. */
export const errorFor = (error: ApiError | null, field: string): string | null =>
  error && error.field === field ? error.message : null;

/** `fields`: the fields the form shows errors under (a list, or a test for forms with many). */
export function FormError({
  error,
  fields,
}: {
  error: ApiError | null;
  fields: string[] | ((field: string) => boolean);
}) {
  const shown = typeof fields === 'function' ? fields : (field: string) => fields.includes(field);
  if (!error || (error.field !== null && shown(error.field))) return null;
  return (
    <p class="alert error" role="alert">
      {error.message}
    </p>
  );
}
