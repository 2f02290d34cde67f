import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];
type Metadatas = ReturnType<Lookup>;

const CACHED = Symbol('sas:validation-metadata-cache');

/**
 * Remembers class-validator's answer to "which rules apply to this class".
 * Unremembered, every validation of every object, nested ones too, tests
 * each decorated class of the process for being an ancestor of the target
 * (typestack/class-validator#2686): with all the API's DTOs loaded that was
 * about 20 µs of each create (docs/benchmarks-history.md). The answer only changes
 * when a rule is added, so any addition forgets everything remembered.
 * Installed once per process, on the storage that all copies of
 * class-validator share.
 */
export function cacheValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [CACHED]?: true };
  if (marked[CACHED]) return;
  marked[CACHED] = true;

  let remembered = new WeakMap<object, Map<string, Metadatas>>();
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);

  storage.addValidationMetadata = (metadata) => {
    remembered = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    // Anything but a class (an object made without a constructor) is left to class-validator.
    if (typeof target !== 'function') return lookup(target, schema, always, strictGroups, groups);
    const key = [schema, always, strictGroups, ...(groups ?? [])].join('\u0000');
    let byOptions = remembered.get(target);
    if (byOptions === undefined) remembered.set(target, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (metadatas === undefined) {
      metadatas = lookup(target, schema, always, strictGroups, groups);
      byOptions.set(key, metadatas);
    }
    return metadatas;
  };
}
