/**
 * The hot path: resolve a slug from memory, capture the click as a compact record, answer 302 (or,
 * to a social-preview crawler on a link with a preview, the preview page: preview-page.ts).
 * No parsing, hashing, geo lookup or I/O happens here (docs/architecture.md, "A short link"); the flush does it.
 * The exception is a link with rules: their conditions read the request (rules/, in memory).
 * The only classification on this path is for links with a click limit, which must count
 * humans exactly at the moment they are let through, and for links with a preview (is the agent
 * a social-preview crawler: cached by agent like the bot verdict); the only wait is theirs too, when several
 * processes share the count (click-limit-gate.ts). Every other answer is synchronous.
 */

import { clientAddress, type ServerLike } from '../../http/client';
import { shortUrlOf } from '../../lib/short-url';
import {
  blockId,
  blockLocation,
  blockParamsJson,
  countCaptured,
  isBotAgent,
  isPreviewCrawler,
  optOutTest,
  withoutQueryParam,
} from '../clicks/public';
import type { DomainFacts } from '../domains/public';
import type { Admission } from './click-limit-gate';
import type { RedirectDeps } from './deps';
import { HAS_PASSWORD, HAS_PREVIEW, HAS_RULES, type LinkTable, PAUSED } from './link-table';
import { withVisitorQuery } from './location';
import { pageResponse } from './pages';
import { createPasswordGate } from './password/gate';
import { previewResponse } from './preview-page';
import { chooseRule, queryOf } from './rules/choose';
import type { RuleTarget } from './rules/compile';
import { ruleGeo } from './rules/geo';

/** The extras bits that decide a preview: set, and no password (a protected link shows none). */
const PREVIEW_ONLY = HAS_PREVIEW | HAS_PASSWORD;

// Header values kept per click are capped: memory per buffered click stays bounded.
const MAX_AGENT = 512;
const MAX_REFERRER = 2048;
const MAX_LANGUAGE = 256;

function capped(value: string | null, max: number): string | null {
  return value !== null && value.length > max ? value.slice(0, max) : value;
}

/** A redirect to one of a domain's own targets (docs/behaviour.md, "Short domains"): never cached. */
function domainTarget(location: string): Response {
  return new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
}

/** An unknown slug on `domain`: its notFoundUrl when set, else the 404 page. */
export function notFoundOn(domain: DomainFacts | undefined): Response {
  const to = domain?.notFoundUrl ?? null;
  return to === null ? pageResponse('notFound') : domainTarget(to);
}

