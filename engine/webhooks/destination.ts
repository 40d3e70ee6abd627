// Where webhook deliveries may go. In production (unless CASHLOOP_WEBHOOK_ALLOW_PRIVATE is set) a
// handler must be https and every address its host resolves to must be public unicast: no
// loopback, private, link-local, carrier-grade NAT, unique-local or reserved ranges. The check runs
// at registration and again inside the delivery's own DNS lookup, so a name that later resolves
// to a private address (DNS rebinding) is still refused.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as lookupAll } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface DestinationPolicy {
  /** Refuse non-public addresses and plain http (production without the allow setting). */
  guarded: boolean;
}

/** Public unicast only; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

export type DestinationProblem = { ok: false; reason: string };

/** Checks a handler URL's form and scheme (https under a guarded policy), without resolving it. */
export function checkUrl(text: string, policy: DestinationPolicy): { ok: true; url: URL } | DestinationProblem {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'is not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must be an http or https URL' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  if (policy.guarded && url.protocol !== 'https:') return { ok: false, reason: 'must be https in production' };
  return { ok: true, url };
}

/** checkUrl, and under a guarded policy every address the host resolves to (at registration). */
export async function checkDestination(text: string, policy: DestinationPolicy, resolve: (host: string, options: { all: true }) => Promise<LookupAddress[]> = lookupAll): Promise<{ ok: true; url: URL } | DestinationProblem> {
  const checked = checkUrl(text, policy);
  if (!checked.ok || !policy.guarded) return checked;
  const { url } = checked;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await resolve(host, { all: true })).map((entry) => entry.address);
  } catch {
    return { ok: false, reason: 'has a host name that does not resolve' };
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) return { ok: false, reason: 'resolves to a loopback, private or reserved address' };
  return { ok: true, url };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses non-public answers (used when the policy is guarded). */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const refused = list.find((entry) => !isPublicAddress(entry.address));
    if (refused || list.length === 0) {
      const problem: NodeJS.ErrnoException = new Error(`webhook host ${hostname} resolves to a non-public address`);
      problem.code = 'EWEBHOOKDESTINATION';
      return callback(problem, []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}
