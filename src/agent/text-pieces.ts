import { runMasker } from '../core/run-secrets.js';
import type { WorkflowRuntime } from '../core/workflow-runtime.js';

/**
 * The pieces of one streamed answer on their way to the tree. The tree masks each event's secrets,
 * but a secret the model writes can arrive split over two pieces: the end of a piece that could
 * begin a secret is held back and sent with the next one (or by `flush` when the answer ends).
 */
export class TextPieces {
  private held = '';
  readonly onText = (text: string): void => this.add(text);

  constructor(
    private readonly workflow: WorkflowRuntime,
    private readonly send: (delta: string) => void,
  ) {}

  private add(text: string): void {
    if (text.length === 0) return;
    const masker = runMasker(this.workflow);
    if (!masker.active) {
      this.flush();
      this.send(text);
      return;
    }
    // Masked whole first: a secret completed by this piece is replaced before anything is cut.
    const joined = masker.text(this.held + text);
    const open = masker.openTail(joined);
    this.held = joined.slice(joined.length - open);
    const ready = joined.slice(0, joined.length - open);
    if (ready.length > 0) this.send(ready);
  }

  /** Sends what was held back: the answer ended (or failed), so it cannot begin a secret any more. */
  flush(): void {
    if (this.held.length === 0) return;
    const rest = this.held;
    this.held = '';
    this.send(rest);
  }
}
