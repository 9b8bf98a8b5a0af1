/**
 * One rule of the editor: its conditions (lists typed comma-separated, the query, a time
 * window in UTC like every time of the dashboard), where it sends visitors and the parameters
 * it adds; its tools to move it up or down and remove it. Each API error about this rule shows
 * under the part it names (`rules[2].when.country` under rule 3's Countries), numbered as the
 * person reads it (`Rule 3 when.country: ...`).
 */
import type { ApiError } from '../../api/client';
import { Field } from '../../components/field';
import { ParamsEditor } from '../../components/params-editor';
import { LIST_CONDITIONS, type RuleDraft, ruleErrorPlace, suggestionsId } from '../../lib/rule-drafts';
import { ruleMessage, ruleName } from '../../lib/rule-labels';
import { QueryConditions } from './query-conditions';

/** The parts an error can name that have a place of their own in the rule. */
const PLACED = new Set([
  ...LIST_CONDITIONS.map((c) => `when.${c.name}`),
  'when.query',
  'when.after',
  'when.before',
  'destination',
  'params',
]);

export interface RuleFieldsProps {
  draft: RuleDraft;
  index: number;
  count: number;
  error: ApiError | null;
  onChange(draft: RuleDraft): void;
  onMove(index: number, to: number): void;
  onRemove(index: number): void;
}

export function RuleFields({ draft, index, count, error, onChange, onMove, onRemove }: RuleFieldsProps) {
  const name = ruleName(index);
  const place = ruleErrorPlace(error?.field ?? null);
  const mine = place !== null && place.rule === index && error !== null;
  const message = mine ? ruleMessage(error.message) : null;
  const errorOf = (part: string) => (mine && place.part === part ? message : null);
  const unplaced = mine && !PLACED.has(place.part) ? message : null;
  const set = (change: Partial<RuleDraft>) => onChange({ ...draft, ...change });
  return (
    <li class="rule" data-rule={draft.id}>
      <fieldset class="stack">
        <legend>{name}</legend>
        <div class="rule-tools">
          <button
            type="button"
            class="button small secondary"
            data-move="up"
            aria-label={`Move rule ${index + 1} up`}
            disabled={index === 0}
            onClick={() => onMove(index, index - 1)}
          >
            <span aria-hidden="true">↑</span> Up
          </button>
          <button
            type="button"
            class="button small secondary"
            data-move="down"
            aria-label={`Move rule ${index + 1} down`}
            disabled={index === count - 1}
            onClick={() => onMove(index, index + 1)}
          >
            <span aria-hidden="true">↓</span> Down
          </button>
          <button
            type="button"
            class="button small danger"
            aria-label={`Remove rule ${index + 1}`}
            onClick={() => onRemove(index)}
          >
            Remove
          </button>
        </div>
        {unplaced && <p class="field-error">{unplaced}</p>}
        <p class="hint">
          When all the conditions filled in hold (none filled in: always). Separate values with commas.
        </p>
        <div class="rule-grid">
          {LIST_CONDITIONS.map((c) => (
            <Field
              key={c.name}
              label={c.label}
              placeholder={c.placeholder}
              spellcheck={false}
              value={draft.lists[c.name]}
              onValue={(value) => set({ lists: { ...draft.lists, [c.name]: value } })}
              list={c.suggestions ? suggestionsId(c.name) : undefined}
              hint={c.hint}
              error={errorOf(`when.${c.name}`)}
            />
          ))}
          <Field
            label="From (UTC)"
            type="datetime-local"
            value={draft.after}
            onValue={(after) => set({ after })}
            error={errorOf('when.after')}
          />
          <Field
            label="Until (UTC)"
            type="datetime-local"
            value={draft.before}
            onValue={(before) => set({ before })}
            error={errorOf('when.before')}
          />
        </div>
        <QueryConditions
          owner={name}
          rows={draft.query}
          onRows={(query) => set({ query })}
          error={errorOf('when.query')}
        />
        <Field
          label="Send visitors to"
          inputMode="url"
          spellcheck={false}
          placeholder="https://example.com/fr"
          value={draft.destination}
          onValue={(destination) => set({ destination })}
          error={errorOf('destination')}
        />
        <ParamsEditor
          legend="Rule parameters"
          rows={draft.params}
          onRows={(params) => set({ params })}
          error={errorOf('params')}
          emptyHint="None. Added over the link's own parameters when this rule sends a visitor."
        />
      </fieldset>
    </li>
  );
}
