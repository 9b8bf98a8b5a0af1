/** Create or edit a variant: its code (the last part of its address) and its own parameters. */
import { useState } from 'preact/hooks';
import { createVariant, updateVariant } from '../../api/links';
import type { Link, Variant } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Field } from '../../components/field';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { ParamsEditor } from '../../components/params-editor';
import { useSubmit } from '../../lib/hooks';
import { type ParamRow, paramsFromRows, rowsFromParams } from '../../lib/params';

interface VariantFormProps {
  link: Link;
  /** The variant being edited; none when creating. */
  variant: Variant | null;
  onDone(): void;
  onCancel(): void;
}

function VariantForm({ link, variant, onDone, onCancel }: VariantFormProps) {
  const [code, setCode] = useState(variant?.code ?? '');
  const [rows, setRows] = useState<ParamRow[]>(rowsFromParams(variant?.params ?? {}));
  const { busy, error, submit } = useSubmit(async () => {
    const params = paramsFromRows(rows);
    if (variant) await updateVariant(link.id, variant.id, { code: code.trim(), params });
    else await createVariant(link.id, code.trim(), params);
    onDone();
  });
  return (
    <form class="stack" onSubmit={submit}>
      <FormError error={error} fields={['code', 'params']} />
      <Field
        label="Code"
        required
        spellcheck={false}
        hint={`1 to 32 letters, digits, - or _. The variant's address is ${link.shortUrl}/${code.trim() || 'code'}`}
        value={code}
        onValue={setCode}
        error={errorFor(error, 'code')}
      />
      <ParamsEditor
        legend="Variant parameters (over the link's)"
        rows={rows}
        onRows={setRows}
        error={errorFor(error, 'params')}
      />
      <FormActions submit={variant ? 'Save variant' : 'Add variant'} busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function VariantDialog(props: VariantFormProps & { open: boolean }) {
  return (
    <Dialog
      open={props.open}
      title={props.variant ? `Edit variant ${props.variant.code}` : 'New variant'}
      onClose={props.onCancel}
    >
      <VariantForm {...props} />
    </Dialog>
  );
}
