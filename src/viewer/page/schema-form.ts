/**
 * A form for a signal's value, built from the wait's JSON Schema (decision 0081): an object whose
 * properties are all strings, numbers, integers, booleans or enums gets an input, a number input,
 * a checkbox or a select per property; any other schema gets one JSON textarea. The server checks
 * the value against the schema either way: the form only helps to write it.
 */
import { add, el } from './dom.js';

type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

interface Field {
  readonly key: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly options: readonly unknown[];
  readonly control: HTMLInputElement | HTMLSelectElement;
}

/** The form's controls and how to read the value they hold. */
export interface SchemaForm {
  readonly element: HTMLElement;
  /** The value as typed, or an Error saying what is wrong with it. */
  read(): unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(property: unknown): FieldKind | null {
  if (!isRecord(property)) return null;
  if (Array.isArray(property.enum) && property.enum.length > 0) return 'enum';
  const type = property.type;
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : null;
}

/** The object schema's simple fields, or null when the schema needs the JSON fallback. */
function simpleFields(schema: unknown): Array<{ key: string; kind: FieldKind; required: boolean; options: readonly unknown[] }> | null {
  if (!isRecord(schema) || schema.type !== 'object' || !isRecord(schema.properties)) return null;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields = [];
  for (const [key, property] of Object.entries(schema.properties)) {
    const kind = kindOf(property);
    if (kind === null) return null;
    fields.push({ key, kind, required: required.indexOf(key) >= 0, options: kind === 'enum' && isRecord(property) ? (property.enum as unknown[]) : [] });
  }
  return fields.length > 0 ? fields : null;
}

function control(kind: FieldKind, options: readonly unknown[]): HTMLInputElement | HTMLSelectElement {
  if (kind === 'enum') {
    const select = el('select');
    for (const option of options) {
      const item = el('option', '', typeof option === 'string' ? option : JSON.stringify(option));
      item.value = JSON.stringify(option);
      select.appendChild(item);
    }
    return select;
  }
  const input = el('input');
  input.type = kind === 'boolean' ? 'checkbox' : kind === 'string' ? 'text' : 'number';
  if (kind === 'integer') input.step = '1';
  if (kind === 'number') input.step = 'any';
  return input;
}

function readField(field: Field): { value: unknown } | Error | null {
  const { control: c, kind, key, required } = field;
  if (kind === 'boolean') return { value: (c as HTMLInputElement).checked };
  if (kind === 'enum') return { value: JSON.parse(c.value) as unknown };
  if (c.value === '') return required ? new Error(key + ' is required.') : null;
  if (kind === 'string') return { value: c.value };
  const n = Number(c.value);
  if (!isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) return new Error(key + ' must be ' + (kind === 'integer' ? 'a whole number.' : 'a number.'));
  return { value: n };
}

function fieldsForm(specs: NonNullable<ReturnType<typeof simpleFields>>): SchemaForm {
  const element = el('div', 'signal-fields');
  const fields: Field[] = specs.map((spec) => {
    const c = control(spec.kind, spec.options);
    c.name = spec.key;
    const label = add(el('label', spec.kind === 'boolean' ? 'check' : ''), el('span', '', spec.key + (spec.required || spec.kind === 'boolean' ? '' : ' (optional)')), c);
    element.appendChild(label);
    return { ...spec, control: c };
  });
  return {
    element,
    read() {
      const value: Record<string, unknown> = {};
      for (const field of fields) {
        const got = readField(field);
        if (got instanceof Error) return got;
        if (got !== null) value[field.key] = got.value;
      }
      return value;
    },
  };
}

function jsonForm(): SchemaForm {
  const area = el('textarea');
  area.name = 'value';
  area.rows = 4;
  area.placeholder = 'the value, as JSON';
  area.setAttribute('aria-label', 'The signal\u2019s value as JSON');
  return {
    element: add(el('label', 'json'), el('span', '', 'value (JSON)'), area),
    read() {
      try {
        return JSON.parse(area.value) as unknown;
      } catch {
        return new Error('The value must be JSON (e.g. {"approved": true}).');
      }
    },
  };
}

/** The form for a value that must fit `schema` (a JSON Schema, or undefined when none was stored). */
export function schemaForm(schema: unknown): SchemaForm {
  const fields = simpleFields(schema);
  return fields === null ? jsonForm() : fieldsForm(fields);
}
