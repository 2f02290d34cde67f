import { SasError } from '@sas/sdk';

/** An error from the API as people need it: the message and the request id to quote. */
export function ApiError({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof SasError ? error.requestId : null;
  return (
    <div className="error" role="alert">
      <p>{message}</p>
      {requestId && (
        <p className="muted">
          Request id: <code>{requestId}</code>
        </p>
      )}
    </div>
  );
}
