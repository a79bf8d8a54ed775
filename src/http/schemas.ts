/**
 * The contract's types, from generated/api-types.ts (built from spec/ by `npm run build:spec`). Code names a shape
 * the contract defines through these aliases and never writes its own copy, so a change to the contract reaches every
 * use at compile time. A leaf module: it imports nothing but the generated types.
 */
import type { components, operations } from "../../generated/api-types.js";

/** Every named schema of the contract, e.g. `Schemas["Competitor"]`. */
export type Schemas = components["schemas"];

export type Severity = Schemas["Severity"];
export type EventType = Schemas["EventType"];
export type EventStatus = Schemas["EventStatus"];
export type Plan = Schemas["Plan"];
export type SourceType = Schemas["SourceType"];

/**
 * What serialises to `T` in JSON: a `Date` where the contract has a plain string (models keep timestamps as Dates and
 * `JSON.stringify` writes them as ISO strings). Everything else must match the contract's type exactly.
 */
export type Wire<T> = T extends string
  ? string extends T
    ? string | Date
    : T
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** The query parameters an operation takes. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;
