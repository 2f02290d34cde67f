/**
 * A short, safe description of a transport failure (for attempt records and
 * failed items): never a stack, never more than the error's own code and message.
 * `timeout` is the sentence for any of the timeouts.
 */
export function describeTransportError(error: unknown, timeout: string): string {
  const { name, code, message, cause } = error as {
    name?: string;
    code?: string;
    message?: string;
    cause?: unknown;
  };
  if (
    name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return timeout;
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'EREFUSEDDEST') return message ?? 'refused destination';
  if (code === 'EADDRFAMILY') return message ?? "no address of the source addresses' family";
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'the host does not resolve';
  if (
    code?.startsWith('ERR_TLS') ||
    code?.includes('CERT') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
  ) {
    return `TLS failure: ${code} (${message ?? ''})`;
  }
  if (cause && cause !== error) return describeTransportError(cause, timeout);
  return `${code ?? name ?? 'error'}: ${message ?? 'request failed'}`;
}

/**
 * "TLS failure: CODE (message)" when the error (or one of its causes) is a
 * failed certificate check or handshake, by any of OpenSSL's verification
 * codes, including those describeTransportError does not recognise
 * (UNABLE_TO_VERIFY_LEAF_SIGNATURE: an unknown CA); null otherwise. Node's
 * advice to try --use-system-ca is dropped: it is not the caller's to follow.
 */
export function describeTlsFailure(error: unknown): string | null {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message, cause } = current as {
      code?: unknown;
      message?: string;
      cause?: unknown;
    };
    if (typeof code === 'string' && TLS_CODE.test(code)) {
      return `TLS failure: ${code} (${(message ?? '').split('; if the root CA')[0]})`;
    }
    current = cause === current ? undefined : cause;
  }
  return null;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_)|CERT/;
