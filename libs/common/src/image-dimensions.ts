import { imageSize } from 'image-size';

/**
 * The pixel dimensions of an image as stored (an EXIF orientation that rotates
 * the picture is not applied); throws when the bytes cannot be measured or
 * measure as nothing.
 */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } {
  const { width, height } = imageSize(ownBuffer(bytes));
  if (!(width > 0 && height > 0)) throw new Error('it has no dimensions');
  return { width, height };
}

/**
 * The bytes in an ArrayBuffer of their own. image-size reads through a DataView
 * that starts at the view's offset but runs to the end of the underlying
 * buffer, so a truncated image in a Buffer slice (small Buffers share Node's
 * pool) would be measured from whatever bytes follow it.
 */
export function ownBuffer(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole ? bytes : new Uint8Array(bytes);
}
