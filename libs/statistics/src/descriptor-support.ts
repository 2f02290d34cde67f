/**
 * Support of each descriptor: the share of analysts who reported it.
 * Descriptors are compared trimmed and lower-cased (the controlled
 * vocabulary is lower case); an analyst repeating a descriptor counts once;
 * blank entries are ignored. Keys come out by support (high first), then
 * alphabetically, so the output is stable. No analysts → {}.
 */
export function descriptorSupport(lists: readonly (readonly string[])[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const list of lists) {
    const own = distinctDescriptors(list);
    for (const descriptor of own) counts.set(descriptor, (counts.get(descriptor) ?? 0) + 1);
  }
  const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const support: Record<string, number> = {};
  for (const [descriptor, count] of ordered) support[descriptor] = count / lists.length;
  return support;
}

/**
 * How much analysts agree on descriptors: the mean, over every descriptor
 * anyone reported, of its support rescaled so that "only one analyst said
 * it" is 0 and "everyone said it" is 1: (s − 1/m)/(1 − 1/m) for m analysts.
 * Null when fewer than two analysts or nobody reported anything.
 */
export function descriptorAgreement(lists: readonly (readonly string[])[]): number | null {
  const m = lists.length;
  if (m < 2) return null;
  const shares = Object.values(descriptorSupport(lists));
  if (shares.length === 0) return null;
  const rescaled = shares.map((s) => (s - 1 / m) / (1 - 1 / m));
  return rescaled.reduce((a, b) => a + b, 0) / rescaled.length;
}

/** A descriptor as compared: trimmed and lower-cased. */
export function normalizeDescriptor(descriptor: string): string {
  return descriptor.trim().toLowerCase();
}

/** The distinct normalized descriptors of one list, blanks dropped. */
export function distinctDescriptors(list: readonly string[]): Set<string> {
  return new Set(list.map(normalizeDescriptor).filter((d) => d.length > 0));
}
