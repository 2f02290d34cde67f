import { apiRequest } from '../api.js';
import type { Action } from '../command-context.js';
import { resolveCredentials } from '../config.js';
import { fields } from '../output.js';

/** `sas events trigger <type>`: one sample event (`POST /v2/events/trigger`). */
export const trigger: Action = async ({ args, globals, out }) => {
  const resolved = await resolveCredentials(globals);
  const event = await apiRequest<Record<string, unknown>>(resolved, 'POST', '/v2/events/trigger', {
    type: args[0],
  });
  out.result(
    event,
    () =>
      `Triggered ${event.type} (${event.id}, livemode ${event.livemode}).\n${fields(event, out.colour)}`,
  );
};
