import { describe, expect, it } from 'vitest';
import { rowsMessage } from '../../src/viewer/rows-message.js';
import type { WireRow } from '../../src/viewer/wire-row.js';

const row = (i: number, name = `step ${i}`): WireRow => [`s${i}`, 'root', name, 'step', 'completed', 2, 0, i * 10, 5];

/** The message as a page's EventSource reads it: its event name and its data, parsed. */
function read(bytes: Buffer): { event: string; data: unknown } {
  const text = bytes.toString('utf8');
  expect(text.endsWith('\n\n')).toBe(true);
  expect(text.slice(0, -2)).not.toContain('\n\n');
  const [event, data] = text.slice(0, -2).split('\n');
  return { event: event?.replace(/^event: /, '') ?? '', data: JSON.parse(data?.replace(/^data: /, '') ?? '') as unknown };
}

describe('a message carrying rows', () => {
  it('is one SSE message whose data is the fields with the rows, for any number of rows', () => {
    const fields = { rootId: 'root', timeBase: 1_000, removed: [], mode: 'live' };
    for (const count of [0, 1, 511, 512, 513, 1_025, 2_000]) {
      const rows = Array.from({ length: count }, (_, i) => row(i));
      expect(read(rowsMessage('nodes', fields, 'upserted', rows)), `${count} rows`).toEqual({ event: 'nodes', data: { ...fields, upserted: rows } });
    }
  });

  it('keeps text that is not ASCII as it is, in the fields and in any part of the rows', () => {
    const fields = { rootId: 'r☕', wait: { name: 'approve «x»' } };
    const rows = Array.from({ length: 1_200 }, (_, i) => row(i, i === 700 ? 'café 名前 "q"\n' : i === 5 ? 'é' : `step ${i}`));
    expect(read(rowsMessage('snapshot', fields, 'rows', rows))).toEqual({ event: 'snapshot', data: { ...fields, rows } });
  });

  it('with no other fields is an object of the rows alone', () => {
    expect(read(rowsMessage('nodes', {}, 'upserted', [row(1)]))).toEqual({ event: 'nodes', data: { upserted: [row(1)] } });
  });
});
