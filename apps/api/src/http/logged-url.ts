/** What a redacted part of a URL reads as in the access log. */
export const REDACTED = '[redacted]';

/**
 * Paths whose next segment is a credential: an invitation link's token (it
 * sets the invited person's password), and an authorization interaction's
 * uid (with its cookie, a sign-in in progress).
 */
// Case-insensitive, as Express routes are.
const SECRET_SEGMENT_AFTER = [/^\/invitations\/[^/]+/i, /^\/oauth2\/interaction\/[^/]+/i];

/**
 * Query parameters whose values are ids, enums, numbers, booleans or dates by
 * the API's design, so they are logged as sent. Every other one — search
 * text (`q`), a dowsing `question`, an authorization `code`, `state` or
 * `nonce`, a pagination `cursor` (which can carry a sort key's text), a
 * parameter no route knows — is logged by name with its value redacted: an
 * allow-list, so a new free-text parameter is safe by default.
 */
const LOGGED_QUERY_PARAMETERS = new Set([
  'limit',
  'offset',
  'page',
  'per_page',
  'status',
  'type',
  'kind',
  'role',
  'mode',
  'interval',
  'format',
  'report_type',
  'source_type',
  'verdict',
  'sort',
  'order',
  'dry_run',
  'include_delivered',
  'significant',
  'analyst_id',
  'case_id',
  'webhook_id',
  'query_id',
  'session_id',
  'since_event_id',
  'created_after',
  'created_before',
  'date_from',
  'date_to',
  'from',
  'to',
  'confidence_score',
  'hit_rate',
  'lift',
  'p_adjusted',
  'share_of_hits',
  'share_of_verified',
  'radius_meters',
  'client_id',
  'response_type',
  'response_mode',
  'scope',
  'prompt',
  'code_challenge_method',
  'error',
]);

/**
 * The request URL as the access log may record it: credentials in the path
 * and free-text query values replaced by `[redacted]`. The path is otherwise
 * kept as sent (ids in it name resources, not secrets).
 */
export function loggedUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? null : url.slice(queryStart + 1);
  return `${loggedPath(path)}${query === null ? '' : `?${loggedQuery(query)}`}`;
}

function loggedPath(path: string): string {
  for (const pattern of SECRET_SEGMENT_AFTER) {
    const match = pattern.exec(path);
    if (match) {
      const prefix = match[0].slice(0, match[0].lastIndexOf('/') + 1);
      return `${prefix}${REDACTED}${path.slice(match[0].length)}`;
    }
  }
  return path;
}

function loggedQuery(query: string): string {
  if (query === '') return '';
  return query
    .split('&')
    .map((pair) => {
      const separator = pair.indexOf('=');
      const rawName = separator === -1 ? pair : pair.slice(0, separator);
      if (LOGGED_QUERY_PARAMETERS.has(nameOf(rawName))) return pair;
      if (separator === -1) return REDACTED;
      // A name outside the list may itself be text someone typed: only a plain one is kept.
      return `${/^[\w.[\]-]{1,64}$/.test(rawName) ? rawName : REDACTED}=${REDACTED}`;
    })
    .join('&');
}

function nameOf(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
