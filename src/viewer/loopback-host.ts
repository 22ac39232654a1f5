import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** Whether `host` (a bind address) is a loopback address. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return LOOPBACK_NAMES.has(bare) || bare.endsWith('.localhost') || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/**
 * Whether a request's Host header may be served. A page on another site can make a browser send
 * requests here through a DNS name that resolves to 127.0.0.1 (DNS rebinding): such requests carry
 * that name, so only loopback names pass. A server bound elsewhere on purpose (`host` option) also
 * accepts its bound host and IP literals, which no rebinding can forge.
 */
export function isAllowedHost(header: string | undefined, boundHost: string): boolean {
  if (header === undefined || header === '') return false;
  const name = hostName(header);
  if (name === undefined) return false;
  if (isLoopback(name)) return true;
  if (isLoopback(boundHost)) return false;
  return name === boundHost.toLowerCase() || isIP(name) !== 0;
}

/** `example.com:80` → `example.com`, `[::1]:80` → `::1`; undefined when malformed. */
function hostName(header: string): string | undefined {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return undefined;
    const rest = value.slice(end + 1);
    return rest === '' || /^:\d+$/.test(rest) ? value.slice(1, end) : undefined;
  }
  const match = /^([^:]+)(?::\d+)?$/.exec(value);
  return match?.[1];
}
