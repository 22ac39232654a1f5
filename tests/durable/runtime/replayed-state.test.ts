import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isSuspension, ObservedState, resume, signal, Step, Workflow, WorkflowTreeDebugger, type WorkflowEvent } from 'groundswell';
import { RunValueError, type RunStore, type StepRecord } from 'groundswell/durable';
import { eachRunStore } from '../../support/run-store-kinds.js';

let store: RunStore;

// The README's first example ("A workflow in 30 lines"), as it is there.
class Ingest extends Workflow {
  @ObservedState() rows = 0;
  @ObservedState({ redact: true }) apiToken = 'sk-secret'; // shown as *** everywhere

  @Step() async fetch(): Promise<number[]> {
    this.logger.info('fetching');
    return [1, 2, 3];
  }

  @Step({ snapshotState: true }) async store(batch: number[]): Promise<void> {
    this.rows += batch.length;
  }

  override async run(): Promise<number> {
    await this.store(await this.fetch());
    return this.rows;
  }
}

/** Ingest that waits for a signal after its own body, then returns what the body returned. */
class WaitingIngest extends Ingest {
  override async run(): Promise<number> {
    const rows = await super.run();
    await this.waitFor('go', z.literal('go'));
    return rows;
  }
}

// Set before a first run: the run dies once, after the code that matters ran.
let kill = false;

/** Throws what a killed process never returns from, once. */
function dieOnce(): void {
  if (!kill) return;
  kill = false;
  throw new Error('killed');
}

/** What a killed process leaves: the run `running`, so `resume()` takes it up. */
async function interrupted(runId: string): Promise<void> {
  await store.updateRun(runId, { status: 'running', error: null });
}

/** Ingest killed after its own body. */
class KilledIngest extends Ingest {
  override async run(): Promise<number> {
    const rows = await super.run();
    dieOnce();
    return rows;
  }
}

/** A factory for `resume()` that also keeps the rebuilt workflow and the events it emits. */
function rebuilt<W extends Workflow>(make: () => W): { factory: () => W; workflow(): W; events: WorkflowEvent[] } {
  let made: W | undefined;
  const events: WorkflowEvent[] = [];
  return {
    factory: () => {
      made = make();
      made.addObserver({ onEvent: (event) => events.push(event) });
      return made;
    },
    workflow: () => made as W,
    events,
  };
}

/** The state the replayed step `name` snapshotted when it ended. */
function stateAfterReplayed(events: readonly WorkflowEvent[], name: string): unknown {
  const replayed = events.findIndex((event) => event.type === 'stepReplayed' && event.name === name);
  expect(replayed).toBeGreaterThanOrEqual(0);
  const snapshot = events.slice(replayed).find((event) => event.type === 'stateSnapshot');
  return snapshot?.type === 'stateSnapshot' ? snapshot.state : undefined;
}

/** The run as the store holds it (steps, events, tree), as text: where a secret must not be. */
async function storedText(runId: string): Promise<string> {
  return JSON.stringify([await store.loadRun(runId), await store.readEvents(runId)]);
}

