/** PostgreSQL channel that wakes the deliverers when deliveries become due. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';
