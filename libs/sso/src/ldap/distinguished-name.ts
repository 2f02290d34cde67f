/** One `type=value` of a relative distinguished name, the value unescaped. */
export interface AttributeTypeAndValue {
  type: string;
  value: string;
}

/** A distinguished name as RFC 4514 writes it: RDNs left (most specific) to right. */
export type ParsedDn = AttributeTypeAndValue[][];

export class InvalidDnError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidDnError';
  }
}

const DESCRIPTOR = /^[A-Za-z][A-Za-z0-9-]*$/;
const NUMERIC_OID = /^\d+(\.\d+)+$/;
const ESCAPABLE = new Set(['"', '+', ',', ';', '<', '>', '\\', '=', '#', ' ']);
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/**
 * Parses an RFC 4514 distinguished name (ldapts has a DN builder but no parser): `\`
 * escapes, hex-pair escapes of UTF-8 bytes, `#hex` BER values, multi-valued RDNs (`+`).
 * Throws InvalidDnError naming what is wrong. The empty string is the empty DN.
 */
export function parseDn(dn: string): ParsedDn {
  const rdns: ParsedDn = [];
  if (dn.trim() === '') return rdns;
  let position = 0;
  let rdn: AttributeTypeAndValue[] = [];
  for (;;) {
    const equals = dn.indexOf('=', position);
    if (equals === -1) throw new InvalidDnError(`"${dn.slice(position)}" has no "="`);
    const type = dn.slice(position, equals).trim();
    if (!DESCRIPTOR.test(type) && !NUMERIC_OID.test(type)) {
      throw new InvalidDnError(`"${type}" is not an attribute type`);
    }
    const { value, end } = readValue(dn, equals + 1);
    rdn.push({ type, value });
    position = end + 1;
    const separator = dn[end];
    if (separator === '+') continue;
    rdns.push(rdn);
    rdn = [];
    if (separator === undefined) return rdns;
  }
}

/** The value of the first (most specific) RDN, e.g. `Engineers` of `cn=Engineers,ou=groups,…`. */
export function firstRdnValue(dn: string): string | null {
  try {
    return parseDn(dn)[0]?.[0]?.value ?? null;
  } catch {
    return null;
  }
}

/** The first RDN's attribute type, lower-cased (`cn`), or null for an empty or invalid DN. */
export function firstRdnType(dn: string): string | null {
  try {
    return parseDn(dn)[0]?.[0]?.type.toLowerCase() ?? null;
  } catch {
    return null;
  }
}

/** Reads one attribute value from `start`; `end` is the index of the `,` `;` `+` or the end. */
function readValue(dn: string, start: number): { value: string; end: number } {
  let position = start;
  while (dn[position] === ' ') position++;
  if (dn[position] === '#') return readHexValue(dn, position + 1);
  const bytes: number[] = [];
  let trailingSpaces = 0;
  for (; position < dn.length; position++) {
    const char = String.fromCodePoint(dn.codePointAt(position)!);
    if (char === ',' || char === ';' || char === '+') break;
    if (char === '\\') {
      const pair = dn.slice(position + 1, position + 3);
      if (HEX_PAIR.test(pair)) {
        bytes.push(parseInt(pair, 16));
        position += 2;
      } else if (ESCAPABLE.has(dn[position + 1] ?? '')) {
        bytes.push(dn.charCodeAt(position + 1));
        position += 1;
      } else {
        throw new InvalidDnError(`a "\\" at ${position} escapes nothing`);
      }
      trailingSpaces = 0;
      continue;
    }
    if (char === '"' || char === '<' || char === '>' || char === '\0') {
      throw new InvalidDnError(`"${char}" at ${position} must be escaped`);
    }
    trailingSpaces = char === ' ' ? trailingSpaces + 1 : 0;
    bytes.push(...Buffer.from(char, 'utf8'));
    position += char.length - 1; // a character outside the BMP is two UTF-16 units
  }
  const value = Buffer.from(bytes.slice(0, bytes.length - trailingSpaces));
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return { value: text.decode(value), end: position };
  } catch {
    throw new InvalidDnError('an escaped value is not UTF-8');
  }
}

function readHexValue(dn: string, start: number): { value: string; end: number } {
  let end = start;
  while (end < dn.length && !',;+'.includes(dn[end]!)) end++;
  const hex = dn.slice(start, end).trim();
  if (hex === '' || hex.length % 2 !== 0 || !/^[0-9A-Fa-f]+$/.test(hex)) {
    throw new InvalidDnError(`"#${hex}" is not a hex-encoded value`);
  }
  return { value: `#${hex}`, end };
}
