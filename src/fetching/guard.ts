// SSRF guard. Every URL is hostile until checked: only http(s), no credentials, and no address
// outside the public unicast space — checked on the literal host, on every resolved address at
// connect time (no DNS-rebinding window), and again on every redirect hop.
import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

export class FetchRefusedError extends Error {
  override name = 'FetchRefused';
}

/** Why an address may not be fetched, or undefined when it is public unicast. */
export function forbiddenReason(address: string): string | undefined {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return `"${address}" is not an IP address`;
  }
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  return range === 'unicast' ? undefined : `${ip.toString()} is a ${range} address`;
}

export interface Target {
  url: URL;
  /** host or host:port as written in the allowlist. */
  allowed: boolean;
}

export function parseAllowList(...lists: (string | string[] | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const list of lists) {
    const items = Array.isArray(list) ? list : (list ?? '').split(',');
    for (const item of items) if (item.trim()) out.add(item.trim().toLowerCase());
  }
  return out;
}

/** Validates a URL before any connection: scheme, credentials, literal addresses, allowlist. */
export function checkUrl(raw: string, allow: Set<string>): Target {
  let url: URL;
  try {
    url = new URL(raw); // WHATWG parsing turns decimal, octal and hex IPv4 forms into dotted quads
  } catch {
    throw new FetchRefusedError(`refused "${raw.slice(0, 200)}": not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`refused ${url.protocol} URL: only http and https are fetched`);
  if (url.username || url.password) throw new FetchRefusedError('refused a URL with credentials in it');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const allowed = allow.has(host) || allow.has(`${host}:${port}`) || allow.has(`[${host}]:${port}`);
  if (!allowed && ipaddr.isValid(host)) {
    const reason = forbiddenReason(host);
    if (reason) throw new FetchRefusedError(`refused ${url.origin}: ${reason} (allow a host with FETCH_ALLOW_HOSTS)`);
  }
  return { url, allowed };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement for the HTTP agent: resolves, then refuses any non-public address. */
export function guardedLookup(hostname: string, options: LookupOptions | undefined, callback: LookupCallback): void {
  const family = options?.family === 'IPv4' ? 4 : options?.family === 'IPv6' ? 6 : (options?.family ?? 0);
  dnsLookup(hostname, { all: true, family }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const a of addresses) {
      const reason = forbiddenReason(a.address);
      if (reason) return callback(new FetchRefusedError(`refused ${hostname}: it resolves to ${reason} (allow a host with FETCH_ALLOW_HOSTS)`), []);
    }
    if (options?.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}
