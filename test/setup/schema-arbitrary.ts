/**
 * fast-check arbitraries built from the contract's JSON schemas (the OpenAPI 3.0 subset generated/openapi.json uses:
 * `$ref`, `allOf`/`anyOf`/`oneOf`, `nullable`, `enum`, string formats, numeric bounds, arrays and objects), plus the
 * hostile values a client can send in place of any field. The fuzz test (test/contract/fuzz.test.ts) uses them to
 * send requests that are valid, nearly valid, and malformed.
 */
import fc from "fast-check";

export type Schema = Record<string, unknown>;

/** Values that have broken services like this one: out-of-range dates, NUL bytes, huge strings, lone surrogates. */
export const HOSTILE_STRINGS: readonly string[] = [
  "",
  "\u0000",
  "a\u0000b",
  "0000-01-01T00:00:00Z",
  "2024-01-01T00:00:00+23:00",
  "9999-12-31T23:59:59-23:59",
  "275760-09-13T00:00:00Z",
  "-000001-01-01T00:00:00Z",
  "2024-02-30T00:00:00Z",
  "1e309",
  "-1",
  "NaN",
  "Infinity",
  "null",
  "x".repeat(100_000),
  "é".repeat(3_000),
  "\uD800",
  "😀".repeat(500),
  "../../etc/passwd",
  "' OR 1=1 --",
  "%00",
  "http://169.254.169.254/latest/meta-data/",
  "https://[::1]/",
  "javascript:alert(1)",
  "<script>alert(1)</script>",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
];

export const hostileString = (): fc.Arbitrary<string> => fc.constantFrom(...HOSTILE_STRINGS);

/** Any value a JSON body could hold in place of a field: hostile strings, extreme numbers, wrong types. */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    hostileString(),
    fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, -1e308, 1e308, 0.1, -0, true, null, [], {}, [[[[[[[[]]]]]]]]),
    fc.jsonValue({ maxDepth: 3 }),
  );

export class SchemaArbitraries {
  // fast-check builds a URL arbitrary in ~70 ms (it tokenizes its character tables): one of each serves every field.
  private webUrls?: fc.Arbitrary<string>;
  private httpsUrls?: fc.Arbitrary<string>;

  constructor(private readonly document: { components?: { schemas?: Record<string, Schema> } }) {}

  /** A value valid against `schema` (as far as the generator can know: `pattern` is honoured for the URL patterns). */
  valid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    if (!schema) return fc.constant(undefined);
    const resolved = this.resolve(schema);
    const base = this.validOf(resolved, depth);
    return resolved.nullable
      ? fc.oneof({ arbitrary: base, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 })
      : base;
  }

  /** Usually valid, sometimes with one hostile value somewhere inside. */
  nearlyValid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    if (!schema) return fc.constant(undefined);
    const resolved = this.resolve(schema);
    if (resolved.type === "object" && resolved.properties && depth < 3) {
      return this.objectOf(resolved, depth, (child) => this.nearlyValid(child, depth + 1));
    }
    return fc.oneof({ arbitrary: this.valid(resolved, depth), weight: 5 }, { arbitrary: hostileValue(), weight: 1 });
  }

  resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; hops < 10; hops++) {
      if (typeof current.$ref === "string") {
        const name = current.$ref.replace("#/components/schemas/", "");
        current = { ...this.document.components?.schemas?.[name], nullable: current.nullable };
      } else if (Array.isArray(current.allOf) && current.allOf.length === 1) {
        const { allOf, ...rest } = current;
        current = { ...rest, ...(allOf[0] as Schema) };
      } else {
        return current;
      }
    }
    return current;
  }

  private validOf(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (alternatives) return fc.oneof(...alternatives.map((s) => this.valid(s, depth + 1)));
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    switch (schema.type) {
      case "string":
        return this.stringOf(schema);
      case "integer":
        return fc.integer({ min: numberOr(schema.minimum, -1000), max: numberOr(schema.maximum, 1_000_000) });
      case "number":
        return fc.double({ min: numberOr(schema.minimum, -1000), max: numberOr(schema.maximum, 1e6), noNaN: true });
      case "boolean":
        return fc.boolean();
      case "array":
        if (depth > 4) return fc.constant([]);
        return fc.array(this.valid(schema.items as Schema, depth + 1), {
          minLength: numberOr(schema.minItems, 0),
          maxLength: Math.min(numberOr(schema.maxItems, 3), 3),
        });
      case "object":
        if (depth > 4) return fc.constant({});
        return schema.properties
          ? this.objectOf(schema, depth, (child) => this.valid(child, depth + 1))
          : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private objectOf(
    schema: Schema,
    depth: number,
    field: (child: Schema) => fc.Arbitrary<unknown>,
  ): fc.Arbitrary<Record<string, unknown>> {
    const properties = schema.properties as Record<string, Schema>;
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, child] of Object.entries(properties)) record[name] = field(child);
    return fc.record(record, { requiredKeys: (schema.required as string[] | undefined) ?? [] }) as fc.Arbitrary<
      Record<string, unknown>
    >;
  }

  private stringOf(schema: Schema): fc.Arbitrary<string> {
    const minLength = numberOr(schema.minLength, 0);
    const maxLength = Math.min(numberOr(schema.maxLength, 40), 40);
    switch (schema.format) {
      case "uuid":
        return fc.uuid();
      case "date-time":
        return fc
          .date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2040-01-01T00:00:00Z"), noInvalidDate: true })
          .map((d) => d.toISOString());
      case "email":
        return fc.emailAddress().filter((e) => e.length <= 100);
      case "uri":
        return (this.webUrls ??= fc.webUrl({ validSchemes: ["https", "http"] }));
      default:
        if (typeof schema.pattern === "string" && /^\^\[hH\]/.test(schema.pattern)) {
          return (this.httpsUrls ??= fc.webUrl({ validSchemes: ["https"] }));
        }
        return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
    }
  }
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}
