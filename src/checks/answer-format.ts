/** A part of a response format that no model answer can satisfy, and where it sits. */
export interface UnanswerablePart {
  /** How the part is written, e.g. `z.date()`. */
  readonly type: string;
  /** Where it sits from the schema's root (`.inner.when`, `[]`, `[1]`, `[*]`); '' for the root. */
  readonly at: string;
  /** Why a JSON answer cannot be one, with what to use instead. */
  readonly why: string;
}

type Def = Readonly<Record<string, unknown>>;

const NEVER_UNDEFINED = 'a JSON answer is never undefined (make an object field .optional() instead)';
const NO_BIGINT = 'JSON has no big integers (use z.number().int(), or z.string() with a transform)';

/*
 * The zod types whose values a model's answer (JSON text, or a tool input that is JSON) cannot
 * parse into. All but two are what z.toJSONSchema refuses to express; promise and file it expresses,
 * but answers are parsed synchronously (a promise schema then throws) and JSON carries no File.
 */
const REFUSED: Readonly<Record<string, string>> = {
  function: 'no JSON value is a function',
  promise: 'answers are parsed synchronously and no JSON value is a promise (use the inner schema)',
  symbol: 'no JSON value is a symbol',
  custom: 'its check is code that z.toJSONSchema cannot describe to the model (use a JSON type with .refine() instead)',
  undefined: NEVER_UNDEFINED,
  void: NEVER_UNDEFINED,
  bigint: NO_BIGINT,
  date: 'JSON has no dates (use z.iso.datetime(), or z.codec(z.iso.datetime(), z.date(), ...) to get a Date)',
  nan: 'JSON has no NaN',
  map: 'JSON has no Map (use z.record())',
  set: 'JSON has no Set (use z.array())',
  file: 'a JSON answer cannot carry a File',
  transform: 'a bare z.transform() has no input shape to ask for (put it after a schema: z.string().transform(...))',
};

// Schemas are immutable and a prompt is copied per call (`withUser`, `withData`): walk each once.
const verdicts = new WeakMap<object, UnanswerablePart | null>();

/**
 * The first part of a zod 4 schema that no model answer can satisfy, or undefined. It reads the
 * schema's definition (`_zod.def`) and follows its input side as the answer format sent to the
 * model does, without loading zod (creating a prompt must not: decision 0029). A shape it does not
 * know, such as a stand-in without a definition, passes: zod judges it at the call.
 */
export function unanswerablePart(schema: unknown): UnanswerablePart | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let verdict = verdicts.get(schema);
  if (verdict === undefined) {
    verdict = walk(schema, '', new Set()) ?? null;
    verdicts.set(schema, verdict);
  }
  return verdict ?? undefined;
}

function walk(schema: unknown, at: string, seen: Set<unknown>): UnanswerablePart | undefined {
  // A recursive schema (z.lazy) meets itself again: its parts were, or are being, walked.
  if (seen.has(schema)) return undefined;
  seen.add(schema);
  const internals = internalsOf(schema);
  const def = internals === undefined ? undefined : objectAt(internals, 'def');
  if (internals === undefined || def === undefined) return undefined;
  // A schema that supplies its own JSON schema is what zod sends; nothing below it is looked at.
  if (typeof internals['toJSONSchema'] === 'function' && (internals['toJSONSchema'] as () => unknown)()) return undefined;
  const type = def['type'];
  if (typeof type !== 'string') return undefined;
  const why = REFUSED[type];
  if (why !== undefined) return { type: `z.${type}()`, at, why };
  const next = (child: unknown, where = at): UnanswerablePart | undefined => walk(child, where, seen);
  switch (type) {
    case 'literal':
      return literalPart(def, at);
    case 'object':
      return objectPart(def, at, next);
    case 'array':
      return next(def['element'], `${at}[]`);
    case 'tuple':
      return tuplePart(def, at, next);
    case 'record':
      return next(def['keyType'], `${at}(keys)`) ?? next(def['valueType'], `${at}[*]`);
    case 'union':
      return firstOf(def['options'], (option) => next(option));
    case 'intersection':
      return next(def['left']) ?? next(def['right']);
    case 'pipe':
      // The model writes the input side; a transform first means the input is what follows it.
      return next(typeOf(def['in']) === 'transform' ? def['out'] : def['in']);
    case 'lazy':
      return next(internals['innerType']);
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
      return next(def['innerType']);
    default:
      // Strings, numbers, booleans, null, enums, any, unknown, never, template literals, success.
      return undefined;
  }
}

function literalPart(def: Def, at: string): UnanswerablePart | undefined {
  const values = Array.isArray(def['values']) ? (def['values'] as unknown[]) : [];
  if (values.includes(undefined)) return { type: 'z.literal(undefined)', at, why: NEVER_UNDEFINED };
  const big = values.find((v) => typeof v === 'bigint');
  return big === undefined ? undefined : { type: `z.literal(${String(big)}n)`, at, why: NO_BIGINT };
}

function objectPart(def: Def, at: string, next: (child: unknown, where: string) => UnanswerablePart | undefined): UnanswerablePart | undefined {
  const shape = def['shape'];
  if (typeof shape === 'object' && shape !== null) {
    for (const [key, child] of Object.entries(shape)) {
      const part = next(child, `${at}${keySegment(key)}`);
      if (part !== undefined) return part;
    }
  }
  // z.strictObject's catchall is z.never(): nothing to answer there.
  const catchall = def['catchall'];
  return catchall === undefined || typeOf(catchall) === 'never' ? undefined : next(catchall, `${at}[*]`);
}

function tuplePart(def: Def, at: string, next: (child: unknown, where: string) => UnanswerablePart | undefined): UnanswerablePart | undefined {
  const items = Array.isArray(def['items']) ? (def['items'] as unknown[]) : [];
  for (let i = 0; i < items.length; i++) {
    const part = next(items[i], `${at}[${i}]`);
    if (part !== undefined) return part;
  }
  return def['rest'] == null ? undefined : next(def['rest'], `${at}[...]`);
}

function firstOf(list: unknown, visit: (item: unknown) => UnanswerablePart | undefined): UnanswerablePart | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const item of list) {
    const part = visit(item);
    if (part !== undefined) return part;
  }
  return undefined;
}

function keySegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function internalsOf(schema: unknown): Def | undefined {
  return typeof schema === 'object' && schema !== null ? objectAt(schema as Def, '_zod') : undefined;
}

function typeOf(schema: unknown): unknown {
  const def = internalsOf(schema)?.['def'];
  return typeof def === 'object' && def !== null ? (def as Def)['type'] : undefined;
}

function objectAt(value: Def, key: string): Def | undefined {
  const found = value[key];
  return typeof found === 'object' && found !== null ? (found as Def) : undefined;
}
