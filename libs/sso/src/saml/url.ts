/** Whether `value` is an absolute http: or https: URL (which one a mode allows is the caller's rule). */
export function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}
