/** Tracking parameters for every selected link: laid over each link's own, or replacing them. */
import { useState } from 'preact/hooks';
import { setParamsOf } from '../../api/bulk';
import { Dialog } from '../../components/dialog';
import { FormActions } from '../../components/form-actions';
import { errorFor, FormError } from '../../components/form-error';
import { ParamsEditor } from '../../components/params-editor';
import { RadioField } from '../../components/radio-field';
import { useSubmit } from '../../lib/hooks';
import { newRow, type ParamRow, paramsFromRows } from '../../lib/params';
import { linksText, type Outcome } from './outcome';

type Mode = 'merge' | 'replace';

const MODES: { value: Mode; label: string }[] = [
  { value: 'merge', label: "Add to each link's parameters (a name it has already gets the new value)" },
  { value: 'replace', label: 'Replace: each link gets exactly these parameters, no others' },
];

export interface BulkDialogProps {
  open: boolean;
  ids: string[];
  onDone(outcome: Outcome): void;
  onCancel(): void;
}

function ParamsForm({ ids, onDone, onCancel }: Omit<BulkDialogProps, 'open'>) {
  const [rows, setRows] = useState<ParamRow[]>([newRow()]);
  const [mode, setMode] = useState<Mode>('merge');
  const { busy, error, setError, submit } = useSubmit(async () => {
    const params = paramsFromRows(rows);
    const answer = await setParamsOf(ids, params, mode);
    const gone = answer.notFound.length ? ` ${linksText(answer.notFound.length)} no longer existed.` : '';
    onDone({ text: `Set the parameters of ${linksText(answer.updated)}.${gone}` });
  });
  const check = (event: Event) => {
    // Merging nothing changes nothing; replacing with nothing clears them, which is allowed.
    if (mode === 'replace' || Object.keys(paramsFromRows(rows)).length > 0) return submit(event);
    event.preventDefault();
    setError({ code: 'invalid_request', message: 'Add a parameter with a name', field: 'params', status: 0 });
  };
  return (
    <form class="stack" onSubmit={check}>
      <FormError error={error} fields={['params', 'mode']} />
      <ParamsEditor legend="Parameters" rows={rows} onRows={setRows} error={errorFor(error, 'params')} />
      <RadioField<Mode> legend="How" name="mode" value={mode} onValue={setMode} options={MODES} />
      <FormActions submit="Set parameters" busy={busy} onCancel={onCancel} />
    </form>
  );
}

export function ParamsDialog({ open, onCancel, ...rest }: BulkDialogProps) {
  return (
    <Dialog open={open} title={`Set parameters of ${linksText(rest.ids.length)}`} onClose={onCancel}>
      <ParamsForm onCancel={onCancel} {...rest} />
    </Dialog>
  );
}
