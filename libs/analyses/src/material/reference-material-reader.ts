import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { OutboundFetcher } from '#outbound';
import type { MaterialItem, MaterialKind } from './material-item.js';
import { readMaterial, unfetchedItem } from './material-reading.js';

/**
 * Fetches one item of an analysis's reference material under the outbound
 * destination policy (REFERENCE_MATERIAL_MAX_BYTES, REFERENCE_MATERIAL_TIMEOUT_MS)
 * and reads it as its kind says: a photo's dimensions and EXIF capture time and
 * place, a document's page count and text excerpt. Remote faults and content
 * that is not what its kind must be give a failed item; it never throws for them.
 */
@Injectable()
export class ReferenceMaterialReader {
  constructor(
    private readonly fetcher: OutboundFetcher,
    private readonly settings: AppSettings,
  ) {}

  async read(url: string, kind: MaterialKind, signal?: AbortSignal): Promise<MaterialItem> {
    const fetched = await this.fetcher.fetch(url, {
      maxBytes: this.settings.outbound.materialMaxBytes,
      timeoutMs: this.settings.outbound.materialTimeoutMs,
      signal,
    });
    if (!fetched.ok) return unfetchedItem(url, kind, fetched.error);
    return readMaterial(url, kind, fetched.bytes, fetched.declaredType);
  }
}
