import { createInterface } from 'node:readline/promises';
import type { Action } from '../command-context.js';
import {
  configPath,
  DEFAULT_API_URL,
  DEFAULT_PROFILE,
  type Profile,
  readConfig,
  writeConfig,
} from '../config.js';
import { CliError, UsageError } from '../exit-codes.js';
import { fields } from '../output.js';
import { checkedApiUrl } from '../api-url.js';

interface LoginOptions {
  apiKey?: string;
  clientId?: string;
  clientSecret?: string;
  verify: boolean;
}

/**
 * `sas login`: an API key, or client credentials, stored in a profile of
 * the config file (0600). Asked for on a terminal when not given; checked
 * against the API (as `whoami`) before anything is written, unless --no-verify.
 */
export const login: Action<LoginOptions> = async ({ options, globals, out }) => {
  const profileName = globals.profile ?? process.env.SAS_PROFILE ?? DEFAULT_PROFILE;
  const apiUrl = checkedApiUrl(
    (globals.apiUrl ?? process.env.SAS_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, ''),
    globals.insecure,
  );
  let { apiKey, clientId, clientSecret } = options;
  if (apiKey && (clientId || clientSecret)) {
    throw new UsageError('give --api-key, or --client-id with --client-secret, not both');
  }
  if (!apiKey && !(clientId && clientSecret)) {
    if (clientId || clientSecret)
      throw new UsageError('--client-id needs --client-secret and vice versa');
    if (!process.stdin.isTTY) {
      throw new UsageError('give --api-key, or --client-id and --client-secret');
    }
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = (
      await prompt.question('API key (or leave empty for client credentials): ')
    ).trim();
    if (answer) apiKey = answer;
    else {
      clientId = (await prompt.question('Client id: ')).trim();
      clientSecret = (await prompt.question('Client secret: ')).trim();
    }
    prompt.close();
  }
  const profile: Profile = apiKey
    ? { api_url: apiUrl, api_key: apiKey }
    : { api_url: apiUrl, client_id: clientId!, client_secret: clientSecret! };
  let identity: Record<string, unknown> | null = null;
  if (options.verify) {
    const { identify } = await import('../identity.js');
    try {
      identity = {
        ...(await identify({
          apiUrl,
          profile: profileName,
          source: `profile ${profileName}`,
          credential: apiKey
            ? { kind: 'api_key', apiKey }
            : { kind: 'client_credentials', clientId: clientId!, clientSecret: clientSecret! },
        })),
      };
    } catch (error) {
      if (
        (error as { status?: number }).status === 401 ||
        (error as { code?: string }).code === 'invalid_client'
      ) {
        throw new CliError(
          `${apiUrl} refused the credential (${(error as Error).message}); nothing was stored`,
        );
      }
      throw error;
    }
  }
  const config = await readConfig();
  config.profiles[profileName] = profile;
  const path = configPath();
  await writeConfig(config, path);
  out.result({ profile: profileName, config_file: path, identity }, () =>
    [
      `Logged in: profile "${profileName}" stored in ${path} (mode 0600).`,
      ...(identity ? [fields(identity, out.colour)] : []),
    ].join('\n'),
  );
};

/** `sas logout`: removes the profile from the config file. */
export const logout: Action = async ({ globals, out }) => {
  const profileName = globals.profile ?? process.env.SAS_PROFILE ?? DEFAULT_PROFILE;
  const config = await readConfig();
  const existed = profileName in config.profiles;
  delete config.profiles[profileName];
  if (existed) await writeConfig(config);
  out.result({ profile: profileName, removed: existed }, () =>
    existed ? `Profile "${profileName}" removed.` : `No profile "${profileName}".`,
  );
};
