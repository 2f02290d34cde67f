import { fileTypeFromBuffer } from 'file-type';

/**
 * What the bytes are, read from the bytes: a server's Content-Type is a claim,
 * not a fact (a "photo" URL that answers with a login page is common).
 * `file-type` knows the binary formats by their signatures; what it does not
 * know is text when it is valid UTF-8 with no binary control bytes, told
 * apart as HTML or XML by its first tag (the WHATWG MIME sniffing rules).
 * Null when nothing matches.
 */
export async function sniffContentType(bytes: Uint8Array): Promise<string | null> {
  if (bytes.length === 0) return null;
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) return detected.mime;
  return sniffText(bytes);
}

/** Text types a server may name for bytes that sniff as plain UTF-8 text. */
const TEXT_REFINEMENTS = new Set(['text/markdown', 'text/csv']);

/**
 * The type to record: the sniffed one, except that plain text declared as
 * Markdown or CSV keeps that name (the bytes cannot tell them apart, and the
 * claim is harmless once the bytes are known to be text).
 */
export function refineContentType(sniffed: string | null, declared: string | null): string | null {
  const essence = mediaTypeEssence(declared);
  if (sniffed === 'text/plain' && essence !== null && TEXT_REFINEMENTS.has(essence)) return essence;
  return sniffed;
}

/** `Text/HTML; charset=utf-8` → `text/html`; null when absent or empty. */
export function mediaTypeEssence(declared: string | null | undefined): string | null {
  const essence = declared?.split(';')[0]?.trim().toLowerCase();
  return essence ? essence : null;
}

/** text/html, text/xml or text/plain for UTF-8 text; null for anything else. */
export function sniffText(bytes: Uint8Array): string | null {
  for (const byte of bytes) if (isBinaryByte(byte)) return null;
  let text: string;
  try {
    // The decoder drops a leading byte-order mark.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  if (HTML_START.test(text)) return 'text/html';
  if (XML_START.test(text)) return 'text/xml';
  return 'text/plain';
}

/** The WHATWG "binary data bytes": control characters that text does not contain. */
function isBinaryByte(byte: number): boolean {
  return (
    byte <= 0x08 ||
    byte === 0x0b ||
    (byte >= 0x0e && byte <= 0x1a) ||
    (byte >= 0x1c && byte <= 0x1f)
  );
}

// https://mimesniff.spec.whatwg.org/#identifying-a-resource-with-an-unknown-mime-type
const HTML_START =
  /^[\t\n\f\r ]*<(?:!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[ >]/i;
const XML_START = /^[\t\n\f\r ]*<\?xml/;
