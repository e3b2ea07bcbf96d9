// Values for a JSON Schema of the contract, as fast-check arbitraries: what a well-meaning client
// would send. The fuzz starts from these and breaks one thing at a time, so that a malformed
// field reaches the code behind the fields that come before it.
import fc from 'fast-check';
import { contract, type Api } from '../../specs/contract.ts';

export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  additionalProperties?: boolean | Schema;
}

/** The schema a $ref names, in the document of `api` (refs are local to a document). */
export function resolve(api: Api, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    const name = current.$ref.split('/').pop() as string;
    current = (contract().documents[api].components?.schemas?.[name] ?? {}) as Schema;
  }
  return current;
}

const DEPTH_LIMIT = 4;

/** A value the schema accepts, as far as a generator can tell (patterns are not followed). */
export function schemaValue(api: Api, node: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(api, node);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices && choices.length > 0) return fc.oneof(...choices.map((choice) => schemaValue(api, choice, depth + 1)));
  if (schema.allOf && schema.allOf.length > 0) return schemaValue(api, Object.assign({}, ...schema.allOf.map((part) => resolve(api, part))), depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : undefined)) {
    case 'object': {
      if (depth >= DEPTH_LIMIT) return fc.constant({});
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const fields = Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, schemaValue(api, child, depth + 1)]));
      return fc.record(fields, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
    }
    case 'array':
      return depth >= DEPTH_LIMIT ? fc.constant([]) : fc.array(schemaValue(api, schema.items, depth + 1), { maxLength: 3 });
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 100, 1_000_000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 100, noNaN: true });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.oneof(
        fc.constant(null),
        fc.string({ maxLength: 8 }),
        fc.integer(),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
      );
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uri':
    case 'uri-reference':
      // Loopback and a closed port: a webhook the fuzz gets accepted fails at once, off the network.
      return fc.constantFrom('http://127.0.0.1:9/hook', 'https://127.0.0.1:9/a?b=c');
    default:
      return fc.string({ minLength: schema.minLength ?? 1, maxLength: Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 12, 12)) });
  }
}