eachRunStore(
  (opened) => (store = opened),
  () => {
    describe('the README example resumed', () => {
      it('after a suspend and a signal returns 3, and the replayed step shows rows 3', async () => {
        const config = { name: 'Ingest', durable: { store, runId: 'ingest-wait' } };
        expect(isSuspension(await new WaitingIngest(config).run().catch((e: unknown) => e))).toBe(true);
        const again = rebuilt(() => new WaitingIngest(config));
        expect(await signal('ingest-wait', 'go', 'go', { store, workflows: { Ingest: again.factory } })).toBe(3);
        expect(again.workflow().rows).toBe(3);
        expect(stateAfterReplayed(again.events, 'store')).toEqual({ rows: 3, apiToken: '***' });
        expect(new WorkflowTreeDebugger(again.workflow()).toTreeString()).toContain('state {"rows":3,"apiToken":"***"}');
        // The stored tree (`groundswell runs show`) too.
        expect(new WorkflowTreeDebugger((await store.loadRun('ingest-wait')).tree as never).toTreeString()).toContain('"rows":3');
      });

      it('after a crash and resume() returns 3 without running its steps again', async () => {
        const config = { name: 'Ingest', durable: { store, runId: 'ingest-crash' } };
        kill = true;
        await expect(new KilledIngest(config).run()).rejects.toThrow(/killed/);
        await interrupted('ingest-crash');
        const again = rebuilt(() => new KilledIngest(config));
        expect(await resume('ingest-crash', { store, workflows: { Ingest: again.factory } })).toBe(3);
        expect(again.events.filter((event) => event.type === 'stepReplayed').map((event) => event.type === 'stepReplayed' && event.name)).toEqual(['fetch', 'store']);
        expect(stateAfterReplayed(again.events, 'store')).toEqual({ rows: 3, apiToken: '***' });
        // The redacted token, set outside any step, is the real one again and was never stored.
        expect(again.workflow().apiToken).toBe('sk-secret');
        expect(await storedText('ingest-crash')).not.toContain('sk-secret');
      });
    });

    it('a child workflow gets back the state its own steps left, also when a step changed it in place', async () => {
      class Tally extends Workflow<number> {
        @ObservedState() seen: string[] = [];
        @Step({ snapshotState: true }) async take(item: string): Promise<void> {
          this.seen.push(item);
        }
        override async run(): Promise<number> {
          for (const item of ['a', 'b', 'c']) await this.take(item);
          return this.seen.length;
        }
      }
      class Batch extends Workflow<string> {
        tally: Tally | undefined;
        override async run(): Promise<string> {
          this.tally = new Tally('Tally', this);
          const count = await this.tally.run();
          dieOnce();
          return `${count} ${this.tally.seen.join('')}`;
        }
      }
      const config = { name: 'Batch', durable: { store, runId: 'batch' } };
      kill = true;
      await expect(new Batch(config).run()).rejects.toThrow(/killed/);
      await interrupted('batch');
      const again = rebuilt(() => new Batch(config));
      expect(await resume('batch', { store, workflows: { Batch: again.factory } })).toBe('3 abc');
      expect(again.workflow().tally?.node.stateSnapshot).toEqual({ seen: ['a', 'b', 'c'] });
    });

    it('a field a step set to undefined is undefined again after the replay', async () => {
      class Outbox extends Workflow<string> {
        @ObservedState() pending?: string = 'draft';
        @Step() async send(): Promise<void> {
          this.pending = undefined;
        }
        override async run(): Promise<string> {
          await this.send();
          dieOnce();
          return this.pending ?? 'sent';
        }
      }
      const config = { name: 'Outbox', durable: { store, runId: 'outbox' } };
      kill = true;
      await expect(new Outbox(config).run()).rejects.toThrow(/killed/);
      await interrupted('outbox');
      expect(await resume('outbox', { store, workflows: { Outbox: () => new Outbox(config) } })).toBe('sent');
    });

    it('of two concurrent steps, the one that settled last decides the field, whichever started first', async () => {
      let release = (): void => undefined;
      class Pair extends Workflow<string> {
        @ObservedState() log: string[] = [];
        @Step() async slow(gate: string): Promise<void> {
          await new Promise<void>((resolve) => (release = resolve));
          this.log.push(gate);
        }
        @Step() async fast(): Promise<void> {
          this.log.push('fast');
        }
        override async run(): Promise<string> {
          const slow = this.slow('slow');
          // `slow` settles only after `fast` is stored: its record holds the later state.
          await this.fast();
          release();
          await slow;
          dieOnce();
          return this.log.join(' ');
        }
      }
      const config = { name: 'Pair', durable: { store, runId: 'pair' } };
      kill = true;
      await expect(new Pair(config).run()).rejects.toThrow(/killed/);
      await interrupted('pair');
      expect(await resume('pair', { store, workflows: { Pair: () => new Pair(config) } })).toBe('fast slow');
    });

    it('a step that changes a redacted field fails in a durable run, and the secret is stored nowhere', async () => {
      class Login extends Workflow<string> {
        @ObservedState({ redact: true }) token = '';
        @Step() async signIn(): Promise<void> {
          this.token = 'tok-0123456789abcdef';
        }
        override async run(): Promise<string> {
          await this.signIn();
          return 'signed in';
        }
      }
      const error = (await new Login({ name: 'Login', durable: { store, runId: 'login' } }).run().catch((e: unknown) => e)) as Error;
      expect(error.cause).toBeInstanceOf(RunValueError);
      expect(error.message).toMatch(/"token".*redacted/);
      expect(await storedText('login')).not.toContain('tok-0123456789abcdef');
      expect((await store.getRun('login'))?.status).toBe('failed');
    });

    it('a step that leaves a field JSON cannot hold fails, naming it; a field no step changes is not looked at', async () => {
      class Index extends Workflow<number> {
        @ObservedState() byId = new Map<string, number>();
        @ObservedState() checkedAt?: Date;
        @Step() async count(): Promise<number> {
          return this.byId.size;
        }
        @Step() async check(): Promise<void> {
          this.checkedAt = new Date(0);
        }
        override async run(): Promise<number> {
          const size = await this.count();
          await this.check();
          return size;
        }
      }
      const error = (await new Index({ name: 'Index', durable: { store, runId: 'index' } }).run().catch((e: unknown) => e)) as Error;
      expect(error.cause).toBeInstanceOf(RunValueError);
      expect(error.message).toMatch(/"checkedAt".*Date/);
      expect((await store.loadRun('index')).steps).toHaveLength(1);
    });

    it('a step stored without state (before state was kept) replays as it did, without running again', async () => {
      // A store that drops the state from what it is given: what records of older versions hold.
      const stateless = new Proxy(store, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property);
          if (typeof value !== 'function') return value;
          if (property !== 'putStep' && property !== 'settleStep') return (value as (...a: unknown[]) => unknown).bind(target);
          return (runId: string, step: StepRecord, ...rest: unknown[]) => {
            const { state: _state, ...older } = step as StepRecord & { state?: unknown };
            return (value as (...a: unknown[]) => unknown).call(target, runId, older, ...rest);
          };
        },
      });
      let ran = 0;
      class Counted extends Ingest {
        override async run(): Promise<number> {
          ran += 1;
          const rows = await super.run();
          dieOnce();
          return rows;
        }
      }
      kill = true;
      await expect(new Counted({ name: 'Ingest', durable: { store: stateless, runId: 'older' } }).run()).rejects.toThrow(/killed/);
      expect((await store.loadRun('older')).steps.every((step) => !('state' in step))).toBe(true);
      await interrupted('older');
      const again = rebuilt(() => new Counted({ name: 'Ingest', durable: { store, runId: 'older' } }));
      // As before: nothing to put back, so the field keeps its initial value.
      expect(await resume('older', { store, workflows: { Ingest: again.factory } })).toBe(0);
      expect(ran).toBe(2);
      expect(again.events.filter((event) => event.type === 'stepReplayed')).toHaveLength(2);
    });
  },
);
