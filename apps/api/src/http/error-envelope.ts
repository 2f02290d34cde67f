import { AppError, ERROR_HELP, httpStatusOf, type ErrorCode, type ErrorDetails } from '#common';

/** The spec's error body: `{ error: { code, message, details, request_id } }` (+ `help_url` in v2). */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    details: ErrorDetails;
    request_id: string;
    help_url?: string;
  };
}

export function errorEnvelope(
  error: AppError,
  requestId: string,
  version2: boolean,
  publicUrl: string,
): { status: number; body: ErrorEnvelope } {
  let code = error.code;
  let details = error.details;
  if (version2) {
    if (code === 'INVALID_REQUEST') code = 'VALIDATION_ERROR';
    details = { ...details, suggested_value: details.suggested_value ?? null };
  }
  const body: ErrorEnvelope = {
    error: { code, message: error.message, details, request_id: requestId },
  };
  if (version2) body.error.help_url = `${publicUrl}/docs/errors#${code.toLowerCase()}`;
  return { status: httpStatusOf(code), body };
}

/** The help page v2 errors link to: one anchor per code. */
export function errorHelpPage(): string {
  const rows = (Object.keys(ERROR_HELP) as ErrorCode[])
    .map(
      (code) =>
        `<section id="${code.toLowerCase()}"><h2><code>${code}</code> — HTTP ${httpStatusOf(code)}</h2><p>${escapeHtml(ERROR_HELP[code])}</p></section>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Error codes</h1><p>Every error body is <code>{"error": {"code", "message", "details", "request_id"}}</code>;
<code>details.field</code> names the offending field. Quote the <code>request_id</code> when asking for help.</p>
${rows}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!,
  );
}
