/**
 * What link rules read of a request, each fact worked out at most once and only when a rule
 * asks for it: the agent (ua-parser, cached by agent string), the country (the geo lookup,
 * cached by address), the accepted languages, the referrer's host and the query. The same
 * facts and names as the statistics (clicks/enrich), so a rule says what the breakdowns show.
 */

import { BoundedCache } from '../../../lib/bounded-cache';
import { decodeQueryPart, readQueryParts } from '../../../lib/query';
import { acceptedLanguages, agentReadPart, type GeoLookup, parseAgent, referrerHost } from '../../clicks/public';

export interface AgentNames {
  device: string | null;
  os: string | null;
  browser: string | null;
}

/**
 * How an agent name compares: case, spaces, dashes and underscores aside, so that `macOS` (as
 * people write it) is the statistics' `Mac OS`, and `mobile safari` is `Mobile Safari`.
 */
export function agentNameKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

const NO_AGENT: AgentNames = Object.freeze({ device: null, os: null, browser: null });
// Folded once per agent (its parsed part): a repeated agent costs one Map lookup, and a client
// sending a new agent on every request costs one bounded parse each and never more memory.
const agents = new BoundedCache<string, AgentNames>(20_000);

/** The agent's device, OS and browser names (as the statistics name them), lower case. */
export function agentNames(fullAgent: string | null): AgentNames {
  if (!fullAgent) return NO_AGENT;
  const userAgent = agentReadPart(fullAgent);
  let names = agents.get(userAgent);
  if (names === undefined) {
    const a = parseAgent(userAgent);
    names = Object.freeze({
      device: a.device === null ? null : agentNameKey(a.device),
      os: a.os === null ? null : agentNameKey(a.os),
      browser: a.browser === null ? null : agentNameKey(a.browser),
    });
    agents.set(userAgent, names);
  }
  return names;
}

const NO_QUERY: ReadonlyMap<string, readonly string[]> = new Map();

/** The request as rules see it: raw values, read lazily. */
export interface RuleRequest {
  userAgent: string | null;
  /** The client address (http/client.ts clientAddress), or an address to try. */
  address: string | null;
  acceptLanguage: string | null;
  referrer: string | null;
  /** The query without its `?`, '' for none. */
  rawQuery: string;
  /** Epoch ms (the injected clock). */
  now: number;
}

export class RuleVisitor {
  private agentNames: AgentNames | undefined;
  private countryCode: string | null | undefined;
  private queryValues: Map<string, string[]> | undefined;

  constructor(
    readonly request: RuleRequest,
    private readonly geo: () => GeoLookup,
  ) {}

  get agent(): AgentNames {
    this.agentNames ??= agentNames(this.request.userAgent);
    return this.agentNames;
  }

  get country(): string | null {
    if (this.countryCode === undefined) this.countryCode = this.geo().lookup(this.request.address).country;
    return this.countryCode;
  }

  get languages(): readonly string[] {
    return acceptedLanguages(this.request.acceptLanguage);
  }

  get referrerHost(): string | null {
    return referrerHost(this.request.referrer);
  }

  /** The query's values by decoded key, lower case (a repeated key has several); QUERY_READ_LIMITS. */
  get query(): ReadonlyMap<string, readonly string[]> {
    // Most visits have no query: nothing to allocate.
    if (this.request.rawQuery === '') return NO_QUERY;
    if (this.queryValues === undefined) {
      this.queryValues = new Map();
      for (const part of readQueryParts(this.request.rawQuery)) {
        if (part === '') continue;
        const eq = part.indexOf('=');
        const key = decodeQueryPart(eq < 0 ? part : part.slice(0, eq));
        const value = eq < 0 ? '' : decodeQueryPart(part.slice(eq + 1)).toLowerCase();
        const values = this.queryValues.get(key);
        if (values) values.push(value);
        else this.queryValues.set(key, [value]);
      }
    }
    return this.queryValues;
  }
}
