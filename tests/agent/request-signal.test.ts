import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { requestSignal, SHARED_USES } from '../../src/agent/model/request-signal.js';

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

describe('request signals linked to a run’s signal', () => {
  it('a linked signal serves a bounded number of requests, and the run’s signal keeps one listener however many ran', () => {
    const run = new AbortController();
    const seen = new Map<AbortSignal, number>();
    for (let i = 0; i < SHARED_USES * 5 + 3; i += 1) {
      const link = requestSignal(run.signal);
      seen.set(link.signal, (seen.get(link.signal) ?? 0) + 1);
      link.release();
    }
    expect(Math.max(...seen.values())).toBe(SHARED_USES);
    expect(seen.size).toBe(6);
    expect(listeners(run.signal)).toBe(1);
  });

  it('cancelling the run aborts every request still in flight, also on a retired linked signal, with the run’s reason', () => {
    const run = new AbortController();
    const first = requestSignal(run.signal);
    for (let i = 1; i < SHARED_USES; i += 1) requestSignal(run.signal).release();
    const second = requestSignal(run.signal);
    expect(second.signal).not.toBe(first.signal);
    // The retired signal is still linked: one of its requests has not ended.
    expect(listeners(run.signal)).toBe(2);
    const reason = new Error('cancelled');
    run.abort(reason);
    expect(first.signal.aborted).toBe(true);
    expect(first.signal.reason).toBe(reason);
    expect(second.signal.reason).toBe(reason);
  });

  it('a retired linked signal unlinks when its last request ends, not before; releasing twice counts once', () => {
    const run = new AbortController();
    const a = requestSignal(run.signal);
    const b = requestSignal(run.signal);
    for (let i = 2; i < SHARED_USES; i += 1) requestSignal(run.signal).release();
    const next = requestSignal(run.signal);
    a.release();
    a.release();
    expect(listeners(run.signal)).toBe(2);
    b.release();
    expect(listeners(run.signal)).toBe(1);
    next.release();
    expect(listeners(run.signal)).toBe(1);
  });

  it('after the run was cancelled, a new request gets a signal that is already aborted', () => {
    const run = new AbortController();
    requestSignal(run.signal).release();
    run.abort(new Error('gone'));
    const late = requestSignal(run.signal);
    expect(late.signal.aborted).toBe(true);
    expect((late.signal.reason as Error).message).toBe('gone');
    late.release();
    expect(listeners(run.signal)).toBe(0);
  });

  it('requests under different outer signals never share a linked signal', () => {
    const one = new AbortController();
    const two = new AbortController();
    const a = requestSignal(one.signal);
    const b = requestSignal(two.signal);
    one.abort();
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
  });
});
