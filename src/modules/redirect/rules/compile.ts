/**
 * A link's rules compiled once, when the link enters the slug index (link-index.ts): lists
 * become sets of lower-cased values, referrers bare hosts, times numbers, and each rule's
 * Location for the bare link is built then, so a request only compares (match.ts). The
 * semantics are docs/behaviour.md's "Link rules".
 */
import { NO_PARAMS_JSON, targetSerial } from '../../clicks/public';
import { REFERRER_ALIASES, type Rule } from '../../links/public';
import { applyParams } from '../location';
import { agentNameKey } from './visitor';

/**
 * Where a matched rule sends a click, and the click's target as recorded: the rule's index, a
 * serial of its own (the writer caches the stored target by it: record.ts), the Location and
 * the effective params (link, variant, rule) as JSON.
 */
export interface RuleTarget {
  readonly index: number;
  readonly serial: number;
  readonly location: string;
  readonly paramsJson: string;
}

export interface CompiledRule {
  readonly index: number;
  /** Lower case; null: no such condition. */
  readonly device: ReadonlySet<string> | null;
  readonly os: ReadonlySet<string> | null;
  readonly browser: ReadonlySet<string> | null;
  /** Upper case, as the geo lookup answers. */
  readonly country: ReadonlySet<string> | null;
  /** Languages (`en`) and language-regions (`en-gb`), lower case, as acceptedLanguages lists them. */
  readonly language: ReadonlySet<string> | null;
  /** Hosts, lower case, without `www.`; each matches itself and its subdomains. */
  readonly referrer: readonly string[] | null;
  /** [key, value lower case or null for any value]. */
  readonly query: readonly (readonly [string, string | null])[] | null;
  /** Epoch ms, NaN for none. */
  readonly after: number;
  readonly before: number;
  readonly destination: string;
  readonly params: Readonly<Record<string, string>>;
  /** The target of a click on the bare link (or a code that names no variant). */
  readonly target: RuleTarget;
  /** Targets of clicks on a variant's code, made at its first match (a variant's params differ). */
  readonly byCode: Map<string, RuleTarget>;
}

export interface CompiledRules {
  /** The rules as given (a link's view: tests, the index's copies). */
  readonly source: readonly Rule[];
  readonly list: readonly CompiledRule[];
  /** Whether any rule has a query condition: only then is the request's query read (choose.ts). */
  readonly readsQuery: boolean;
}

function paramsJsonOf(params: Readonly<Record<string, string>>): string {
  return Object.keys(params).length === 0 ? NO_PARAMS_JSON : JSON.stringify(params);
}

function setOf(values: readonly string[] | undefined, fold: (value: string) => string): ReadonlySet<string> | null {
  return values === undefined ? null : new Set(values.map(fold));
}

const lower = (value: string) => value.trim().toLowerCase();
const upper = (value: string) => value.trim().toUpperCase();

/** A browser condition's names: each also as its Mobile form (Safari is Mobile Safari too). */
function browserSet(values: readonly string[] | undefined): ReadonlySet<string> | null {
  if (values === undefined) return null;
  const keys = new Set<string>();
  for (const value of values) {
    const key = agentNameKey(value);
    keys.add(key);
    if (!key.startsWith('mobile')) keys.add(`mobile${key}`);
  }
  return keys;
}

/** A referrer condition's hosts, with the hosts that stand for them (t.co for x.com). */
function referrerHosts(values: readonly string[]): string[] {
  const hosts = new Set<string>();
  for (const value of values) {
    const host = ruleHost(value);
    hosts.add(host);
    for (const alias of REFERRER_ALIASES[host] ?? []) hosts.add(alias);
  }
  return [...hosts];
}

/** A referrer condition's host: a URL's host, lower case, without a leading `www.` or a trailing dot. */
export function ruleHost(value: string): string {
  let host = lower(value);
  const scheme = host.indexOf('://');
  if (scheme >= 0) host = host.slice(scheme + 3);
  host = host.split(/[/?#]/, 1)[0]!;
  host = host.slice(host.lastIndexOf('@') + 1).replace(/:\d*$/, '');
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** The target of a click that matched `rule` with effective params `base` (before the rule's). */
export function ruleTargetOf(rule: Pick<CompiledRule, 'index' | 'destination' | 'params'>, base: object): RuleTarget {
  const params = { ...base, ...rule.params } as Record<string, string>;
  return {
    index: rule.index,
    serial: targetSerial(),
    location: applyParams(rule.destination, params),
    paramsJson: paramsJsonOf(params),
  };
}

/** `linkParams`: the link's effective params (its `params`). */
export function compileRules(rules: readonly Rule[], linkParams: Readonly<Record<string, string>>): CompiledRules {
  const list = rules.map((rule, index): CompiledRule => {
    const w = rule.when;
    const query =
      w.query === undefined
        ? null
        : Object.entries(w.query).map(([k, v]) => [k, v === null ? null : lower(v)] as const);
    const params = rule.params ?? {};
    return {
      index,
      device: setOf(w.device, agentNameKey),
      os: setOf(w.os, agentNameKey),
      browser: browserSet(w.browser),
      country: setOf(w.country, upper),
      language: setOf(w.language, lower),
      referrer: w.referrer === undefined ? null : referrerHosts(w.referrer),
      query,
      after: w.after ?? Number.NaN,
      before: w.before ?? Number.NaN,
      destination: rule.destination,
      params,
      target: ruleTargetOf({ index, destination: rule.destination, params }, linkParams),
      byCode: new Map(),
    };
  });
  return { source: rules, list, readsQuery: list.some((rule) => rule.query !== null) };
}
