/**
 * Compiles spec/*.tsp into generated/openapi.json, its TypeScript types for the server (generated/api-types.ts,
 * openapi-typescript) and a typed client (generated/sdk.ts on openapi-fetch, over generated/sdk-types.ts): the SDK a
 * consumer would generate, which test/sdk/journey.test.ts drives through a whole customer journey.
 *
 *   npm run build:spec            write generated/
 *   npm run build:spec -- --check exit 1 when generated/ differs from what spec/ compiles to
 *
 * The emitted document is post-processed (see `normalizeDocument`) to work around TypeSpec 1.11 emitter quirks
 * that would otherwise make validators and SDK generators misread the contract.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const generatedDir = path.join(root, "generated");

type Json = Record<string, any>;

/** Compiles the TypeSpec sources into a temporary directory and returns the raw OpenAPI document. */
function compileTypeSpec(): Json {
  const outDir = mkdtempSync(path.join(tmpdir(), "rivalscope-spec-"));
  try {
    execFileSync(
      process.execPath,
      [
        path.join(root, "node_modules/@typespec/compiler/cmd/tsp.js"),
        "compile",
        path.join(root, "spec/main.tsp"),
        "--option",
        `@typespec/openapi3.emitter-output-dir=${outDir}`,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    return JSON.parse(readFileSync(path.join(outDir, "openapi.json"), "utf8"));
  } catch (error) {
    // The compiler's diagnostics are shown only when it fails; a successful compile is silent.
    const failed = error as { stdout?: Buffer; stderr?: Buffer };
    if (!failed.stdout && !failed.stderr) throw error;
    throw new Error(`tsp compile failed:\n${failed.stdout?.toString() ?? ""}${failed.stderr?.toString() ?? ""}`);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * Fixes what the TypeSpec 1.11 emitter gets wrong for OpenAPI 3.0 consumers:
 * - Scalar query parameters are emitted with `explode: false`, which makes openapi-backend split `limit=5` into an
 *   array (docs/stack-notes.md#typespec-output). Only array parameters keep an explicit style.
 * - `@useAuth(NoAuth)` emits `security: [{}]` ("auth optional"); public operations really take no auth: `[]`.
 * - A nullable property that references a named schema is emitted as `{allOf: [{$ref}], nullable: true}`; under
 *   JSON Schema, `null` fails the `allOf` branch, so validators reject a valid `null`. Such references to enums and
 *   scalars are inlined (enums get `null` added to their values, as OpenAPI 3.0.3 requires).
 */
export function normalizeDocument(doc: Json): Json {
  const schemas: Json = doc.components?.schemas ?? {};

  for (const pathItem of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(pathItem)) {
      if (typeof operation !== "object" || operation === null) continue;
      if (Array.isArray(operation.security) && operation.security.length === 1) {
        if (Object.keys(operation.security[0]).length === 0) operation.security = [];
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== "query") continue;
        const schema = parameter.schema?.$ref ? resolveRef(schemas, parameter.schema.$ref) : parameter.schema;
        if (schema?.type !== "array") delete parameter.explode;
      }
    }
  }

  const inlineNullableRefs = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(inlineNullableRefs);
    if (typeof node !== "object" || node === null) return;
    const obj = node as Json;
    if (obj.nullable === true && Array.isArray(obj.allOf) && obj.allOf.length === 1 && obj.allOf[0].$ref) {
      const target = resolveRef(schemas, obj.allOf[0].$ref);
      if (target && target.type !== "object" && !target.properties) {
        const { description: _unused, ...targetRest } = target;
        delete obj.allOf;
        Object.assign(obj, { ...targetRest, ...withoutKeys(obj, ["allOf"]) });
        if (Array.isArray(obj.enum) && !obj.enum.includes(null)) obj.enum = [...obj.enum, null];
      }
    }
    for (const value of Object.values(obj)) inlineNullableRefs(value);
  };
  inlineNullableRefs(doc.paths);
  inlineNullableRefs(doc.components);
  removeUnreferencedSchemas(doc);
  return doc;
}

/** Drops component schemas nothing refers to any more (e.g. enums whose every use was inlined above). */
function removeUnreferencedSchemas(doc: Json): void {
  const schemas: Json = doc.components?.schemas ?? {};
  for (;;) {
    const text =
      JSON.stringify({ ...doc, components: { ...doc.components, schemas: undefined } }) + JSON.stringify(schemas);
    const unused = Object.keys(schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`));
    if (unused.length === 0) return;
    for (const name of unused) delete schemas[name];
  }
}

function resolveRef(schemas: Json, ref: string): Json | undefined {
  const name = ref.replace("#/components/schemas/", "");
  return schemas[name];
}

function withoutKeys(obj: Json, keys: string[]): Json {
  return Object.fromEntries(Object.entries(obj).filter(([key]) => !keys.includes(key)));
}

/**
 * The client module: openapi-fetch typed by the generated `paths`, so a wrong path, method, parameter or body field
 * is a compile error and every response is typed by its status. Also lists every operation by id.
 */
function sdkModule(doc: Json): string {
  const operations: string[] = [];
  for (const [route, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (typeof operation?.operationId !== "string") continue;
      operations.push(`  ${operation.operationId}: { method: "${method.toUpperCase()}", path: "${route}" },`);
    }
  }
  return `// Generated by \`npm run build:spec\` from spec/*.tsp via generated/openapi.json. Do not edit.
/**
 * A typed client of the ${doc.info.title} (contract version ${doc.info.version}), on openapi-fetch:
 *
 *   const api = createRivalscopeClient({ baseUrl: "https://api.example.com", token });
 *   const { data, error, response } = await api.GET("/events/{event_id}", { params: { path: { event_id } } });
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths } from "./sdk-types.js";

export type { components, operations, paths } from "./sdk-types.js";

export type RivalscopeClient = Client<paths>;

export interface RivalscopeClientOptions extends ClientOptions {
  /** An access token (POST /auth/login) or API key, sent as \`Authorization: Bearer <token>\`. */
  token?: string;
}

export function createRivalscopeClient({ token, ...options }: RivalscopeClientOptions): RivalscopeClient {
  const client = createClient<paths>(options);
  if (token) {
    client.use({
      onRequest({ request }) {
        request.headers.set("authorization", \`Bearer \${token}\`);
        return request;
      },
    });
  }
  return client;
}

/** Every operation of the contract by its operationId. */
export const OPERATIONS = {
${operations.join("\n")}
} as const;
`;
}

/** Builds the generated files in memory. */
export async function buildContract(): Promise<{ openapi: string; types: string; sdkTypes: string; sdk: string }> {
  const doc = normalizeDocument(compileTypeSpec());
  const openapi = JSON.stringify(doc, null, 2) + "\n";
  const header = "// Generated by `npm run build:spec` from spec/*.tsp via generated/openapi.json. Do not edit.\n";
  // The server's view: the router fills in defaults (ajv useDefaults), so a defaulted request field is always there.
  const types = header + astToString(await openapiTS(doc as any, { alphabetize: false, exportType: false }));
  // The client's view: a field with a default may be left out of a request (openapi-typescript makes it required
  // unless told otherwise).
  const sdkTypes =
    header +
    astToString(await openapiTS(doc as any, { alphabetize: false, exportType: false, defaultNonNullable: false }));
  return { openapi, types, sdkTypes, sdk: sdkModule(doc) };
}

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  const { openapi, types, sdkTypes, sdk } = await buildContract();
  const files: Record<string, string> = {
    "openapi.json": openapi,
    "api-types.ts": types,
    "sdk-types.ts": sdkTypes,
    "sdk.ts": sdk,
  };
  if (check) {
    const stale = Object.entries(files).filter(([name, content]) => {
      const file = path.join(generatedDir, name);
      return !existsSync(file) || readFileSync(file, "utf8") !== content;
    });
    if (stale.length > 0) {
      console.error(`generated/ is stale: ${stale.map(([n]) => n).join(", ")}. Run npm run build:spec.`);
      process.exit(1);
    }
    console.log("generated/ is up to date");
    return;
  }
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(generatedDir, name), content);
  console.log(
    `wrote generated/openapi.json (${Object.keys(JSON.parse(openapi).paths).length} paths), api-types.ts, sdk-types.ts and sdk.ts`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
