/**
 * A destination field tied to a parameters editor: when a URL is pasted (or the field is left,
 * or the form sent), its utm_ keys move out of the address into the editor's rows, visibly,
 * by the same rule the server applies (the server would move them anyway; here it shows).
 */
import { useRef, useState } from 'preact/hooks';
import { liftUtm, type ParamRow, withParams } from '../lib/params';
import { Field } from './field';
import { ParamsEditor } from './params-editor';

export interface DestinationState {
  destination: string;
  setDestination(value: string): void;
  rows: ParamRow[];
  setRows(rows: ParamRow[]): void;
  notice: string | null;
  /** Lifts utm_ keys out of `text` (default: the field's value); returns what to send. */
  lift(text?: string): { destination: string; rows: ParamRow[] };
}

export function useDestination(initial: string, initialRows: ParamRow[]): DestinationState {
  const [destination, setDestination] = useState(initial);
  const [rows, setRows] = useState(initialRows);
  const [notice, setNotice] = useState<string | null>(null);
  const lift = (text: string = destination) => {
    const lifted = liftUtm(text);
    if (!lifted) return { destination: text, rows };
    const next = withParams(rows, lifted.utm);
    setDestination(lifted.destination);
    setRows(next);
    setNotice(`Moved ${Object.keys(lifted.utm).join(', ')} from the address into the tracking parameters.`);
    return { destination: lifted.destination, rows: next };
  };
  return { destination, setDestination, rows, setRows, notice, lift };
}

export function DestinationField({ state, error }: { state: DestinationState; error: string | null }) {
  const pasted = useRef(false);
  const onValue = (value: string) => {
    state.setDestination(value);
    if (!pasted.current) return;
    pasted.current = false;
    // The pasted text is not in state yet: lift from the value itself.
    state.lift(value);
  };
  return (
    <Field
      label="Destination"
      type="url"
      inputMode="url"
      required
      placeholder="https://example.com/page"
      value={state.destination}
      onValue={onValue}
      onPaste={() => {
        pasted.current = true;
      }}
      onBlur={() => state.lift()}
      error={error}
    />
  );
}

/** The tracking parameters that go with a destination field (where lifted utm_ keys land). */
export function DestinationParams({ state, error }: { state: DestinationState; error: string | null }) {
  return (
    <ParamsEditor
      legend="Tracking parameters"
      rows={state.rows}
      onRows={state.setRows}
      notice={state.notice}
      error={error}
    />
  );
}
