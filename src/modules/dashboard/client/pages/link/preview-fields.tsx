/**
 * A link's social preview: what Slack, X, Facebook, LinkedIn and the like show for the short
 * link instead of following it. All three fields empty (or Remove preview) means none.
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

export function PreviewFields({ state, error }: { state: PreviewState; error: ApiError | null }) {
  const filled = state.sent !== null;
  return (
    <fieldset class="stack">
      <legend>Social preview</legend>
      <p class="hint">
        What chat apps and social networks show for the short link (their crawlers get this card instead of the
        redirect, counted as bot hits). Empty: they follow the redirect.
      </p>
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
