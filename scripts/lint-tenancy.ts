/**
 * Fails when code in `src/` reaches a tenant table without going through src/db/tenancy.ts
 * (docs/architecture.md#tenancy-in-the-query). Three shapes are checked, on the TypeScript syntax tree:
 *
 * - a table name handed to a call (`knex("events")`, `trx("sources as s")`, `.from("digests")`): allowed only as the
 *   first argument of `<scope>.from` / `<scope>.insert` (a `WorkspaceScope` or `acrossWorkspaces(db)`), or of a join;
 * - SQL text naming a tenant table after FROM, JOIN, INTO or UPDATE: allowed only inside the arguments of
 *   `<scope>.raw(…)`;
 * - `<TenantModel>.query(…)` on a model class whose `tableName` is a tenant table: use `<scope>.query(Model)`;
 * - a top-level `orWhere…` on a scoped query, which would escape the workspace filter.
 *
 * A scope is recognised by name: an identifier or property ending in `scope`/`Scope` (`scope`, `this.scope`), a call
 * of `acrossWorkspaces(…)`, a variable whose name starts with `across`, or `<scope>.on(trx)`.
 *
 * Usage: `tsx scripts/lint-tenancy.ts` (part of `npm run lint`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { TENANT_TABLES } from "../src/db/tenancy.js";

export interface Violation {
  file: string;
  line: number;
  text: string;
  why: string;
}

const TABLES = TENANT_TABLES.join("|");
const TABLE_REFERENCE = new RegExp(`^(${TABLES})(\\s+as\\s+\\w+)?$`, "i");
const SQL_REFERENCE = new RegExp(`\\b(from|join|into|update)\\s+(${TABLES})\\b`, "i");
/** SQL text, not prose that happens to say "from digests". */
const SQL_STATEMENT = /\b(select|insert|update|delete)\b/i;
const JOINS = new Set([
  "join",
  "innerJoin",
  "leftJoin",
  "leftOuterJoin",
  "rightJoin",
  "rightOuterJoin",
  "fullOuterJoin",
]);
const TENANCY_MODULE = path.join("src", "db", "tenancy.ts");

function isScopeReceiver(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return isScopeReceiver(node.expression);
  if (ts.isIdentifier(node)) return /scope$/i.test(node.text) || /^across/.test(node.text);
  if (ts.isPropertyAccessExpression(node)) return /scope$/i.test(node.name.text);
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    if (ts.isIdentifier(callee)) return callee.text === "acrossWorkspaces";
    if (ts.isPropertyAccessExpression(callee)) return callee.name.text === "on" && isScopeReceiver(callee.expression);
  }
  return false;
}

/** The method a node is the first argument of (`x.from("events")` → from, x), if any. */
function calledWithFirstArgument(node: ts.Node): { method: string; receiver: ts.Expression } | null {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || call.arguments[0] !== node) return null;
  if (!ts.isPropertyAccessExpression(call.expression)) return null;
  return { method: call.expression.name.text, receiver: call.expression.expression };
}

/** Whether the node sits inside the arguments of `<scope>.raw(…)`. */
function insideScopedRaw(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (
      ts.isCallExpression(at) &&
      ts.isPropertyAccessExpression(at.expression) &&
      at.expression.name.text === "raw" &&
      isScopeReceiver(at.expression.expression) &&
      at.arguments.some((argument) => argument.pos <= node.pos && node.end <= argument.end)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Whether a method chain starts at `<scope>.from(…)` or `<scope>.query(…)` of a WorkspaceScope: there, a top-level
 * `orWhere` would make `workspace_id = ? AND a OR b`, and `b` would reach every workspace.
 */
function startsAtWorkspaceQuery(node: ts.Expression): boolean {
  for (let at: ts.Expression = node; ;) {
    if (ts.isCallExpression(at) && ts.isPropertyAccessExpression(at.expression)) {
      const { name, expression: receiver } = at.expression;
      if ((name.text === "from" || name.text === "query") && isScopeReceiver(receiver)) {
        return !(ts.isCallExpression(receiver) || (ts.isIdentifier(receiver) && /^across/.test(receiver.text)));
      }
      at = receiver;
    } else if (ts.isPropertyAccessExpression(at) || ts.isNonNullExpression(at) || ts.isParenthesizedExpression(at)) {
      at = at.expression;
    } else {
      return false;
    }
  }
}

function isFirstArgument(node: ts.Node): boolean {
  return ts.isCallExpression(node.parent) && node.parent.arguments[0] === node;
}

function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(" ");
  return null;
}

/** The classes in `sources` (name → file) whose `static tableName` is a tenant table. */
export function tenantModels(sources: { file: string; text: string }[]): Set<string> {
  const models = new Set<string>();
  const declaration = new RegExp(`class (\\w+) extends \\w+ \\{\\s*static tableName = "(${TABLES})"`, "g");
  for (const { text } of sources) for (const match of text.matchAll(declaration)) models.add(match[1]!);
  return models;
}

export function findUnscopedTenantAccess(file: string, text: string, models: Set<string>): Violation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const violations: Violation[] = [];
  const report = (node: ts.Node, why: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    violations.push({ file, line: line + 1, text: node.getText(source).slice(0, 80), why });
  };
  const visit = (node: ts.Node): void => {
    const literal = literalText(node);
    if (literal !== null && !ts.isTemplateExpression(node.parent)) {
      // A table name handed to a call (`knex("events")`, `.from("events")`, `.into("events")`), not a field name in data.
      if (TABLE_REFERENCE.test(literal) && isFirstArgument(node)) {
        const call = calledWithFirstArgument(node);
        const allowed =
          call !== null &&
          (JOINS.has(call.method) ||
            ((call.method === "from" || call.method === "insert") && isScopeReceiver(call.receiver)));
        if (!allowed) report(node, "tenant table outside a WorkspaceScope or acrossWorkspaces(db)");
      } else if (SQL_REFERENCE.test(literal) && SQL_STATEMENT.test(literal) && !insideScopedRaw(node)) {
        report(node, "SQL on a tenant table outside <scope>.raw(…)");
      }
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      /^or[A-Z]/.test(node.expression.name.text) &&
      startsAtWorkspaceQuery(node.expression.expression)
    ) {
      report(
        node,
        `a top-level ${node.expression.name.text} escapes the workspace filter: group it in .where((q) => …)`,
      );
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === "query" &&
      ts.isIdentifier(node.expression.expression) &&
      models.has(node.expression.expression.text)
    ) {
      report(node, `${node.expression.expression.text}.query() is unscoped: use <scope>.query(Model)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations;
}

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Every violation in the repository's `src/` (the tenancy module itself excepted). */
export function lintTenancy(root: string): Violation[] {
  const sources = typescriptFiles(path.join(root, "src")).map((full) => ({
    file: path.relative(root, full),
    text: readFileSync(full, "utf8"),
  }));
  const models = tenantModels(sources);
  return sources
    .filter(({ file }) => file !== TENANCY_MODULE)
    .flatMap(({ file, text }) => findUnscopedTenantAccess(file, text, models));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const violations = lintTenancy(path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."));
  for (const v of violations) console.error(`${v.file}:${v.line}  ${v.why}\n    ${v.text}`);
  if (violations.length > 0) {
    console.error(`\n${violations.length} unscoped tenant access(es): see docs/architecture.md#tenancy-in-the-query`);
    process.exit(1);
  }
}
