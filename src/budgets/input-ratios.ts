import type { WaitQueue } from './wait-queue.js';

/** What answers taught a budget about one model's input. */
export interface ModelInput {
  /**
   * The largest ratio of reported input tokens to the length / 4 estimate over the model's answers
   * (never below 1); undefined until the first answer.
   */
  ratio: number | undefined;
  /** Set while the model has no answer yet and one request to it is in flight. */
  firstInFlight: boolean;
  /** Requests to the model waiting for its first answer (made on first use). */
  waiting: WaitQueue | undefined;
}

/**
 * What the answers under one budget tree taught about input, per provider and model: the
 * estimate is length / 4, but a provider's hidden tool prompt and dense JSON or code count more.
 * Held by the outermost budget above the calls (see `inputRatiosOf`), so every budget below it
 * learns together and a new run starts over: nothing is shared across runs or kept in a global.
 */
export class InputRatios {
  private readonly providers = new Map<string, Map<string, ModelInput>>();

  /** The model's entry, made on first use. */
  of(provider: string, model: string): ModelInput {
    let models = this.providers.get(provider);
    if (models === undefined) this.providers.set(provider, (models = new Map()));
    let entry = models.get(model);
    if (entry === undefined) models.set(model, (entry = { ratio: undefined, firstInFlight: false, waiting: undefined }));
    return entry;
  }
}

/** A request's estimate, kept on its reservation until its answer says what the input was. */
export interface InputEstimate {
  readonly model: ModelInput;
  /** Input tokens as length / 4, before any ratio. */
  readonly tokens: number;
}