export function createRedirect(deps: RedirectDeps) {
  const { linkIndex, clicks, clock, config, clickLimitGate, domains, readThrough } = deps;
  const buffer = clicks.buffer;
  const { referrer: keepReferrer, noTrackParam } = config.privacy;
  const optedOutBy = optOutTest(config.privacy);
  /**
   * An expired link or one past its click limit: its fallback URL if it has one (a 302 never
   * cached, since the link may be given more time or clicks), else its domain's expiredUrl (the
   * same 302, not counted anywhere), else the 410 page. No click recorded; a human visit sent to
   * the link's own fallback is counted for the link (fallbackCount), bots and HEAD requests not
   * (the agent's verdict is cached, as for click limits).
   */
  const ended = (request: Request, links: LinkTable, slot: number): Response => {
    const fallback = links.fallbackUrl.size === 0 ? undefined : links.fallbackUrl.get(slot);
    if (fallback === undefined) {
      const expiredUrl = domains.byId(links.domainId[slot]!)?.expiredUrl ?? null;
      return expiredUrl === null ? pageResponse('gone') : domainTarget(expiredUrl);
    }
    // The bot rule of clicks (clicks/capture/bot.ts: no agent, isbot, a preview crawler) and HEAD.
    if (request.method !== 'HEAD' && !isBotAgent(capped(request.headers.get('user-agent'), MAX_AGENT)))
      buffer.fallbacks.add(blockId(links.arena, links.blockAt[slot]!));
    return new Response(null, { status: 302, headers: { location: fallback, 'cache-control': 'no-store' } });
  };
  /** The answer to a human click the click-limit gate did not let through. */
  const refusal = (
    request: Request,
    links: LinkTable,
    slot: number,
    admission: Exclude<Admission, 'admitted'>,
  ): Response =>
    // Refused: the limit is reached. Gone: the link was deleted while its count was asked.
    admission === 'refused' ? ended(request, links, slot) : pageResponse('notFound');
  const geo = ruleGeo(config.geoDb, (err) => deps.log.error('link rules: the geo database cannot be opened', err));

  /**
   * What stops a visit before a click: the link expired, a password to ask (or, past its click
   * limit as far as this node knows, ended before any password is asked), a POST to a link
   * without a password. Null: go on. A visit already past the gate (`passed`: admitted by the
   * click-limit gate, or unlocked by the password) is checked for expiry only.
   */
  const gate = (
    request: Request,
    server: ServerLike | null,
    links: LinkTable,
    slot: number,
    code: string | null,
    now: number,
    passed: boolean,
  ): Response | Promise<Response> | null => {
    // NaN (no expiry) compares false.
    if (now >= links.expiresAt[slot]!) return ended(request, links, slot);
    if (passed) return null;
    // One byte read for links without a password; a POST means something only for those with one.
    if ((links.extras[slot]! & HAS_PASSWORD) !== 0)
      return links.humanClicks[slot]! >= links.clickLimit[slot]!
        ? ended(request, links, slot)
        : passwordGate(request, server, slot, code);
    return request.method === 'POST' ? pageResponse('methodNotAllowed') : null;
  };

  /**
   * Counts the click in the link's live counters and says whether it is a bot as far as the
   * redirect decides (null: the flush decides). On a link with a click limit a human click is
   * let through by the click-limit gate (counted then), or ended: the answer is then returned
   * instead, a promise when another process must be asked.
   */
  const countClick = (
    request: Request,
    server: ServerLike | null,
    links: LinkTable,
    slot: number,
    code: string | null,
    userAgent: string | null,
    head: boolean,
    preview: boolean,
    optedOut: boolean,
  ): boolean | null | Response | Promise<Response> => {
    // A preview crawler's hit is a bot's, as are HEAD requests and those without an agent. An
    // opted-out click is classified now, while its agent is known: its record keeps none.
    const bot = preview || head || !userAgent ? true : optedOut ? isBotAgent(userAgent) : null;
    const clickLimit = links.clickLimit[slot]!;
    if (Number.isNaN(clickLimit)) {
      countCaptured(links, slot, bot);
      return bot;
    }
    // The node's own count never passes the true one: at the limit, nobody needs asking.
    if (links.humanClicks[slot]! >= clickLimit) return ended(request, links, slot);
    if (bot ?? isBotAgent(userAgent)) return true;
    // Counted when let through; a promise only when another process must be asked.
    const admission = clickLimitGate.admit(links, slot, clickLimit);
    if (typeof admission !== 'string')
      return admission.then((decided) =>
        decided === 'admitted' ? answer(request, server, slot, code, true) : refusal(request, links, slot, decided),
      );
    return admission === 'admitted' ? false : refusal(request, links, slot, admission);
  };

  /**
   * The link rule that chooses the destination (rules/), or null: a link without any pays this
   * one byte. A preview comes before them (a crawler's card links to the link's own destination).
   */
  const chooseTarget = (
    request: Request,
    links: LinkTable,
    slot: number,
    code: string | null,
    variantAt: number,
    preview: boolean,
    userAgent: string | null,
    address: string | null,
    acceptLanguage: string | null,
    referrer: string | null,
    now: number,
  ): RuleTarget | null =>
    preview || (links.extras[slot]! & HAS_RULES) === 0
      ? null
      : chooseRule(
          links.rules.get(slot)!,
          request.url,
          userAgent,
          address,
          acceptLanguage,
          referrer,
          now,
          geo,
          variantAt < 0 ? null : code,
          variantAt < 0 ? null : blockParamsJson(links.arena, variantAt),
        );

  /**
   * The answer to a recorded click: the redirect to the target (the visitor's query added when
   * the link forwards it), or a preview crawler's page. At saturation it waits for the writer
   * (buffer.ts): the click is recorded either way.
   */
  const respond = (
    request: Request,
    links: LinkTable,
    slot: number,
    code: string | null,
    location: string,
    preview: boolean,
    head: boolean,
  ): Response | Promise<Response> => {
    const raw = links.forwardQuery[slot] === 1 ? queryOf(request.url) : '';
    // The no-track parameter is the visitor's word to us, never the destination's business.
    const query = noTrackParam === null || raw === '' ? raw : withoutQueryParam(raw, noTrackParam);
    const target = query === '' ? location : withVisitorQuery(location, query);
    const response = preview
      ? previewResponse(
          links.preview.get(slot)!,
          shortUrlOf(domains.originOf(links.domainId[slot]!), links.slug(slot), code ?? undefined),
          target,
          head,
        )
      : new Response(null, {
          status: links.redirectStatus[slot]!,
          headers: { location: target, 'cache-control': 'private, max-age=0' },
        });
    return buffer.saturated ? buffer.drained().then(() => response) : response;
  };

  /**
   * A visit to the link in `slot` (-1: none): found, gated, counted, its target chosen, the click
   * buffered, answered. `admitted`: a human click the click-limit gate let through after asking
   * another process; the link is read again as it is now (still in `slot`: the gate made sure).
   * `unlocked`: past the password step (password/gate.ts), which found the link again as it is now.
   */
  const answer = (
    request: Request,
    server: ServerLike | null,
    slot: number,
    code: string | null,
    admitted: boolean,
    unlocked = false,
  ): Response | Promise<Response> => {
    const links = linkIndex.table;
    if (slot < 0) return pageResponse('notFound');
    // A paused link answers as an unknown slug of its domain.
    if (links.status[slot] === PAUSED) return notFoundOn(domains.byId(links.domainId[slot]!));
    const now = clock.now();
    const stopped = gate(request, server, links, slot, code, now, admitted || unlocked);
    if (stopped !== null) return stopped;
    const headers = request.headers;
    const userAgent = capped(headers.get('user-agent'), MAX_AGENT);
    const head = request.method === 'HEAD';
    // Social previews (preview-page.ts): a listed crawler gets the link's preview page, recorded
    // as the bot hit it is. Links without a preview pay this one byte read.
    const preview = (links.extras[slot]! & PREVIEW_ONLY) === HAS_PREVIEW && isPreviewCrawler(userAgent);
    const optedOut = optedOutBy(headers, request.url);
    const bot = admitted ? false : countClick(request, server, links, slot, code, userAgent, head, preview, optedOut);
    if (bot !== null && typeof bot === 'object') return bot;
    const at = links.blockAt[slot]!;
    const variantAt = code === null ? -1 : links.variantAt(slot, code);
    // An opted-out click keeps none of these: they are read only when its link's rules need them.
    const reads = !optedOut || (links.extras[slot]! & HAS_RULES) !== 0;
    const address = reads ? clientAddress(request, server, config.trustProxy) : null;
    const referrer = reads ? capped(headers.get('referer'), MAX_REFERRER) : null;
    const acceptLanguage = reads ? capped(headers.get('accept-language'), MAX_LANGUAGE) : null;
    const rule = chooseTarget(
      request,
      links,
      slot,
      code,
      variantAt,
      preview,
      userAgent,
      address,
      acceptLanguage,
      referrer,
      now,
    );
    const location = rule === null ? blockLocation(links.arena, variantAt < 0 ? at : variantAt) : rule.location;
    buffer.push({
      time: now,
      links,
      slot,
      arena: links.arena,
      at,
      variantAt,
      location,
      code,
      // Opted out: nothing that profiles the visitor is kept (capture/privacy.ts).
      address: optedOut ? null : address,
      userAgent: optedOut ? null : userAgent,
      referrer: optedOut || keepReferrer === 'none' ? null : referrer,
      acceptLanguage: optedOut ? null : acceptLanguage,
      head,
      optedOut,
      bot,
      rule,
    });
    return respond(request, links, slot, code, location, preview, head);
  };
  const passwordGate = createPasswordGate(deps, (request, server, slot, code) =>
    answer(request, server, slot, code, false, true),
  );
  /** A visit to `slug` on `domain` (routed by the request's Host: index.ts; the default domain when not given). */
  const redirect = (
    request: Request,
    server: ServerLike | null,
    slug: string,
    code: string | null,
    domain: DomainFacts = domains.default,
  ): Response | Promise<Response> => {
    const slot = linkIndex.find(slug, domain.id);
    if (slot >= 0) return answer(request, server, slot, code, false);
    // Not in memory while the index still loads (a start): read it, then answer the same way.
    if (!linkIndex.loaded)
      return linkIndex
        .lookup(slug, domain.id)
        .then((found) =>
          found < 0 ? unknown(request, server, slug, code, domain) : answer(request, server, found, code, false),
        );
    return unknown(request, server, slug, code, domain);
  };
  /**
   * A slug this domain has no link for: asked of the domain's upstream when it has one
   * (read-through/), then answered as the link it became, else as an unknown slug.
   */
  const unknown = (
    request: Request,
    server: ServerLike | null,
    slug: string,
    code: string | null,
    domain: DomainFacts,
  ): Response | Promise<Response> => {
    const asked = domain.upstream === null ? null : readThrough.visit(domain, slug);
    if (asked === null) return notFoundOn(domain);
    return asked.then(() => {
      const found = linkIndex.find(slug, domain.id);
      return found < 0 ? notFoundOn(domain) : answer(request, server, found, code, false);
    });
  };
  /**
   * Whether a POST to this slug on this domain may mean something: the link has a password (its
   * form posts here), or it is not known yet while the index loads (the redirect then decides).
   */
  const takesPost = (domainId: number, slug: string): boolean => {
    const slot = linkIndex.find(slug, domainId);
    return slot < 0 ? !linkIndex.loaded : (linkIndex.table.extras[slot]! & HAS_PASSWORD) !== 0;
  };
  return Object.assign(redirect, { takesPost });
}
