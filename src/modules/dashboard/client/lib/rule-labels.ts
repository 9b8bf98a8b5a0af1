/**
 * How the dashboard names link rules to a person: from 1 (`Rule 1`), everywhere, while the API
 * counts from 0 (`rule: 0`, `rules[0].when.country`). DOM-free (unit-tested on its own).
 */
import type { RuleTestResult } from '../api/links';
import type { Rule } from '../api/types';

/** The name of the rule at `index` (the API's, from 0). */
export const ruleName = (index: number) => `Rule ${index + 1}`;

/**
 * An API message about rules with each `rules[i]` as the person reads it:
 * `rules[1].when.country: "x" is not a valid value` is `Rule 2 when.country: "x" ...`.
 */
export const ruleMessage = (message: string) =>
  message.replace(/rules\[(\d+)\]\.?/g, (_, index: string) => `${ruleName(Number(index))} `).replace(/ +$/, '');

/** What the rules test's answer says a visitor gets: a sentence, and what the Location means. */
export function ruleTestVerdict(result: RuleTestResult): { says: string; location: string | null } {
  const matched =
    result.rule === null
      ? "No rule matched: the link's own destination."
      : `Matched ${ruleName(result.rule).toLowerCase()}.`;
  switch (result.outcome) {
    case 'paused':
      return { says: 'The link is paused: visitors get the not-found page (404). No rule is checked.', location: null };
    case 'expired':
      return { says: 'The link has expired: visitors get the gone page (410). No rule is checked.', location: null };
    case 'limit':
      return {
        says: 'The link has reached its click limit: visitors get the gone page (410). No rule is checked.',
        location: null,
      };
    case 'fallback':
      return {
        says: 'The link has expired or reached its click limit: visitors go to its fallback address. No rule is checked.',
        location: result.location,
      };
    case 'preview':
      return {
        says: "A social-preview crawler gets the link's preview card, which links to its own destination. No rule is checked.",
        location: result.location,
      };
    case 'password':
      return { says: `Visitors are asked for the password first. ${matched}`, location: result.location };
    default:
      return { says: matched, location: result.location };
  }
}

/**
 * The rule breakdown's rows: each rule by its name, and where that rule sends visitors now (the
 * clicks keep the index the rule had when clicked; a rule since removed says so).
 */
export function ruleBreakdownRows(
  entries: readonly { value: number; clicks: number }[],
  rules: readonly Rule[],
): { key: string; label: string; note: string; clicks: number }[] {
  return entries.map((e) => {
    const rule = rules[e.value];
    return {
      key: String(e.value),
      label: ruleName(e.value),
      note: rule === undefined ? "No longer among the link's rules" : `→\u00a0${rule.destination}`,
      clicks: e.clicks,
    };
  });
}
