import * as zlib from 'node:zlib';

type Crc32 = (data: Uint8Array) => number;

/**
 * CRC-32 (IEEE 802.3, as zip and gzip use it). Node has `zlib.crc32` only from 20.15, and the
 * package supports every Node 20, so older releases get the table-driven version below: the same
 * numbers, a few times slower. Chosen by whether zlib has it, not by version string.
 */
export const crc32: Crc32 = pickCrc32((zlib as { crc32?: Crc32 }).crc32);

/** `native` when this Node has it, else the portable version (a parameter so both paths are testable). */
export function pickCrc32(native: Crc32 | undefined): Crc32 {
  return native ?? portableCrc32;
}

/** One entry per byte value: the register after shifting that byte through the reversed polynomial. */
const TABLE = ((): Uint32Array => {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte += 1) {
    let register = byte;
    for (let bit = 0; bit < 8; bit += 1) register = register & 1 ? (register >>> 1) ^ 0xedb88320 : register >>> 1;
    table[byte] = register;
  }
  return table;
})();

function portableCrc32(data: Uint8Array): number {
  let register = 0xffffffff;
  for (let i = 0; i < data.length; i += 1) {
    register = (TABLE[(register ^ (data[i] as number)) & 0xff] as number) ^ (register >>> 8);
  }
  return (register ^ 0xffffffff) >>> 0;
}
