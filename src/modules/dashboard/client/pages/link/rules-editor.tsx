/**
 * A link's rules as an ordered list: the first whose conditions hold sends the visitor. Rules
 * are added, removed and moved with buttons (the keyboard reaches them all); after a move the
 * focus stays on the moved rule's button, and what happened is said in a status line.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import type { Rule } from '../../api/types';
import {
  draftFromRule,
  draftsFromRules,
  LIST_CONDITIONS,
  moved,
  type RuleDraft,
  rulesFromDrafts,
  suggestionsId,
} from '../../lib/rule-drafts';
import { RuleFields } from './rule-fields';

/** The API's limit (RULE_LIMITS.rules), so the button stops before the API would refuse. */
const MAX_RULES = 20;

export interface RulesState {
  drafts: RuleDraft[];
  setDrafts(drafts: RuleDraft[]): void;
  sent: Rule[];
  /** Show these rules (the saved ones, after a save). */
  reset(rules: readonly Rule[]): void;
}

export function useRules(initial: readonly Rule[]): RulesState {
  const [drafts, setDrafts] = useState(() => draftsFromRules(initial));
  return { drafts, setDrafts, sent: rulesFromDrafts(drafts), reset: (rules) => setDrafts(draftsFromRules(rules)) };
}

/** What to focus once the list has been drawn again. */
type FocusTarget = { rule: number; selector: string } | { add: true };

export function RulesEditor({ state, error }: { state: RulesState; error: ApiError | null }) {
  const { drafts, setDrafts } = state;
  const [said, setSaid] = useState('');
  const [focus, setFocus] = useState<FocusTarget | null>(null);
  const list = useRef<HTMLDivElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!focus) return;
    if ('add' in focus) addButton.current?.focus();
    else {
      const rule = list.current?.querySelector(`[data-rule="${focus.rule}"]`);
      const wanted = rule?.querySelector<HTMLElement>(focus.selector);
      // A rule moved to an end: its button that way is disabled now; the other one takes the focus.
      const target =
        wanted && !(wanted as HTMLButtonElement).disabled ? wanted : rule?.querySelector('[data-move]:not([disabled])');
      (target as HTMLElement | null | undefined)?.focus();
    }
    setFocus(null);
  }, [focus]);

  const move = (from: number, to: number) => {
    const draft = drafts[from];
    if (!draft || to < 0 || to >= drafts.length) return;
    setDrafts(moved(drafts, from, to));
    setSaid(`Rule ${from + 1} is now rule ${to + 1}.`);
    setFocus({ rule: draft.id, selector: `[data-move="${to < from ? 'up' : 'down'}"]` });
  };
  const remove = (index: number) => {
    setDrafts(drafts.filter((_, i) => i !== index));
    setSaid(`Removed rule ${index + 1}.`);
    setFocus({ add: true });
  };
  const add = () => {
    const draft = draftFromRule();
    setDrafts([...drafts, draft]);
    setSaid(`Added rule ${drafts.length + 1}.`);
    setFocus({ rule: draft.id, selector: 'input' });
  };
  const whole = error?.field === 'rules' ? error.message : null;

  return (
    <fieldset class="stack rules" aria-invalid={whole ? true : undefined}>
      <legend>Rules</legend>
      <p class="hint">
        Checked in order on every click: the first rule whose conditions all hold sends the visitor to its destination.
        When none holds, the link's own destination is used.
      </p>
      {whole && <p class="field-error">{whole}</p>}
      {LIST_CONDITIONS.map(
        (c) =>
          c.suggestions && (
            <datalist key={c.name} id={suggestionsId(c.name)}>
              {c.suggestions.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          ),
      )}
      <div ref={list}>
        {drafts.length === 0 ? (
          <p class="hint">No rules.</p>
        ) : (
          <ol class="rule-list">
            {drafts.map((draft, i) => (
              <RuleFields
                key={draft.id}
                draft={draft}
                index={i}
                count={drafts.length}
                error={error}
                onChange={(next) => setDrafts(drafts.map((d) => (d.id === next.id ? next : d)))}
                onMove={move}
                onRemove={remove}
              />
            ))}
          </ol>
        )}
      </div>
      <div class="actions start">
        <button
          ref={addButton}
          type="button"
          class="button small secondary"
          disabled={drafts.length >= MAX_RULES}
          onClick={add}
        >
          Add rule
        </button>
        <span class="hint" role="status">
          {drafts.length >= MAX_RULES ? `At most ${MAX_RULES} rules. ` : ''}
          {said}
        </span>
      </div>
    </fieldset>
  );
}
