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

/** The IPv4 address in two 16-bit groups of an IPv6 address (xor'd for Teredo's obfuscated client). */
function ipv4Of(high: number, low: number, mask = 0): ipaddr.IPv4 {
  const value = (((high << 16) | low) ^ mask) >>> 0;
  return new ipaddr.IPv4([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address embeds, whatever its form: compatible (::a.b.c.d), mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96 and 64:ff9b:1::/48), 6to4
 * (2002::/16), Teredo (2001::/32: server and client) and ISATAP interface ids (…:5efe:a.b.c.d).
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts;
  const zero = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0);
  if (zero(0, 6)) return [ipv4Of(parts[6], parts[7])];
  if (zero(0, 5) && parts[5] === 0xffff) return [ipv4Of(parts[6], parts[7])];
  if (zero(0, 4) && parts[4] === 0xffff && parts[5] === 0) return [ipv4Of(parts[6], parts[7])];
  if (parts[0] === 0x64 && parts[1] === 0xff9b && (parts[2] === 0 || parts[2] === 1)) return [ipv4Of(parts[6], parts[7]), ipv4Of(0, 0)];
  if (parts[0] === 0x2002) return [ipv4Of(parts[1], parts[2])];
  if (parts[0] === 0x2001 && parts[1] === 0) return [ipv4Of(parts[2], parts[3]), ipv4Of(parts[6], parts[7], 0xffffffff)];
  if ((parts[4] & 0xfdff) === 0 && parts[5] === 0x5efe) return [ipv4Of(parts[6], parts[7])];
  return [];
}

/**
 * Public unicast only. An IPv6 address that embeds IPv4 addresses is judged by them (every one
 * must be public), so no IPv6 spelling of loopback or a private range gets through; NAT64's
 * local-use prefix always fails (it carries 0.0.0.0 in the list).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const embedded = embeddedIpv4(parsed as ipaddr.IPv6);
  if (embedded.length > 0) return embedded.every((ipv4) => ipv4.range() === 'unicast');
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
  // A literal address is connected to without any lookup, so it is judged here, before each delivery too.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.guarded && ipaddr.isValid(host) && !isPublicAddress(host)) return { ok: false, reason: 'resolves to a loopback, private or reserved address' };
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
