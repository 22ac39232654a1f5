// Node 20 has no Symbol.metadata; the TC39 decorator transforms (esbuild, TypeScript) fall back
// to Symbol.for('Symbol.metadata'), so defining it the same way makes both sides agree.
(Symbol as { metadata?: symbol }).metadata ??= Symbol.for('Symbol.metadata');

const METADATA: symbol = (Symbol as unknown as { metadata: symbol }).metadata;

type MetadataBag = Record<PropertyKey, unknown>;

/** The metadata object of a class, created for legacy decorators (which have none of their own). */
export function ownMetadataOf(constructor: object): MetadataBag {
  const bag = constructor as Record<PropertyKey, unknown>;
  if (Object.prototype.hasOwnProperty.call(bag, METADATA)) return bag[METADATA] as MetadataBag;
  const parent = Object.getPrototypeOf(constructor) as Record<PropertyKey, unknown> | null;
  const inherited = (parent?.[METADATA] ?? null) as MetadataBag | null;
  const created = Object.create(inherited) as MetadataBag;
  Object.defineProperty(constructor, METADATA, { value: created, configurable: true });
  return created;
}

/** A list stored on a metadata bag, copied from the inherited list the first time a subclass adds. */
export function ownList<T>(bag: MetadataBag, key: symbol): T[] {
  if (Object.prototype.hasOwnProperty.call(bag, key)) return bag[key] as T[];
  const inherited = (bag[key] as T[] | undefined) ?? [];
  const list = [...inherited];
  bag[key] = list;
  return list;
}

const NONE: readonly never[] = Object.freeze([]);

export function readList<T>(instance: object, key: symbol): readonly T[] {
  const constructor = (instance as { constructor?: Record<PropertyKey, unknown> }).constructor;
  const bag = constructor?.[METADATA] as MetadataBag | undefined;
  return (bag?.[key] as T[] | undefined) ?? NONE;
}
