import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  Prompt,
  type AgentResult,
  type AgentStream,
  type AgentStreamEvent,
} from 'groundswell';

const Ticket = z.object({
  title: z.string(),
  priority: z.number().default(3),
  labels: z.array(z.enum(['bug', 'feature'])),
  owner: z.string().optional(),
});
type TicketOut = { title: string; priority: number; labels: Array<'bug' | 'feature'>; owner?: string | undefined };

const agent = createAgent({ name: 'typed' });

describe('createPrompt types', () => {
  it('infers Prompt<z.output<S>> from responseFormat', () => {
    const prompt = createPrompt({ user: 'triage', responseFormat: Ticket });
    expectTypeOf(prompt).toEqualTypeOf<Prompt<z.output<typeof Ticket>>>();
    expectTypeOf(prompt).toEqualTypeOf<Prompt<TicketOut>>();
    // The output side, not the input side: `priority` has a default, so it is always present.
    expectTypeOf<z.input<typeof Ticket>['priority']>().toEqualTypeOf<number | undefined>();
    expectTypeOf(prompt.responseFormat).toEqualTypeOf<z.ZodType<TicketOut>>();
  });

  it('infers the transformed type of a schema with a transform', () => {
    const prompt = createPrompt({ user: 'when', responseFormat: z.object({ due: z.string().transform((s) => new Date(s)) }) });
    expectTypeOf(prompt).toEqualTypeOf<Prompt<{ due: Date }>>();
  });

  it('new Prompt(config) infers the same type', () => {
    expectTypeOf(new Prompt({ user: 'triage', responseFormat: Ticket })).toEqualTypeOf<Prompt<TicketOut>>();
  });

  it('withData returns a prompt of the same type', () => {
    const prompt = createPrompt({ user: 'triage', data: { id: 1 }, responseFormat: Ticket });
    expectTypeOf(prompt.withData({ id: 2 })).toEqualTypeOf<Prompt<TicketOut>>();
  });

  it('accepts every agent setting as a prompt-level override', () => {
    const prompt = createPrompt({
      user: 'x',
      responseFormat: Ticket,
      system: 's',
      model: 'm',
      maxTokens: 10,
      temperature: 0,
      stop: ['END'],
      tools: [],
      mcps: [],
      skills: [{ name: 'k', content: 'c' }],
      hooks: { sessionStart: () => undefined },
      env: { A: 'b' },
      enableCache: false,
      enableReflection: false,
      maxTurns: 2,
      structuredOutput: 'tool',
    });
    expectTypeOf(prompt).toEqualTypeOf<Prompt<TicketOut>>();
  });
});

describe('agent call types', () => {
  const prompt = createPrompt({ user: 'triage', responseFormat: Ticket });

  it('agent.prompt resolves to the prompt type', () => {
    expectTypeOf(agent.prompt(prompt)).toEqualTypeOf<Promise<TicketOut>>();
    expectTypeOf(agent.prompt(prompt, { maxTokens: 5 })).toEqualTypeOf<Promise<TicketOut>>();
  });

  it('agent.execute resolves to the value with usage, turns and duration', () => {
    expectTypeOf(agent.execute(prompt)).toEqualTypeOf<Promise<AgentResult<TicketOut>>>();
    expectTypeOf<AgentResult<TicketOut>['value']>().toEqualTypeOf<TicketOut>();
    expectTypeOf<AgentResult<TicketOut>['duration']>().toEqualTypeOf<number>();
    expectTypeOf<AgentResult<TicketOut>['turns']>().toEqualTypeOf<number>();
  });

  it('agent.stream yields typed events and a typed final value', () => {
    const stream = agent.stream(prompt);
    expectTypeOf(stream).toEqualTypeOf<AgentStream<TicketOut>>();
    expectTypeOf(stream.finalValue()).toEqualTypeOf<Promise<TicketOut>>();
    expectTypeOf<Extract<AgentStreamEvent<TicketOut>, { type: 'result' }>['value']>().toEqualTypeOf<TicketOut>();
  });

  it('defineTool infers the execute input from the zod schema', () => {
    defineTool({
      name: 'lookup',
      description: 'Looks a user up.',
      input: z.object({ id: z.number(), verbose: z.boolean().default(false) }),
      execute: (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ id: number; verbose: boolean }>();
        expectTypeOf(context.env).toEqualTypeOf<Readonly<Record<string, string>>>();
        expectTypeOf(context.toolUseId).toEqualTypeOf<string>();
        return input.id;
      },
    });
  });
});

describe('misuse the type checker refuses', () => {
  it('a prompt without responseFormat', () => {
    // @ts-expect-error -- responseFormat is required
    createPrompt({ user: 'hi' });
  });

  it('a prompt without user', () => {
    // @ts-expect-error -- user is required
    createPrompt({ responseFormat: Ticket });
  });

  it('responseFormat that is not a zod schema', () => {
    // @ts-expect-error -- a JSON schema object is not a zod schema
    createPrompt({ user: 'hi', responseFormat: { type: 'object' } });
  });

  it('data that is not an object', () => {
    // @ts-expect-error -- data is a record, not an array
    createPrompt({ user: 'hi', responseFormat: Ticket, data: [1, 2] });
    // @ts-expect-error -- data is a record, not a string
    createPrompt({ user: 'hi', responseFormat: Ticket, data: 'text' });
  });

  it('assigning to a prompt or its data', () => {
    const prompt = createPrompt({ user: 'hi', data: { a: 1 }, responseFormat: Ticket });
    // @ts-expect-error -- user is readonly
    prompt.user = 'changed';
    // @ts-expect-error -- data is readonly
    prompt.data.a = 2;
    // @ts-expect-error -- responseFormat is readonly
    prompt.responseFormat = Ticket;
  });

  it('using the answer as another type', () => {
    const prompt = createPrompt({ user: 'hi', responseFormat: z.object({ count: z.number() }) });
    async function use(): Promise<void> {
      const value = await agent.prompt(prompt);
      // @ts-expect-error -- count is a number
      const text: string = value.count;
      // @ts-expect-error -- no such field
      void value.missing;
      void text;
    }
    void use;
  });

  it('an unknown structuredOutput mode or a non-string stop list', () => {
    // @ts-expect-error -- only 'native' or 'tool'
    createPrompt({ user: 'hi', responseFormat: Ticket, structuredOutput: 'json' });
    // @ts-expect-error -- stop sequences are strings
    createPrompt({ user: 'hi', responseFormat: Ticket, stop: [1] });
  });

  it('a tool whose execute misreads its input', () => {
    defineTool({
      name: 'bad',
      description: 'x',
      input: z.object({ id: z.number() }),
      // @ts-expect-error -- id is a number, not a string
      execute: (input: { id: string }) => input.id,
    });
  });
});
