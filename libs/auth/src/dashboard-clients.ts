import type { Mode } from '#common';

/**
 * The service's own web dashboard (apps/dashboard) signs people in with the
 * authorization code flow through two public clients the service registers
 * for itself at start, one per mode: an access token has one mode (the
 * client's), so switching mode in the dashboard is signing in with the other
 * client. They are first-party: unlike an organisation's own clients they
 * sign in a person of any organisation, and the tokens they get carry the
 * person's organisation (never the operator's), without a consent page.
 */
export const DASHBOARD_CLIENT_IDS: Readonly<Record<Mode, string>> = {
  live: 'sas-dashboard',
  test: 'sas-dashboard-test',
};

/** Where the authorization server sends the browser back to, under PUBLIC_URL. */
export const DASHBOARD_CALLBACK_PATH = '/dashboard/callback';

/** Whether a client is one of the service's own (see DASHBOARD_CLIENT_IDS). */
export function isFirstPartyClient(clientId: string | undefined): boolean {
  return clientId === DASHBOARD_CLIENT_IDS.live || clientId === DASHBOARD_CLIENT_IDS.test;
}
