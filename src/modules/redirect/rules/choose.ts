/**
 * The redirect's rule step (redirect.ts): for a link that has rules, the target of the first
 * that holds for this request, or null. Reads the request's query only when a rule asks for it.
 */
import type { GeoLookup } from '../../clicks/public';
import type { CompiledRules, RuleTarget } from './compile';
import { matchRule, ruleTargetFor } from './match';
import { RuleVisitor } from './visitor';

/** The request URL's query without its `?`, or '' (the fragment never reaches the server). */
export function queryOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

export function chooseRule(
  rules: CompiledRules,
  url: string,
  userAgent: string | null,
  address: string | null,
  acceptLanguage: string | null,
  referrer: string | null,
  now: number,
  geo: () => GeoLookup,
  code: string | null,
  variantParamsJson: string | null,
): RuleTarget | null {
  const rawQuery = rules.readsQuery ? queryOf(url) : '';
  const matched = matchRule(
    rules,
    new RuleVisitor({ userAgent, address, acceptLanguage, referrer, rawQuery, now }, geo),
  );
  return matched === null ? null : ruleTargetFor(matched, code, variantParamsJson);
}
