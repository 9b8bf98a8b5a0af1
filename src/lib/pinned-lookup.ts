/**
 * Outgoing requests to an address an admin gave (a webhook's URL, a domain's upstream): the
 * name is resolved once, refused when any of its addresses is internal (private-address.ts)
 * unless the operator allows it, and the connection goes to the very address that was checked,
 * so a name pointed at the inside between a check and the connect gets nowhere.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from './private-address';

/** Every address a host name resolves to (an IP literal is its own). */
export async function addressesOf(host: string): Promise<LookupAddress[]> {
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family }];
  return lookup(host, { all: true, verbatim: true });
}

/**
 * The first internal address a host name (or IP literal, IPv6 without brackets) is or resolves
 * to, or null: none, or a name that does not resolve (yet: nothing it leads to, and every
 * request checks again through pinnedLookup).
 */
export async function internalAddressOf(host: string): Promise<string | null> {
  let addresses: LookupAddress[];
  try {
    addresses = await addressesOf(host);
  } catch {
    return null;
  }
  return addresses.find((a) => isPrivateAddress(a.address))?.address ?? null;
}

/**
 * The internal address a URL's host is written as, or null: node:http(s) connects to an
 * address in the URL without any lookup, so `pinnedLookup` never sees it and it is checked here.
 */
export function internalLiteral(url: URL): string | null {
  const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(literal) !== 0 && isPrivateAddress(literal) ? literal : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) requests: resolves the name, refuses it (error code EPRIVATE)
 * when any address is internal (unless allowed), and hands the connection the checked address,
 * so nothing can change between the check and the connect.
 */
export function pinnedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    addressesOf(hostname).then(
      (addresses) => {
        const inside = addresses.find((a) => isPrivateAddress(a.address));
        if (!allowPrivate && (inside !== undefined || addresses.length === 0)) {
          const err: NodeJS.ErrnoException = new Error(
            `${hostname} leads to an internal address (${inside?.address ?? 'none'}), refused`,
          );
          err.code = 'EPRIVATE';
          callback(err, '');
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
