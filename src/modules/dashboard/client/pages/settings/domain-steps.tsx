/**
 * What makes a new domain answer: its DNS pointing at this server, and the proxy in front
 * passing the Host header along. Slink cannot do either itself, so it says exactly what to do.
 */
import type { Domain } from '../../api/types';

/** The app host's name, from its origin (https://app.example.com -> app.example.com). */
const hostOf = (origin: string) => {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
};

export function DomainSteps({ domain, appHost }: { domain: Domain; appHost: string | null }) {
  const app = appHost ? hostOf(appHost) : null;
  return (
    <ol class="steps">
      <li>
        In its DNS, create an <code>A</code> record (and an <code>AAAA</code> record for IPv6) for{' '}
        <code>{domain.host}</code> with this server's address
        {app ? (
          <>
            , or a <code>CNAME</code> record for <code>{domain.host}</code> to <code>{app}</code>
          </>
        ) : null}
        .
      </li>
      <li>
        The proxy in front of Slink (Caddy, nginx) must accept <code>{domain.host}</code>, serve its certificate, and
        pass each request on with its <code>Host</code> header as it came (nginx:{' '}
        <code>proxy_set_header Host $host;</code>
        ).
      </li>
      <li>
        The Caddy and nginx set-ups, with a certificate for every domain, are in <code>docs/operations.md</code> of
        Slink's documentation.
      </li>
      <li>
        Once a first request reaches <code>{domain.host}</code>, this page shows its time under Last request; until then
        it says no request has arrived.
      </li>
    </ol>
  );
}
