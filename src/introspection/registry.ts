import { IntrospectionError } from './introspection-error.js';

/**
 * The entry registered under `name`, read when the tool runs (so a registry may name an agent
 * created after the tools, such as the agent that is given them). Only own keys count: a model
 * asking for "toString" gets the list, not Object.prototype.
 */
export function lookup<E>(registry: Readonly<Record<string, E>>, name: string, what: 'workflow' | 'agent'): E {
  if (Object.hasOwn(registry, name)) {
    const entry = registry[name];
    if (entry !== undefined) return entry;
  }
  const names = Object.keys(registry);
  const known = names.length > 0 ? names.map((n) => JSON.stringify(n)).join(', ') : '(none)';
  throw new IntrospectionError(`No ${what} is registered as ${JSON.stringify(name)}. Registered ${what}s: ${known}.`);
}

/** `name: description` lines for a tool description, built from the registry as it is now. */
export function describeRegistry(entries: ReadonlyArray<readonly [string, string | undefined]>): string {
  if (entries.length === 0) return '';
  return entries.map(([name, description]) => (description ? `- ${name}: ${description}` : `- ${name}`)).join('\n');
}
