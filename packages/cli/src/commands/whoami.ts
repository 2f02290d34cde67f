import type { Action } from '../command-context.js';
import { resolveCredentials } from '../config.js';
import { identify } from '../identity.js';
import { fields } from '../output.js';

/** `sas whoami`: the organisation, mode, credential kind and scopes in use. */
export const whoami: Action = async ({ globals, out }) => {
  const identity = await identify(await resolveCredentials(globals));
  out.result(identity, () => {
    const { notes, scopes, ...rest } = identity;
    return [
      fields({ ...rest, scopes: scopes ? scopes.join(' ') : '(unknown)' }, out.colour),
      ...notes.map((note) => out.colour.yellow(`note: ${note}`)),
    ].join('\n');
  });
};
