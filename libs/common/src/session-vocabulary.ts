/** The spec's session enums, shared by storage, engines and the HTTP layer. */
export const SESSION_TYPES = ['remote_viewing', 'dowsing', 'automatic_writing'] as const;
export type SessionType = (typeof SESSION_TYPES)[number];
export const SESSION_STATUSES = ['initiated', 'in_progress', 'completed', 'failed'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const MODALITIES = ['visual', 'kinesthetic', 'auditory'] as const;
export type Modality = (typeof MODALITIES)[number];
export const PRIVACY_LEVELS = ['public', 'private', 'classified'] as const;
export type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];
