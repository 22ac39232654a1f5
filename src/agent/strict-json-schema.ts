/**
 * The strict form of a JSON schema that a structured answer is asked for with: the form the
 * Anthropic SDK's `transformJSONSchema` (SDK 1.14) makes, written here from its behaviour so a
 * first call does not load the SDK's module and the dozen behind it (about 15-20 ms of a fresh
 * process's first call, decision 0083). A test holds the two byte-identical over a corpus of zod
 * schemas and hand-written edge cases; the same schema is sent, and the same error thrown.
 *
 * What the model cannot be held to exactly is not dropped but told: every keyword left over (a
 * bound, a pattern, a default, an unsupported format) is appended to the part's description.
 */
import { SchemaWithoutTypeError } from './schema-without-type-error.js';

type Part = Record<string, unknown>;

/** String formats the strict form keeps as keywords; any other is told in the description. */
const KEPT_FORMATS: ReadonlySet<unknown> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** `schema` made strict; `schema` itself is left as it was. */
export function strictJsonSchema(schema: unknown): Part {
  // A copy through JSON text, as the SDK's: undefined fields vanish, NaN becomes null, and
  // nothing in the result is shared with zod's own objects.
  return strictPart(JSON.parse(JSON.stringify(schema)) as Part);
}

/** Reads and removes one keyword: what is still in a part at the end goes to its description. */
function take(rest: Part, keyword: string): unknown {
  const value = rest[keyword];
  delete rest[keyword];
  return value;
}

const isPrimitive = (value: unknown): boolean => value === null || typeof value !== 'object';

/** One part of the copy (taken apart as it goes) made strict; keywords in the order the SDK writes them. */
function strictPart(rest: Part): Part {
  const strict: Part = {};
  // Definitions first: a root `$ref` beside them keeps them.
  const defs = take(rest, '$defs');
  if (defs !== undefined) {
    const strictDefs: Part = {};
    strict['$defs'] = strictDefs;
    for (const [name, def] of Object.entries(defs as Part)) strictDefs[name] = strictPart(def as Part);
  }
  const ref = take(rest, '$ref');
  if (ref !== undefined) {
    // A reference stands alone: its siblings (a description too) are dropped, not told.
    strict['$ref'] = ref;
    return strict;
  }
  const literal = takeLiterals(rest, strict);
  const declared = take(rest, 'type');
  const type = literal ? undefined : declared;
  const anyOf = take(rest, 'anyOf');
  const oneOf = take(rest, 'oneOf');
  const allOf = take(rest, 'allOf');
  // The dialect constrains nothing: neither kept nor told.
  delete rest['$schema'];
  if (Array.isArray(anyOf)) strict['anyOf'] = anyOf.map((option) => strictPart(option as Part));
  else if (Array.isArray(oneOf)) strict['anyOf'] = oneOf.map((option) => strictPart(option as Part));
  else if (Array.isArray(allOf)) strict['allOf'] = allOf.map((member) => strictPart(member as Part));
  else if (!literal) {
    if (type === undefined) throw new SchemaWithoutTypeError();
    strict['type'] = type;
  }
  carry(rest, strict, 'description');
  carry(rest, strict, 'title');
  if (type === 'object') strictObject(rest, strict);
  else if (type === 'string') strictString(rest, strict);
  else if (type === 'array') strictArray(rest, strict);
  tellTheRest(rest, strict);
  return strict;
}

/** Moves `enum` (non-empty, all primitive) and `const` (primitive) over; whether either moved. */
function takeLiterals(rest: Part, strict: Part): boolean {
  const values = rest['enum'];
  if (Array.isArray(values) && values.length > 0 && values.every(isPrimitive)) strict['enum'] = take(rest, 'enum');
  if (rest['const'] !== undefined && isPrimitive(rest['const'])) strict['const'] = take(rest, 'const');
  return 'enum' in strict || 'const' in strict;
}

function carry(rest: Part, strict: Part, keyword: string): void {
  const value = take(rest, keyword);
  if (value !== undefined) strict[keyword] = value;
}

/** Every property strict, no others allowed (`additionalProperties` is replaced, not told). */
function strictObject(rest: Part, strict: Part): void {
  const properties = (take(rest, 'properties') || {}) as Part;
  // fromEntries, not assignment: a property named `__proto__` stays a property.
  strict['properties'] = Object.fromEntries(Object.entries(properties).map(([key, part]) => [key, strictPart(part as Part)]));
  delete rest['additionalProperties'];
  strict['additionalProperties'] = false;
  carry(rest, strict, 'required');
}

function strictString(rest: Part, strict: Part): void {
  const format = take(rest, 'format');
  if (format === undefined) return;
  // Put back, it is told last among what is left.
  if (KEPT_FORMATS.has(format)) strict['format'] = format;
  else rest['format'] = format;
}

function strictArray(rest: Part, strict: Part): void {
  const items = take(rest, 'items');
  if (items !== undefined) strict['items'] = strictPart(items as Part);
  const minItems = take(rest, 'minItems');
  if (minItems === undefined) return;
  if (minItems === 0 || minItems === 1) strict['minItems'] = minItems;
  else rest['minItems'] = minItems;
}

/** Whatever keywords are left, as `{key: json, ...}` after the description (or as it). */
function tellTheRest(rest: Part, strict: Part): void {
  const left = Object.entries(rest);
  if (left.length === 0) return;
  const told = `{${left.map(([keyword, value]) => `${keyword}: ${JSON.stringify(value)}`).join(', ')}}`;
  const description = strict['description'];
  strict['description'] = description ? `${String(description)}\n\n${told}` : told;
}
