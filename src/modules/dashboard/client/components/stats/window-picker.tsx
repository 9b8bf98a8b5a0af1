/**
 * Which clicks the page counts: a range (or custom UTC dates) and whether bot hits count too.
 * A preset or the bots box applies at once; custom dates apply with the Apply button. The API
 * alone judges the values: its 400 is shown under the field it names.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import {
  RANGE_OPTIONS,
  rangeChoice,
  type StatsWindow,
  utcDay,
  withBots,
  withDates,
  withRange,
} from '../../lib/stats-window';
import { CheckboxField, Field, SelectField } from '../field';
import { errorFor } from '../form-error';

export interface WindowPickerProps {
  window: StatsWindow;
  /** The window the API counted last (prefills custom dates). */
  counted?: { from: number; to: number };
  error: ApiError | null;
  onChange(window: StatsWindow): void;
}

export function WindowPicker({ window: w, counted, error, onChange }: WindowPickerProps) {
  const [choice, setChoice] = useState(rangeChoice(w));
  const [from, setFrom] = useState(w.from ?? '');
  const [to, setTo] = useState(w.to ?? '');
  useEffect(() => {
    setChoice(rangeChoice(w));
    setFrom(w.from ?? '');
    setTo(w.to ?? '');
  }, [w.range, w.from, w.to]);

  const pick = (value: string) => {
    setChoice(value);
    if (value !== 'custom') return onChange(withRange(w, value));
    if (counted) {
      setFrom(w.from ?? utcDay(counted.from));
      setTo(w.to ?? utcDay(counted.to));
    }
  };
  const apply = (event: Event) => {
    event.preventDefault();
    onChange(withDates(w, from, to));
  };
  return (
    <form class="filters stats-window" onSubmit={apply}>
      <SelectField
        label="Range"
        value={choice}
        onValue={pick}
        options={RANGE_OPTIONS}
        error={errorFor(error, 'range')}
      />
      {choice === 'custom' && (
        <>
          <Field label="From (UTC)" type="date" value={from} onValue={setFrom} error={errorFor(error, 'from')} />
          <Field label="To (UTC)" type="date" value={to} onValue={setTo} error={errorFor(error, 'to')} />
          <div class="field apply">
            <button type="submit" class="button secondary">
              Apply
            </button>
          </div>
        </>
      )}
      <CheckboxField
        label="Include bots"
        checked={w.bots === '1'}
        onChecked={(on) => onChange(withBots(w, on))}
        hint={errorFor(error, 'bots')}
      />
    </form>
  );
}
