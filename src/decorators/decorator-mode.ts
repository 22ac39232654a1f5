import { UsageError } from '../errors/groundswell-error.js';

/** A TC39 decorator receives a context object with `kind`; a legacy one gets (target, key, descriptor). */
export function isStandardContext(value: unknown): value is DecoratorContext {
  return typeof value === 'object' && value !== null && 'kind' in value && 'name' in value;
}

export function memberLabel(target: unknown, key: PropertyKey): string {
  const owner =
    typeof target === 'function'
      ? target.name
      : (target as { constructor?: { name?: string } } | null)?.constructor?.name;
  return owner ? `${owner}.${String(key)}` : String(key);
}

export function wrongMember(decorator: string, expected: string, label: string, actual: string): UsageError {
  return new UsageError(`${decorator} can only decorate ${expected}; "${label}" is a ${actual}.`);
}
