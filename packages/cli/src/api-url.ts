import { UsageError } from './exit-codes.js';

/** Hosts whose traffic never leaves the machine, where plain http exposes nothing. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The API address a command may use: https anywhere, plain http only to this
 * machine — elsewhere it would send the credential (an API key, a client
 * secret, tokens) in clear — unless `--insecure` says so. Anything not http(s)
 * is refused.
 */
export function checkedApiUrl(apiUrl: string, insecure = false): string {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new UsageError(`the API address ${apiUrl} is not a URL (https://api.example.com)`);
  }
  if (url.protocol === 'https:') return apiUrl;
  if (url.protocol !== 'http:') {
    throw new UsageError(
      `the API address must be https:// (or http:// to this machine), not ${url.protocol}`,
    );
  }
  const host = url.hostname.toLowerCase();
  if (LOCAL_HOSTS.has(host) || host.endsWith('.localhost') || insecure) return apiUrl;
  throw new UsageError(
    `refusing plain http to ${url.host}: the credential would cross the network unencrypted. ` +
      'Use https://, or pass --insecure if you really mean it (a test network, say).',
  );
}
