/**
 * A destination field tied to a parameters editor. An address without a scheme is taken as
 * https:// (shown in the field), and a URL's utm_ keys move out of the address into the
 * editor's rows, visibly, by the same rule the server applies (the server would move them
 * anyway; here it shows).
 *
 * When: a whole address arriving at once (pasted, dropped, autofilled, filled in by a tool) is
 * completed and lifted as it arrives, while the pointer is still elsewhere; a typed one is
 * lifted when the form is sent. Never on leaving the field: the moved keys add rows that push
 * the form's buttons down, and a blur caused by pressing Create would move Create from under
 * the pointer and lose the click. Leaving the field only completes the scheme, which changes
 * the field's text and nothing else on the page.
 */
import { useState } from 'preact/hooks';
import { withScheme } from '../lib/destination';
import { liftUtm, type ParamRow, withParams } from '../lib/params';
import { Field, type InputHow } from './field';
import { ParamsEditor } from './params-editor';

export interface DestinationState {
  destination: string;
  setDestination(value: string): void;
  rows: ParamRow[];
  setRows(rows: ParamRow[]): void;
  notice: string | null;
  /** Completes the scheme of `text` (default: the field's value) and lifts its utm_ keys; returns what to send. */
  lift(text?: string): { destination: string; rows: ParamRow[] };
  /** Completes the scheme of the field's value, in place. */
  complete(): void;
}

export function useDestination(initial: string, initialRows: ParamRow[]): DestinationState {
  const [destination, setDestination] = useState(initial);
  const [rows, setRows] = useState(initialRows);
  const [notice, setNotice] = useState<string | null>(null);
  const lift = (text: string = destination) => {
    const full = withScheme(text);
    const lifted = liftUtm(full);
    if (!lifted) {
      setDestination(full);
      return { destination: full, rows };
    }
    const next = withParams(rows, lifted.utm);
    setDestination(lifted.destination);
    setRows(next);
    setNotice(`Moved ${Object.keys(lifted.utm).join(', ')} from the address into the tracking parameters.`);
    return { destination: lifted.destination, rows: next };
  };
  const complete = () => setDestination(withScheme(destination));
  return { destination, setDestination, rows, setRows, notice, lift, complete };
}

const WHOLE = new Set(['insertFromPaste', 'insertFromPasteAsQuotation', 'insertFromDrop', 'insertReplacementText', '']);

/** An edit that brought a whole address (or most of one) at once, not a typed character. */
const wholeAddress = ({ inputType, data }: InputHow) =>
  WHOLE.has(inputType) || (inputType === 'insertText' && (data?.length ?? 0) > 1);

export function DestinationField({ state, error }: { state: DestinationState; error: string | null }) {
  return (
    // A text field with the URL keyboard, not type="url": the browser's own verdict (and its
    // bubble) would come before ours; the API judges, in words shown under the field.
    <Field
      label="Destination"
      inputMode="url"
      spellcheck={false}
      required
      placeholder="https://example.com/page"
      value={state.destination}
      onValue={(value, how) => (wholeAddress(how) ? state.lift(value) : state.setDestination(value))}
      onBlur={state.complete}
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
