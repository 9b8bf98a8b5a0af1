/**
 * Evaluates a link's compiled rules (compile.ts) against a request, in memory: in order, the
 * first rule whose every condition holds wins; an empty `when` always holds. The redirect and
 * POST /links/{id}/rules/test both call this, so a test answers what a visitor would get.
 */
import { type CompiledRule, type CompiledRules, type RuleTarget, ruleTargetOf } from './compile';
import type { RuleVisitor } from './visitor';

function inSet(set: ReadonlySet<string>, value: string | null): boolean {
  return value !== null && set.has(value);
}

/** `host` is one of `hosts` or a subdomain of one. */
function hostMatches(hosts: readonly string[], host: string | null): boolean {
  if (host === null) return false;
  for (const h of hosts)
    if (
      host === h ||
      (host.length > h.length && host.endsWith(h) && host.charCodeAt(host.length - h.length - 1) === 46)
    )
      return true;
  return false;
}

function queryMatches(wanted: CompiledRule['query'] & object, v: RuleVisitor): boolean {
  const query = v.query;
  for (const [key, value] of wanted) {
    const values = query.get(key);
    if (values === undefined) return false;
    if (value !== null && !values.includes(value)) return false;
  }
  return true;
}

function languageMatches(wanted: ReadonlySet<string>, accepted: readonly string[]): boolean {
  for (const language of accepted) if (wanted.has(language)) return true;
  return false;
}

function holds(r: CompiledRule, v: RuleVisitor): boolean {
  // NaN (no such condition) compares false.
  const now = v.request.now;
  if (now < r.after || now >= r.before) return false;
  if (r.device !== null && !inSet(r.device, v.agent.device)) return false;
  if (r.os !== null && !inSet(r.os, v.agent.os)) return false;
  if (r.browser !== null && !inSet(r.browser, v.agent.browser)) return false;
  if (r.query !== null && !queryMatches(r.query, v)) return false;
  if (r.referrer !== null && !hostMatches(r.referrer, v.referrerHost)) return false;
  if (r.language !== null && !languageMatches(r.language, v.languages)) return false;
  // Last: the only condition that may cost a database read (the first time an address is seen).
  if (r.country !== null && !inSet(r.country, v.country)) return false;
  return true;
}

/** The first rule that holds, or null. */
export function matchRule(rules: CompiledRules, v: RuleVisitor): CompiledRule | null {
  for (const rule of rules.list) if (holds(rule, v)) return rule;
  return null;
}

/**
 * The target of a click that matched `rule`: the bare link's (precomputed), or for a variant's
 * code the rule over that variant's params (`variantParamsJson`: the link's with the variant's
 * layered), made once per code.
 */
export function ruleTargetFor(rule: CompiledRule, code: string | null, variantParamsJson: string | null): RuleTarget {
  if (code === null || variantParamsJson === null) return rule.target;
  let target = rule.byCode.get(code);
  if (target === undefined) {
    target = ruleTargetOf(rule, JSON.parse(variantParamsJson) as object);
    rule.byCode.set(code, target);
  }
  return target;
}
