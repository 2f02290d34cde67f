/**
 * A PostgreSQL WAL position (`pg_lsn`, written `16/B374D848`) as a number of
 * bytes. A double holds it exactly up to 2^53 bytes (8 PiB of WAL), so it can
 * be compared in JavaScript and in Redis's Lua alike.
 */
export type Lsn = number;

export function parseLsn(text: string): Lsn {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text);
  if (!match) throw new Error(`"${text}" is not a WAL position`);
  return Number.parseInt(match[1]!, 16) * 2 ** 32 + Number.parseInt(match[2]!, 16);
}
