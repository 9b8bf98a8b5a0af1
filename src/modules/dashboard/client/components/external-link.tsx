/**
 * A user-supplied URL shown as text and, only when it is http(s), as a link that opens in a new
 * tab without handing this page to the target (noopener) or leaking the dashboard's address.
 */
import { safeHref } from '../lib/safe-href';

export function ExternalLink({ url, class: className }: { url: string; class?: string }) {
  const href = safeHref(url);
  if (!href) return <span class={className}>{url}</span>;
  return (
    <a class={className} href={href} target="_blank" rel="noopener noreferrer">
      {url}
    </a>
  );
}
