/**
 * A part of a response format's JSON schema that says nothing the strict form can hold to (no
 * `type`, `anyOf`, `oneOf`, `allOf`, `enum` or `const`: `z.any()`, `z.unknown()`). Its name and
 * message are those of the plain Error the SDK's transform threw for it, which callers may match.
 */
export class SchemaWithoutTypeError extends Error {
  constructor() {
    // The name stays Error's own (inherited, as on a plain Error): only the class is new.
    super('JSON schema must have a type defined if anyOf/oneOf/allOf/enum/const are not used');
  }
}
