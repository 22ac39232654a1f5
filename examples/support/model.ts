/**
 * The one switch between the offline model and the real API, shared by the agent examples.
 *
 * Without ANTHROPIC_API_KEY an example's agents talk to a ScriptedModel (the offline kit of
 * 'groundswell/testing'), which answers the real SDK client from the example's script, so the run
 * is deterministic. With the key set they talk to the Anthropic API, with the same agents and
 * prompts (answers then vary, and the script is ignored).
 *
 * Not an example itself: run-all.ts only picks up `examples/NN-*.ts`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ResponseOptions, Responder, ScriptStep } from 'groundswell/testing';
import { ScriptedModel } from 'groundswell/testing';

/** True when the examples run against the real API. */
export const online = (process.env.ANTHROPIC_API_KEY ?? '') !== '';

const scripted: ScriptedModel[] = [];
let announced = false;

/** The client for an example's agents: the real API when the key is set, else the scripted model. */
export function exampleClient(script: readonly ScriptStep[] | Responder): Anthropic {
  if (!announced) {
    announced = true;
    console.log(
      online
        ? 'model: Anthropic API (ANTHROPIC_API_KEY is set; answers will vary)'
        : 'model: offline ScriptedModel (set ANTHROPIC_API_KEY to use the real API)',
    );
  }
  if (online) return new Anthropic();
  const model = new ScriptedModel(script);
  scripted.push(model);
  return model.client();
}

/** Offline: throws if a script step went unused or a request could not be answered. Online: no-op. */
export function assertScriptsComplete(): void {
  for (const model of scripted) model.assertComplete();
}

/** Response options reporting these token counts (the kit reports no cache tokens unless scripted). */
export function tokens(input: number, output: number): ResponseOptions {
  return { usage: { input_tokens: input, output_tokens: output } };
}
