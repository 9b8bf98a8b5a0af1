/**
 * A link's social preview: what Slack, X, Facebook, LinkedIn and the like show for the short
 * link instead of following it. All three fields empty (or Remove preview) means none. A
 * password wins over it (the redirect never shows a protected link's card): the fields say so
 * whenever a card is filled in and the link has, or is about to be saved with, a password.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import type { Preview } from '../../api/types';
import { Field, TextAreaField } from '../../components/field';
import { errorFor } from '../../components/form-error';
import { previewFrom } from '../../lib/link-changes';

export interface PreviewState {
  title: string;
  setTitle(value: string): void;
  description: string;
  setDescription(value: string): void;
  image: string;
  setImage(value: string): void;
  sent: Preview | null;
  /** Show these values (the saved preview after a save; null empties the fields). */
  reset(preview: Preview | null): void;
}

export function usePreview(initial: Preview | null): PreviewState {
  const [title, setTitle] = useState(initial?.title ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [image, setImage] = useState(initial?.image ?? '');
  return {
    title,
    setTitle,
    description,
    setDescription,
    image,
    setImage,
    sent: previewFrom(title, description, image),
    reset(preview) {
      setTitle(preview?.title ?? '');
      setDescription(preview?.description ?? '');
      setImage(preview?.image ?? '');
    },
  };
}

export interface PreviewFieldsProps {
  state: PreviewState;
  error: ApiError | null;
  /** The link has a password, or will have one once saved: the password wins over the card. */
  passwordSet: boolean;
}

export function PreviewFields({ state, error, passwordSet }: PreviewFieldsProps) {
  const filled = state.sent !== null;
  return (
    <fieldset class="stack">
      <legend>Social preview</legend>
      <p class="hint">
        What chat apps and social networks show for the short link (their crawlers get this card instead of the
        redirect, counted as bot hits). Empty: they follow the redirect.
      </p>
      {passwordSet && filled && (
        <p class="hint" role="note">
          <span class="warning">
            The password wins: while the link has one, crawlers get the password form like everyone, never this card (it
            would tell what the password guards). The card is kept and shown again once the password is removed.
          </span>
        </p>
      )}
      {error?.field === 'preview' && <p class="field-error">{error.message}</p>}
      <Field
        label="Preview heading"
        value={state.title}
        onValue={state.setTitle}
        error={errorFor(error, 'preview.title')}
      />
      <TextAreaField
        label="Preview description"
        rows={3}
        wrap
        value={state.description}
        onValue={state.setDescription}
        error={errorFor(error, 'preview.description')}
      />
      <Field
        label="Preview image URL"
        inputMode="url"
        spellcheck={false}
        placeholder="https://example.com/card.png"
        value={state.image}
        onValue={state.setImage}
        error={errorFor(error, 'preview.image')}
      />
      {filled && (
        <div class="actions start">
          <button type="button" class="button small secondary" onClick={() => state.reset(null)}>
            Remove preview
          </button>
        </div>
      )}
    </fieldset>
  );
}
