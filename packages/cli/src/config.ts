import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkedApiUrl } from './api-url.js';
import { CliError, UsageError } from './exit-codes.js';

/** A stored profile: where the API is and the credential to use there. */
export interface Profile {
  api_url: string;
  api_key?: string;
  client_id?: string;
  client_secret?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** What a command authenticates with, and where it came from (for `whoami`). */
export type Credential =
  | { kind: 'api_key'; apiKey: string }
  | { kind: 'client_credentials'; clientId: string; clientSecret: string };

export interface Resolved {
  apiUrl: string;
  credential: Credential;
  /** `environment`, or `profile <name>`. */
  source: string;
  profile: string;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_API_URL = 'http://localhost:3000';

/**
 * `$XDG_CONFIG_HOME/sas`, else `~/.config/sas`; `%APPDATA%\sas` on Windows.
 * SAS_CONFIG_DIR overrides all (tests, several setups side by side).
 */
export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SAS_CONFIG_DIR) return env.SAS_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'sas');
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'sas');
  return join(env.HOME || homedir(), '.config', 'sas');
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDirectory(env), 'config.json');
}

export async function readConfig(path = configPath()): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { profiles: parsed.profiles ?? {} };
  } catch {
    throw new CliError(`${path} is not valid JSON: fix or delete it, then run sas login again`);
  }
}

/**
 * Writes the file readable by its owner only (0600, directory 0700): it holds
 * secrets. Written to a temporary file first so a crash never leaves half a file,
 * and chmod'ed afterwards since an existing file keeps its old mode.
 */
export async function writeConfig(config: ConfigFile, path = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await chmod(dirname(path), 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/**
 * The API address and credential a command uses. The environment wins over
 * the stored profile (SAS_API_URL; SAS_API_KEY, or SAS_CLIENT_ID with
 * SAS_CLIENT_SECRET), and `--api-url` over both.
 */
export async function resolveCredentials(
  options: { profile?: string | undefined; apiUrl?: string | undefined; insecure?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Resolved> {
  const profileName = options.profile ?? env.SAS_PROFILE ?? DEFAULT_PROFILE;
  const fromEnv = credentialFromEnv(env);
  const config = fromEnv && options.profile === undefined ? null : await readConfig();
  const profile = config?.profiles[profileName];
  if (options.profile !== undefined && !profile && !fromEnv) {
    throw new UsageError(`no profile "${profileName}": run sas login --profile ${profileName}`);
  }
  const credential = fromEnv ?? (profile ? credentialOfProfile(profile) : null);
  if (!credential) {
    throw new CliError(
      'not logged in: run sas login, or set SAS_API_KEY (or SAS_CLIENT_ID and SAS_CLIENT_SECRET)',
    );
  }
  const apiUrl = options.apiUrl ?? env.SAS_API_URL ?? profile?.api_url ?? DEFAULT_API_URL;
  return {
    apiUrl: checkedApiUrl(apiUrl.replace(/\/+$/, ''), options.insecure),
    credential,
    source: fromEnv ? 'environment' : `profile ${profileName}`,
    profile: profileName,
  };
}

function credentialFromEnv(env: NodeJS.ProcessEnv): Credential | null {
  if (env.SAS_API_KEY) return { kind: 'api_key', apiKey: env.SAS_API_KEY };
  if (env.SAS_CLIENT_ID && env.SAS_CLIENT_SECRET) {
    return {
      kind: 'client_credentials',
      clientId: env.SAS_CLIENT_ID,
      clientSecret: env.SAS_CLIENT_SECRET,
    };
  }
  return null;
}

function credentialOfProfile(profile: Profile): Credential | null {
  if (profile.api_key) return { kind: 'api_key', apiKey: profile.api_key };
  if (profile.client_id && profile.client_secret) {
    return {
      kind: 'client_credentials',
      clientId: profile.client_id,
      clientSecret: profile.client_secret,
    };
  }
  return null;
}
