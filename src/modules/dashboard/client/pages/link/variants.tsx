/**
 * A link's variants: second addresses (<short link>/<code>) with their own parameters over the
 * link's. Removing one keeps its past clicks (they then count as an unrecognised code).
 */

import { useState } from 'preact/hooks';
import { deleteVariant } from '../../api/links';
import type { Link, Variant } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyButton } from '../../components/copy-button';
import { LoadFailed, StatusLine } from '../../components/feedback';
import { formatNumber } from '../../lib/format';
import { useAction } from '../../lib/hooks';
import { usePowers } from '../../lib/powers';
import { VariantDialog } from './variant-dialog';

const paramsText = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

export function Variants({ link, onChanged }: { link: Link; onChanged(): void }) {
  const powers = usePowers();
  const [editing, setEditing] = useState<Variant | 'new' | null>(null);
  const [removing, setRemoving] = useState<Variant | null>(null);
  const action = useAction();
  const [said, setSaid] = useState('');
  const done = () => {
    setEditing(null);
    setSaid('');
    onChanged();
  };
  const remove = async (variant: Variant) => {
    setSaid('');
    const removed = await action.run(() => deleteVariant(link.id, variant.id));
    setRemoving(null);
    if (!removed) return;
    setSaid(`Removed variant ${variant.code}.`);
    onChanged();
  };
  return (
    <section class="panel" aria-labelledby="variants-title">
      <div class="panel-head">
        <h2 id="variants-title">Variants</h2>
        {powers.change && (
          <button type="button" class="button secondary small" onClick={() => setEditing('new')}>
            Add variant
          </button>
        )}
      </div>
      {action.error && <LoadFailed error={action.error} />}
      <StatusLine text={said} />
      {link.variants.length === 0 ? (
        <p class="hint">
          No variants.
          {powers.change &&
            ' Add one to share the same destination from another place (a newsletter, a poster) and tell the clicks apart.'}
        </p>
      ) : (
        <ul class="variant-list">
          {link.variants.map((variant) => (
            <li key={variant.id} class="variant-item">
              <div class="variant-main">
                <p>
                  <code>{variant.url}</code> <CopyButton text={variant.url} what={`variant ${variant.code} address`} />
                </p>
                <p class="hint">
                  {formatNumber(variant.clickCount)} clicks
                  {Object.keys(variant.params).length > 0 && ` · ${paramsText(variant.params)}`}
                </p>
              </div>
              {powers.change && (
                <div class="actions start">
                  <button
                    type="button"
                    class="button small secondary"
                    onClick={() => setEditing(variant)}
                    aria-label={`Edit variant ${variant.code}`}
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    class="button small secondary"
                    onClick={() => setRemoving(variant)}
                    aria-label={`Remove variant ${variant.code}`}
                  >
                    Remove
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <VariantDialog
        open={editing !== null}
        link={link}
        variant={editing === 'new' ? null : editing}
        onDone={done}
        onCancel={() => setEditing(null)}
      />
      <ConfirmDialog
        open={removing !== null}
        title={`Remove variant ${removing?.code ?? ''}?`}
        confirm="Remove variant"
        onConfirm={() => (removing ? remove(removing) : undefined)}
        onCancel={() => setRemoving(null)}
      >
        <p>Its address stops being a variant; past clicks stay in the statistics as an unrecognised code.</p>
      </ConfirmDialog>
    </section>
  );
}
