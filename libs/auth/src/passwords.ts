import { argon2, randomBytes, timingSafeEqual, type Argon2Parameters } from 'node:crypto';

/**
 * Password hashes: argon2id with OWASP's first recommended profile (19 MiB,
 * two passes, one lane), in the PHC string form other tools read.
 */
const PROFILE = { memory: 19_456, passes: 2, parallelism: 1 };
const TAG_LENGTH = 32;
/** Longer inputs are refused before hashing: a megabyte "password" must not cost the server anything. */
export const MAX_PASSWORD_LENGTH = 1024;

function derive(
  password: string,
  nonce: Buffer,
  profile: typeof PROFILE,
  tagLength: number,
): Promise<Buffer> {
  const parameters: Argon2Parameters = { message: password, nonce, tagLength, ...profile };
  return new Promise((resolve, reject) => {
    argon2('argon2id', parameters, (error, hash) => (error ? reject(error) : resolve(hash)));
  });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, PROFILE, TAG_LENGTH);
  const { memory, passes, parallelism } = PROFILE;
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${b64(salt)}$${b64(hash)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match || password.length > MAX_PASSWORD_LENGTH) return false;
  const [, memory, passes, parallelism, salt, hash] = match;
  const expected = Buffer.from(hash!, 'base64');
  const actual = await derive(
    password,
    Buffer.from(salt!, 'base64'),
    { memory: Number(memory), passes: Number(passes), parallelism: Number(parallelism) },
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

let decoy: Promise<string> | null = null;

/** Compared against when no such account exists, so both answers take as long. */
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
