/**
 * What Save sends for a link: only the fields whose value differs from the link's (PATCH changes
 * exactly the fields it is given, so an untouched field is never rewritten). DOM-free
 * (unit-tested on its own).
 */
import type { LinkFields } from '../api/links';
import type { Link, Preview } from '../api/types';

/** Every editable field as the form holds it now; `password` undefined: left as it is. */
export type LinkDraft = Required<Omit<LinkFields, 'status' | 'password'>> & { password: string | null | undefined };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function linkChanges(link: Link, next: LinkDraft): LinkFields {
  const out: LinkFields = {};
  if (next.destination !== link.destination) out.destination = next.destination;
  if (next.domain !== link.domain) out.domain = next.domain;
  if (next.slug !== link.slug) out.slug = next.slug;
  if (next.title !== link.title) out.title = next.title;
  if (next.tags.join('\n') !== link.tags.join('\n')) out.tags = next.tags;
  if (next.projectId !== link.projectId) out.projectId = next.projectId;
  if (next.expiresAt !== link.expiresAt) out.expiresAt = next.expiresAt;
  if (next.clickLimit !== link.clickLimit) out.clickLimit = next.clickLimit;
  if (!same(next.params, link.params)) out.params = next.params;
  if (next.fallbackUrl !== link.fallbackUrl) out.fallbackUrl = next.fallbackUrl;
  if (next.redirectStatus !== link.redirectStatus) out.redirectStatus = next.redirectStatus;
  if (next.forwardQuery !== link.forwardQuery) out.forwardQuery = next.forwardQuery;
  // Write-only: a typed password is always sent; removing one is sent only if there is one.
  if (typeof next.password === 'string') out.password = next.password;
  else if (next.password === null && link.passwordProtected) out.password = null;
  if (!same(next.preview, link.preview)) out.preview = next.preview;
  if (!same(next.rules, link.rules)) out.rules = next.rules;
  return out;
}

/** The preview fields as the API takes them: all empty is no preview; empty parts left out. */
export function previewFrom(title: string, description: string, image: string): Preview | null {
  const [t, d, i] = [title.trim(), description.trim(), image.trim()];
  if (t === '' && d === '' && i === '') return null;
  const preview: Preview = { title: t };
  if (d !== '') preview.description = d;
  if (i !== '') preview.image = i;
  return preview;
}
