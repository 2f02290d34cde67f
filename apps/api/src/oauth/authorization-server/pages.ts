/**
 * The authorization server's HTML: sign-in, consent and error pages. Plain
 * server-rendered forms with no script, so they work with a keyboard, a screen
 * reader or JavaScript turned off. Every interpolated value is escaped.
 */

/** Scripts are never needed; styles are inline; nothing may frame the pages (clickjacking). */
export const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** What each scope lets an application do, in the words shown on the consent page. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'remote-viewing:read': 'Read your sessions and their results',
  'remote-viewing:write': 'Start sessions',
  'remote-viewing:delete': 'Delete sessions',
  'remote-viewing:admin': 'Administer every session of your organisation',
  'dowsing:read': 'Read dowsing queries and analyses',
  'dowsing:write': 'Run dowsing queries and analyses',
  'dowsing:delete': 'Delete dowsing queries and analyses',
  'dowsing:admin': 'Administer every dowsing query of your organisation',
  'analytics:read': 'Read history and analytics',
  'analytics:export': 'Export history and analytics',
  'analytics:admin': 'Administer analytics',
  'organizations:read': 'Read your organisation, its API keys and OAuth clients',
  'organizations:write': 'Manage your organisation, its API keys and OAuth clients',
  profile: 'Read your name',
  email: 'Read your email address',
  offline_access: 'Stay signed in (receive a refresh token)',
};

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; display: grid; place-items: center; min-height: 100vh; }
  main { width: min(26rem, 100% - 2rem); padding: 2rem 0; }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { display: block; width: 100%; box-sizing: border-box; padding: .6rem; font: inherit;
          margin-top: .25rem; border: 1px solid; border-radius: .25rem; }
  button { font: inherit; padding: .6rem 1.2rem; margin: 1.25rem .5rem 0 0; border-radius: .25rem;
           border: 1px solid; cursor: pointer; }
  button.primary { background: #1d4ed8; color: #fff; border-color: #1d4ed8; }
  :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  .error { border-left: 4px solid #b91c1c; padding: .5rem .75rem; background: #fef2f2; color: #7f1d1d; }
  .muted { opacity: .8; font-size: .95rem; }
  ul { padding-left: 1.25rem; }
`;

/** The page every HTML answer of the service shares: its head, style and frame. */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

function errorBlock(message: string | undefined): string {
  return message ? `<p class="error" id="form-error" role="alert">${escapeHtml(message)}</p>` : '';
}

/** Who registered the application: users can only allow their own organisation's. */
function ownerLine(organizationName: string): string {
  // The service's own dashboard (first-party) belongs to no one organisation.
  if (organizationName === '') return '';
  return `<p class="muted">Registered by the organisation <strong>${escapeHtml(organizationName)}</strong>; only its members can allow it.</p>`;
}

export function renderSignInPage(input: {
  action: string;
  abortAction: string;
  /** Where "Sign in with SSO" posts the work email; absent: no SSO form. */
  ssoAction?: string;
  clientName: string;
  organizationName: string;
  email?: string;
  error?: string;
}): string {
  const describedBy = input.error ? ' aria-describedby="form-error"' : '';
  const invalid = input.error ? ' aria-invalid="true"' : '';
  return layout(
    `Sign in to ${input.clientName}`,
    `<h1>Sign in</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to use your account.</p>
${ownerLine(input.organizationName)}
${errorBlock(input.error)}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="username" required autofocus
         value="${escapeHtml(input.email ?? '')}"${describedBy}${invalid}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${describedBy}${invalid}>
  <button type="submit" class="primary">Sign in</button>
</form>
${input.ssoAction ? ssoForm(input.ssoAction) : ''}
<form method="post" action="${escapeHtml(input.abortAction)}">
  <button type="submit">Cancel</button>
</form>`,
  );
}

/** "Sign in with SSO": the work email decides which identity provider or directory asks next. */
function ssoForm(action: string): string {
  return `<form method="post" action="${escapeHtml(action)}" novalidate>
  <p class="muted">Or, if your organisation signs you in with its own identity provider or directory:</p>
  <label for="sso-email">Work email</label>
  <input id="sso-email" name="email" type="email" autocomplete="username" required>
  <button type="submit">Sign in with SSO</button>
</form>`;
}

/** The password of an LDAP directory: the organisation's, not ours. */
export function renderDirectorySignInPage(input: {
  action: string;
  abortAction: string;
  clientName: string;
  organizationName: string;
  connectionName: string;
  email: string;
  error?: string;
}): string {
  const describedBy = input.error ? ' aria-describedby="form-error"' : '';
  const invalid = input.error ? ' aria-invalid="true"' : '';
  return layout(
    `Sign in to ${input.clientName}`,
    `<h1>Sign in with ${escapeHtml(input.connectionName)}</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to use your account.</p>
${ownerLine(input.organizationName)}
${errorBlock(input.error)}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="username" readonly
         value="${escapeHtml(input.email)}">
  <label for="password">Directory password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required autofocus${describedBy}${invalid}>
  <p class="muted">Checked by your organisation's directory; this service never keeps it.</p>
  <button type="submit" class="primary">Sign in</button>
</form>
<form method="post" action="${escapeHtml(input.abortAction)}">
  <button type="submit">Cancel</button>
</form>`,
  );
}

export function renderConsentPage(input: {
  action: string;
  abortAction: string;
  clientName: string;
  organizationName: string;
  userEmail: string;
  scopes: string[];
}): string {
  const items = input.scopes
    .map(
      (scope) =>
        `<li><strong>${escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope)}</strong> <span class="muted">(${escapeHtml(scope)})</span></li>`,
    )
    .join('\n    ');
  return layout(
    `Allow ${input.clientName} access?`,
    `<h1>Allow <span>${escapeHtml(input.clientName)}</span> access?</h1>
${ownerLine(input.organizationName)}
<p class="muted">Signed in as ${escapeHtml(input.userEmail)}</p>
<section aria-labelledby="scopes-heading">
  <h2 id="scopes-heading" style="font-size:1.1rem">It will be able to:</h2>
  <ul>
    ${items || '<li>Identify you (no other access)</li>'}
  </ul>
</section>
<form method="post" action="${escapeHtml(input.action)}" style="display:inline">
  <button type="submit" class="primary">Allow</button>
</form>
<form method="post" action="${escapeHtml(input.abortAction)}" style="display:inline">
  <button type="submit">Deny</button>
</form>`,
  );
}

/** Shown instead of the consent page when the account belongs to another organisation than the application. */
export function renderOtherOrganizationPage(input: {
  abortAction: string;
  clientName: string;
  organizationName: string;
  userEmail: string;
}): string {
  return layout(
    `${input.clientName} belongs to another organisation`,
    `<h1>You cannot allow this application</h1>
<p class="error" role="alert"><strong>${escapeHtml(input.clientName)}</strong> is registered by the organisation <strong>${escapeHtml(input.organizationName)}</strong>, and ${escapeHtml(input.userEmail)} is an account of another organisation. Applications can only be allowed by members of the organisation that registered them.</p>
<form method="post" action="${escapeHtml(input.abortAction)}">
  <button type="submit" class="primary">Back to the application</button>
</form>`,
  );
}

export function renderErrorPage(error: string, description: string | undefined): string {
  return layout(
    'Authorization error',
    `<h1>Something went wrong</h1>
<p class="error" role="alert"><strong>${escapeHtml(error)}</strong>${
      description ? `: ${escapeHtml(description)}` : ''
    }</p>
<p>Go back to the application and try again.</p>`,
  );
}

/** An IdP-initiated sign-in that was accepted: there is no application waiting for it here. */
export function renderIdpSignedInPage(email: string): string {
  return layout(
    'Signed in',
    `<h1>You are signed in</h1>
<p>Your identity provider signed you in as <strong>${escapeHtml(email)}</strong>, and your account here is up to date.</p>
<p>No application asked for this sign-in: open the application you want to use and choose "Sign in with SSO" there.</p>`,
  );
}
