// The limits every organisation the bench uses gets, so that no phase is ever throttled: the
// enterprise plan and custom tier, with agreed numbers far above anything the load sends (requests
// a minute, concurrent sessions) and no hourly or daily quota (null: the custom tier's unlimited).
// Sent as the body of POST /v2/enterprise/organizations (the list phase's organisation) and
// PATCH /v2/enterprise/organizations/{id} (the operator organisation the HTTP and webhook phases use).

const MAX_AGREED = 100_000_000; // the largest agreed number the API accepts

export const BENCH_LIMITS = Object.freeze({
  plan: 'enterprise',
  tier: 'custom',
  requests_per_minute: MAX_AGREED,
  max_concurrent_sessions: MAX_AGREED,
  requests_per_hour: null,
  requests_per_day: null,
});

/** Throws unless an organisation (as the v2 API returns it) has BENCH_LIMITS in effect. */
export function assertUnthrottled(organization, what) {
  const wrong = Object.entries(BENCH_LIMITS).filter(
    ([key, value]) => organization?.[key] !== value,
  );
  if (wrong.length > 0)
    throw new Error(
      `${what}: limits not as the bench needs them (${wrong
        .map(([key, value]) => `${key} ${JSON.stringify(organization?.[key])}, wanted ${value}`)
        .join('; ')})`,
    );
}
