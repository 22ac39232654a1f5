import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { workingSet } from '../plan-files/index.js';
import { validatePlanWatchOptions } from './plan-watcher-options.js';
import { planResync, staleReminder } from './plan-texts.js';
import type { PlanWatchOptions } from '../agent/config/plan-watch-options.js';

/**
 * Decides, before each model request, whether the plan goes along: the whole file once at the
 * start and once after each compaction, the folded plan when it went stale. The text is sent with
 * that request only (never added to the conversation), so it cannot pile up.
 */
export class PlanWatcher {
  private lastHash: string | undefined;
  private quietTurns = 0;

  constructor(private readonly options: PlanWatchOptions) {
    validatePlanWatchOptions(options);
  }

  async beforeRequest(turn: number, compacted: boolean): Promise<string> {
    const text = await this.read();
    if (text === undefined) return ''; // no plan file yet: nothing to remind of
    const hash = createHash('sha256').update(text).digest('hex');
    const edited = hash !== this.lastHash;
    this.lastHash = hash;
    if (turn === 1 || compacted) {
      this.quietTurns = 0;
      return this.resync(text, turn === 1 ? START : 'Earlier turns were compacted.');
    }
    this.quietTurns = edited ? 0 : this.quietTurns + 1;
    if (this.quietTurns < (this.options.staleAfterTurns ?? 3)) return '';
    this.quietTurns = 0;
    return staleReminder(workingSet(text, { maxChars: this.options.reminderChars ?? 4_000 }), basename(this.options.path));
  }

  /**
   * What the first request of a call will carry, read now without changing any state: the text
   * the cache key covers as the `plan` part ('' without a plan file).
   */
  async firstRequestText(): Promise<string> {
    const text = await this.read();
    return text === undefined ? '' : this.resync(text, START);
  }

  private async read(): Promise<string | undefined> {
    try {
      return await readFile(this.options.path, 'utf8');
    } catch {
      return undefined;
    }
  }

  private resync(text: string, why: string): string {
    return planResync(bounded(text, this.options.resyncChars ?? 20_000), basename(this.options.path), why);
  }
}

const START = 'The work starts now.';

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[plan truncated: ${text.length - max} more characters in the file]`;
}
