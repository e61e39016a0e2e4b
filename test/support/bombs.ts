/**
 * Compression bombs for the import limits' tests: small answers that decode to a lot. Built in
 * milliseconds without compressing the whole: raw deflate of 1 MiB of zeros ended by a full flush
 * (byte-aligned, no reference to what came before) is repeated, closed by an empty final block, and
 * wrapped as gzip (RFC 1952) or zlib (RFC 1950) with the right checksums; a valid stream any decoder
 * inflates to `mib` MiB of zeros (256 MiB from about 259 KiB).
 *
 * @example
 *   const body = gzipBomb(256); // Content-Encoding: gzip, 265,000 bytes, 256 MiB decoded
 */
import { brotliCompress, constants, crc32, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';

const MIB = 1024 * 1024;
const zeros = Buffer.alloc(MIB);
/** 1 MiB of zeros, raw deflate, ending byte-aligned with its dictionary reset (Z_FULL_FLUSH). */
const segment = deflateRawSync(zeros, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
/** An empty final block (fixed Huffman: BFINAL 1, BTYPE 01, end of block). */
const FINAL = Buffer.from([0x03, 0x00]);

function rawDeflate(mib: number): Buffer {
  return Buffer.concat([...Array.from({ length: mib }, () => segment), FINAL]);
}

/** gzip of `mib` MiB of zeros. */
export function gzipBomb(mib = 256): Buffer {
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(zeros, crc);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((mib * MIB) % 2 ** 32, 4);
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff]), rawDeflate(mib), trailer]);
}

/** zlib-wrapped deflate (what `Content-Encoding: deflate` means) of `mib` MiB of zeros. */
export function deflateBomb(mib = 256): Buffer {
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((mib * MIB) % 65521) * 65536 + 1) >>> 0, 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), rawDeflate(mib), adler]);
}

/** Raw deflate (what some servers send as `deflate`) of `mib` MiB of zeros. */
export function rawDeflateBomb(mib = 256): Buffer {
  return rawDeflate(mib);
}

/** Brotli of `mib` MiB of zeros (compressed for real, off the event loop: 16 MiB in a fraction of a second). */
export async function brotliBomb(mib = 16): Promise<Buffer> {
  return promisify(brotliCompress)(Buffer.alloc(mib * MIB), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
}
