import { escapeHtml, layout, PAGE_HEADERS } from '../oauth/authorization-server/pages.js';

/**
 * The headers of the sign-in pages, and forms may post only back here: the
 * invitation page must not be made to send a password anywhere else.
 */
export const INVITATION_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': `${PAGE_HEADERS['Content-Security-Policy']}; form-action 'self'`,
  // The page's own form then carries its real Origin (no-referrer would make it the opaque
  // `null`, which a sandboxed frame or a data: page of any site sends too, and is refused).
  // The link's token still reaches no other site.
  'Referrer-Policy': 'same-origin',
};

/** Where a new member chooses their password (autocomplete tells password managers it is new). */
export function renderInvitationPage(input: {
  action: string;
  email: string;
  name: string;
  organizationName: string;
  minLength: number;
  error?: string;
}): string {
  const describedBy = input.error
    ? ' aria-describedby="form-error password-rule"'
    : ' aria-describedby="password-rule"';
  const invalid = input.error ? ' aria-invalid="true"' : '';
  return layout(
    `Set your password for ${input.organizationName}`,
    `<h1>Welcome, ${escapeHtml(input.name)}</h1>
<p>The organisation <strong>${escapeHtml(input.organizationName)}</strong> invited you. Choose a password to finish setting up your account.</p>
${input.error ? `<p class="error" id="form-error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action)}" novalidate>
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="username" readonly
         value="${escapeHtml(input.email)}">
  <label for="password">New password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required autofocus
         minlength="${input.minLength}"${describedBy}${invalid}>
  <p class="muted" id="password-rule">At least ${input.minLength} characters. A long phrase is easier to remember and harder to guess.</p>
  <label for="password_confirmation">Repeat the password</label>
  <input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required
         minlength="${input.minLength}"${invalid}>
  <button type="submit" class="primary">Set password</button>
</form>`,
  );
}

export function renderInvitationAcceptedPage(input: {
  email: string;
  organizationName: string;
}): string {
  return layout(
    'Your account is ready',
    `<h1>Your account is ready</h1>
<p>You can now sign in as <strong>${escapeHtml(input.email)}</strong> with the password you chose.</p>
<p>Sign in where <strong>${escapeHtml(input.organizationName)}</strong> sent you: the application it uses will ask you to sign in here.</p>`,
  );
}

/** Unknown, used, expired, or its account removed: all look the same from outside. */
export function renderInvitationGonePage(): string {
  return layout(
    'Invitation not found',
    `<h1>This invitation no longer works</h1>
<p class="error" role="alert">The link is unknown, has already been used, or has expired (invitations last 7 days).</p>
<p>If you have already set your password, sign in where your organisation sent you. Otherwise ask your organisation's administrator to invite you again.</p>`,
  );
}

/** A password form posted from another site: refused, whatever it held. */
export function renderCrossSitePage(): string {
  return layout(
    'Request refused',
    `<h1>This request was refused</h1>
<p class="error" role="alert">The form was sent from another site. Open your invitation link again and set your password on this page.</p>`,
  );
}
