/**
 * A link's rules as the editor holds them (text the person is typing: comma-separated lists,
 * query rows, UTC datetime-local values) and as the API takes them. Each draft has an id that
 * stays with it when it moves, so the list can reorder without losing what is in the fields.
 * DOM-free (unit-tested on its own).
 */
import { KNOWN_BROWSERS, KNOWN_OS, RULE_DEVICES } from '../../../links/rule-names';
import type { Rule, RuleWhen } from '../api/types';
import { withScheme } from './destination';
import { fromUtcInput, splitList, toUtcInput } from './format';
import { type ParamRow, paramsFromRows, rowsFromParams } from './params';

/**
 * The list conditions, in the order the editor shows them, with their labels, the names the
 * statistics use that the editor suggests (devices are only those), and a hint where one helps.
 */
export const LIST_CONDITIONS: readonly {
  name: 'device' | 'os' | 'browser' | 'country' | 'language' | 'referrer';
  label: string;
  placeholder: string;
  suggestions?: readonly string[];
  hint?: string;
}[] = [
  {
    name: 'device',
    label: 'Devices',
    placeholder: 'mobile, tablet',
    suggestions: RULE_DEVICES,
    hint: `One or more of: ${RULE_DEVICES.join(', ')}.`,
  },
  { name: 'os', label: 'Operating systems', placeholder: 'iOS, Android', suggestions: KNOWN_OS },
  {
    name: 'browser',
    label: 'Browsers',
    placeholder: 'Chrome, Safari',
    suggestions: KNOWN_BROWSERS,
    hint: 'Safari also matches the Mobile Safari of iPhones and iPads.',
  },
  { name: 'country', label: 'Countries', placeholder: 'FR, BE' },
  { name: 'language', label: 'Languages', placeholder: 'fr, en-GB' },
  {
    name: 'referrer',
    label: 'Referrer hosts',
    placeholder: 'news.example.com',
    hint: "X's links arrive from t.co: twitter.com and x.com match it too.",
  },
];
export type ListCondition = (typeof LIST_CONDITIONS)[number]['name'];
/** The id of the datalist of a condition's suggested names (RulesEditor draws them once). */
export const suggestionsId = (name: ListCondition) => `rule-${name}-names`;

export interface QueryRow {
  id: number;
  key: string;
  value: string;
  /** The key must be present, with any value (null in the API). */
  any: boolean;
}

export interface RuleDraft {
  id: number;
  lists: Record<ListCondition, string>;
  query: QueryRow[];
  after: string;
  before: string;
  destination: string;
  params: ParamRow[];
}

let nextId = 1;
export const newQueryRow = (key = '', value = '', any = false): QueryRow => ({ id: nextId++, key, value, any });

export function draftFromRule(rule?: Rule): RuleDraft {
  const when: RuleWhen = rule?.when ?? {};
  const lists = {} as Record<ListCondition, string>;
  for (const { name } of LIST_CONDITIONS) lists[name] = (when[name] ?? []).join(', ');
  return {
    id: nextId++,
    lists,
    query: Object.entries(when.query ?? {}).map(([key, value]) => newQueryRow(key, value ?? '', value === null)),
    after: toUtcInput(when.after ?? null),
    before: toUtcInput(when.before ?? null),
    destination: rule?.destination ?? '',
    params: rowsFromParams(rule?.params ?? {}),
  };
}

export const draftsFromRules = (rules: readonly Rule[]) => rules.map((rule) => draftFromRule(rule));

/** What the API takes: empty conditions left out, rows without a key dropped, the scheme completed. */
export function ruleFromDraft(draft: RuleDraft): Rule {
  const when: RuleWhen = {};
  for (const { name } of LIST_CONDITIONS) {
    const values = splitList(draft.lists[name]);
    if (values.length > 0) when[name] = values;
  }
  const query: Record<string, string | null> = {};
  for (const row of draft.query) if (row.key.trim() !== '') query[row.key.trim()] = row.any ? null : row.value;
  if (Object.keys(query).length > 0) when.query = query;
  const after = fromUtcInput(draft.after);
  const before = fromUtcInput(draft.before);
  if (after !== null) when.after = after;
  if (before !== null) when.before = before;
  const params = paramsFromRows(draft.params);
  const destination = withScheme(draft.destination.trim());
  return Object.keys(params).length > 0 ? { when, destination, params } : { when, destination };
}

export const rulesFromDrafts = (drafts: readonly RuleDraft[]) => drafts.map(ruleFromDraft);

/** The list with the draft at `from` moved to `to` (both in range), the others in order. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}

/**
 * Where an API error about the rules belongs: `rules[2].when.country` -> rule 2, part
 * `when.country`; `rules` (the whole list) -> rule null. Anything else: not the rules'.
 */
export function ruleErrorPlace(field: string | null): { rule: number | null; part: string } | null {
  if (field === null) return null;
  if (field === 'rules') return { rule: null, part: '' };
  const match = /^rules\[(\d+)\](?:\.(.+))?$/.exec(field);
  if (!match) return null;
  return { rule: Number(match[1]), part: match[2] ?? '' };
}

/** The rules test's query, "?a=1&b=2" or "a=1&b=2", as {a: "1", b: "2"} (a repeated key keeps its first value). */
export function queryObject(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text.trim().replace(/^\?/, ''))) if (!(key in out)) out[key] = value;
  return out;
}
