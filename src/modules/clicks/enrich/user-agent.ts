/**
 * Device, OS and browser from ua-parser-js 1.0.x (MIT; 2.x is AGPL and never used), cached by
 * user agent string because a full parse costs ~11 us and real traffic repeats agents.
 */
import UAParser from 'ua-parser-js';
import { BoundedCache } from '../../../lib/bounded-cache';

interface AgentFacts {
  device: string | null;
  os: string | null;
  browser: string | null;
}

const NOTHING: AgentFacts = Object.freeze({ device: null, os: null, browser: null });
/**
 * ua-parser-js reads no further than this many characters (its UA_MAX_LENGTH): agents that
 * share them are one agent, cached once. It bounds what a parse costs and what a cache entry
 * holds, however long or however many the agents a client invents.
 */
export const AGENT_READ_LENGTH = 500;
const cache = new BoundedCache<string, AgentFacts>(20_000);

/** The part of a user agent that is parsed, and the key of its cached facts. */
export function agentReadPart(userAgent: string): string {
  return userAgent.length > AGENT_READ_LENGTH ? userAgent.slice(0, AGENT_READ_LENGTH) : userAgent;
}

/**
 * `device` is ua-parser's type (mobile, tablet, smarttv, console, wearable, embedded), or
 * `desktop` when it names none but recognises an OS or browser (desktop agents carry no type).
 */
export function parseAgent(fullAgent: string | null): AgentFacts {
  if (!fullAgent) return NOTHING;
  const userAgent = agentReadPart(fullAgent);
  let facts = cache.get(userAgent);
  if (facts === undefined) {
    const parsed = new UAParser(userAgent).getResult();
    const os = parsed.os.name ?? null;
    const browser = parsed.browser.name ?? null;
    const device = parsed.device.type ?? (os || browser ? 'desktop' : null);
    facts = Object.freeze({ device, os, browser });
    cache.set(userAgent, facts);
  }
  return facts;
}
