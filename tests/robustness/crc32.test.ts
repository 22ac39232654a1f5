import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, pickCrc32 } from '../../src/util/crc32.js';

// The journal's checksums: on Node without zlib.crc32 (before 20.15) the portable version must
// produce the very numbers zlib does, or journals would not move between Node versions.
const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
const portable = pickCrc32(undefined);

/** Deterministic bytes (xorshift32), so a failing length is reproducible. */
function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed || 1;
  for (let i = 0; i < length; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

describe('crc32', () => {
  it('the portable version gives the standard check values', () => {
    expect(portable(new Uint8Array())).toBe(0);
    expect(portable(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(portable(Buffer.from('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
  });

  it('picks zlib when this Node has it, the portable version when it does not', () => {
    const zlibLike = (data: Uint8Array): number => data.length;
    expect(pickCrc32(zlibLike)).toBe(zlibLike);
    expect(pickCrc32(undefined)).not.toBe(zlibLike);
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  describe.skipIf(native === undefined)('equals zlib.crc32', () => {
    const zlibCrc32 = native as (data: Uint8Array) => number;

    it('on edge cases: empty, one byte of each value, all zeros, all ones', () => {
      for (const data of [new Uint8Array(), new Uint8Array(4096), new Uint8Array(4096).fill(0xff)]) {
        expect(portable(data)).toBe(zlibCrc32(data));
      }
      for (let value = 0; value < 256; value += 1) {
        const one = Uint8Array.of(value);
        expect(portable(one), `byte ${value}`).toBe(zlibCrc32(one));
      }
    });

    it('on many pseudo-random buffers of lengths 0..2048', () => {
      for (let length = 0; length <= 2048; length += 7) {
        const data = bytes(length, length + 1);
        expect(portable(data), `length ${length}`).toBe(zlibCrc32(data));
      }
    });

    it('on a 1 MB buffer, on a view into a larger buffer, and on a journal frame header', () => {
      const big = bytes(1024 * 1024, 42);
      expect(portable(big)).toBe(zlibCrc32(big));
      const view = big.subarray(1000, 9000);
      expect(portable(view)).toBe(zlibCrc32(view));
      const header = Buffer.alloc(8);
      header.writeUInt32LE(big.length, 0);
      header.writeUInt32LE(zlibCrc32(big), 4);
      expect(portable(header)).toBe(zlibCrc32(header));
      expect(crc32(big)).toBe(zlibCrc32(big));
    });
  });
});
