import { SessionCreatedV1Dto } from '../v1/session-v1.dto.js';

/** The compact answer for mobile clients: what to poll, and when to expect it done. */
export class MobileSessionCreatedDto extends SessionCreatedV1Dto {}
