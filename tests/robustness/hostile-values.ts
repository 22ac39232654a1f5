/**
 * Values user code may throw, reject with or hold as state, each built fresh (a revoked proxy
 * cannot be reused across tests). Every public entry point that runs user code is driven with
 * all of them.
 */
export interface HostileValue {
  readonly label: string;
  make(): unknown;
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingGetter(key: string): Error {
  const error = new Error('x');
  Object.defineProperty(error, key, {
    get() {
      throw new Error(`${key} getter exploded`);
    },
  });
  return error;
}

export const HOSTILE_THROWN: readonly HostileValue[] = [
  { label: 'null', make: () => null },
  { label: 'undefined', make: () => undefined },
  { label: 'a number', make: () => 42 },
  { label: 'a string', make: () => 'plain string' },
  { label: 'Object.create(null)', make: () => Object.create(null) as object },
  {
    label: 'an object whose toString throws',
    make: () => ({
      toString() {
        throw new Error('toString exploded');
      },
    }),
  },
  { label: 'an Error whose message getter throws', make: () => throwingGetter('message') },
  { label: 'an Error whose name getter throws', make: () => throwingGetter('name') },
  { label: 'an Error whose cause getter throws', make: () => throwingGetter('cause') },
  { label: 'a revoked proxy', make: revokedProxy },
  { label: 'a symbol', make: () => Symbol('boom') },
  {
    label: 'an object with a throwing toJSON',
    make: () => ({
      toJSON() {
        throw new Error('toJSON exploded');
      },
    }),
  },
];

class Unprintable {
  get value(): never {
    throw new RangeError('getter exploded');
  }
}

/** State values that JSON cannot hold or that throw when read. */
export const HOSTILE_STATE: readonly HostileValue[] = [
  { label: 'an Invalid Date', make: () => new Date(Number.NaN) },
  {
    label: 'an object with a throwing toJSON',
    make: () => ({
      toJSON() {
        throw new Error('toJSON exploded');
      },
    }),
  },
  {
    label: 'an object with a throwing getter',
    make: () => {
      const o = {};
      Object.defineProperty(o, 'bad', {
        enumerable: true,
        get() {
          throw new Error('getter exploded');
        },
      });
      return o;
    },
  },
  { label: 'a class instance with a throwing getter', make: () => new Unprintable() },
  { label: 'a revoked proxy', make: revokedProxy },
  {
    label: 'a cycle',
    make: () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    },
  },
  { label: 'a BigInt', make: () => 10n ** 30n },
];
