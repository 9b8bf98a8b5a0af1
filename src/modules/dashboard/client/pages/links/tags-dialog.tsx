/**
 * Tags for every selected link: tags to add (typed, comma-separated) and, ticked from those the
 * selected links carry, tags to remove. Each link keeps its other tags; one request does it all.
 */
import { useState } from 'preact/hooks';
import type { Link } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { splitList } from '../../lib/format';
import { useSubmit } from '../../lib/hooks';
import { type BulkResult, runTags } from './bulk-verbs';
import { linksText } from './outcome';

export interface TagsDialogProps {
  open: boolean;
  links: Link[];
  onDone(result: BulkResult): void;
  onCancel(): void;
}

function TagsForm({ links, onDone, onCancel }: Omit<TagsDialogProps, 'open'>) {
  const [add, setAdd] = useState('');
  const [remove, setRemove] = useState<string[]>([]);
  const carried = [...new Set(links.flatMap((l) => l.tags))].sort();
  const { busy, error, submit } = useSubmit(async () => {
    onDone(
      await runTags(
        links.map((l) => l.id),
        splitList(add),
        remove,
      ),
    );
  });
  const toggle = (tag: string, on: boolean) =>
    setRemove((before) => (on ? [...before, tag] : before.filter((t) => t !== tag)));
  const removeError = errorFor(error, 'remove');
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['add', 'remove']} />
      <Field
        label="Add tags"
        hint="Separated by commas. Each link keeps its other tags."
        value={add}
        onValue={setAdd}
        error={errorFor(error, 'add')}
      />
      {carried.length > 0 ? (
        <fieldset class="choices" aria-invalid={removeError ? true : undefined}>
          <legend>Remove tags</legend>
          {carried.map((tag) => (
            <label key={tag}>
              <input
                type="checkbox"
                checked={remove.includes(tag)}
                onChange={(e) => toggle(tag, e.currentTarget.checked)}
              />
              {tag}
            </label>
          ))}
          {removeError && <p class="field-error">{removeError}</p>}
        </fieldset>
      ) : (
        <p class="hint">The selected links have no tags to remove.</p>
      )}
      <FormActions submit="Change tags" busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function TagsDialog({ open, onCancel, ...rest }: TagsDialogProps) {
  return (
    <Dialog open={open} title={`Tags of ${linksText(rest.links.length)}`} onClose={onCancel}>
      <TagsForm onCancel={onCancel} {...rest} />
    </Dialog>
  );
}
