/**
 * Expressions of the brace dialects (Django, Jinja, Liquid, Twig, Nunjucks): paths, literals, comparisons, boolean
 * operators, filters and calls. A small recursive-descent evaluator over the values the page can know (front matter,
 * data files, loop variables); what it cannot know evaluates to undefined, never to an error.
 */
import { applyFilter, member, RubyFloat, textOf, type Value } from "./values.js";

type Token = { kind: "str" | "num" | "name" | "op"; value: string };

const TOKEN_RE =
  /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\d+(?:\.\d+)?)|([A-Za-z_$@][\w$-]*(?:\?)?)|(===|!==|==|!=|<>|<=|>=|\*\*|\/\/|[<>+\-*/%~|:,.()[\]{}=!?]))/y;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  let at = 0;
  while (at < source.length) {
    TOKEN_RE.lastIndex = at;
    const match = TOKEN_RE.exec(source);
    if (!match || match[0].length === 0) {
      if (/^\s*$/.test(source.slice(at))) break;
      at += 1; // an unknown character: skipped
      continue;
    }
    at = TOKEN_RE.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: "str", value: unquote(match[1]) });
    else if (match[2] !== undefined) tokens.push({ kind: "num", value: match[2] });
    else if (match[3] !== undefined) tokens.push({ kind: "name", value: match[3] });
    else if (match[4] !== undefined) tokens.push({ kind: "op", value: match[4] });
  }
  return tokens;
}

function unquote(literal: string): string {
  return literal.slice(1, -1).replace(/\\(.)/g, "$1");
}

export interface Scope {
  /** A name's value, or undefined. */
  lookup(name: string): Value;
  /** Calls a named function (translation, macro); undefined when unknown. */
  call(name: string, args: Value[], kwargs: Record<string, Value>): Value;
  /** Liquid's looser truthiness (only nil and false are false). */
  liquid: boolean;
  /** A filter the product defines (see RenderOptions.filters); undefined when it is not one of those. */
  customFilter?(name: string, value: Value, args: Value[]): { value: Value } | undefined;
}

/** A parsed expression, evaluated against a scope. */
export type Expr = (scope: Scope) => Value;

/** A function value that also takes keyword arguments (a Jinja macro: `plan(name="Pro", price=9)`). */
export type KeywordFunction = ((...args: Value[]) => Value) & {
  withKeywords: (args: Value[], kwargs: Record<string, Value>) => Value;
};

export function keywordFunction(fn: (args: Value[], kwargs: Record<string, Value>) => Value): KeywordFunction {
  return Object.assign((...args: Value[]) => fn(args, {}), { withKeywords: fn });
}

/** Words that translate their first argument (Django, Jinja, Rails i18n, Hugo): the literal is the page's text. */
export const TRANSLATE_FUNCTIONS = new Set([
  "_",
  "gettext",
  "ugettext",
  "t",
  "trans",
  "translate",
  "i18n",
  "__",
  "pgettext",
  "ngettext",
  "_t",
  "T",
]);

export function parseExpr(source: string): Expr {
  const tokens = tokenize(source);
  let i = 0;
  const peek = (offset = 0) => tokens[i + offset];
  const isOp = (value: string, offset = 0) => peek(offset)?.kind === "op" && peek(offset)?.value === value;
  const isWord = (value: string, offset = 0) => peek(offset)?.kind === "name" && peek(offset)?.value === value;

  const truthy = (scope: Scope, value: Value) =>
    scope.liquid ? value !== null && value !== undefined && value !== false : isTruthy(value);

  function ternary(): Expr {
    const value = or();
    if (isWord("if")) {
      i++;
      const condition = or();
      let otherwise: Expr = () => undefined;
      if (isWord("else")) {
        i++;
        otherwise = ternary();
      }
      return (scope) => (truthy(scope, condition(scope)) ? value(scope) : otherwise(scope));
    }
    if (isOp("?")) {
      i++;
      const yes = ternary();
      if (isOp(":")) i++;
      const no = ternary();
      return (scope) => (truthy(scope, value(scope)) ? yes(scope) : no(scope));
    }
    return value;
  }
  function or(): Expr {
    let left = and();
    while (isWord("or") || (isOp("|") && isOp("|", 1))) {
      if (isOp("|")) i += 2;
      else i++;
      const l = left;
      const right = and();
      left = (scope) => {
        const value = l(scope);
        return truthy(scope, value) ? value : right(scope);
      };
    }
    return left;
  }
  function and(): Expr {
    let left = not();
    while (isWord("and")) {
      i++;
      const l = left;
      const right = not();
      left = (scope) => {
        const value = l(scope);
        return truthy(scope, value) ? right(scope) : value;
      };
    }
    return left;
  }
  function not(): Expr {
    if (isWord("not") || (isOp("!") && !isOp("=", 1))) {
      i++;
      const inner = not();
      return (scope) => !truthy(scope, inner(scope));
    }
    return comparison();
  }
  function comparison(): Expr {
    const left = additive();
    const op = peek();
    if (!op) return left;
    let name: string | null = null;
    if (op.kind === "op" && ["===", "!==", "==", "!=", "<>", "<", ">", "<=", ">="].includes(op.value)) name = op.value;
    else if (op.kind === "name" && (op.value === "in" || op.value === "contains")) name = op.value;
    else if (op.kind === "name" && op.value === "not" && isWord("in", 1)) {
      i++;
      name = "not in";
    } else if (op.kind === "name" && op.value === "is") {
      i++;
      const negate = isWord("not") ? (i++, true) : false;
      const test = peek()?.value ?? "";
      i++;
      const argument = peek() && !isWord("and") && !isWord("or") && !isOp(")") ? additive() : null;
      return (scope) => {
        const value = left(scope);
        let result: boolean;
        if (test === "defined") result = value !== undefined;
        else if (test === "none" || test === "None") result = value === null || value === undefined;
        else if (test === "sameas" || test === "equalto" || test === "eq")
          result = argument ? loose(value) === loose(argument(scope)) : false;
        else if (test === "string") result = typeof value === "string";
        else if (test === "number" || test === "integer" || test === "float") result = typeof value === "number";
        else if (test === "iterable" || test === "sequence")
          result = typeof value === "string" || Array.isArray(value) || (!!value && typeof value === "object");
        else if (test === "mapping") result = !!value && typeof value === "object" && !Array.isArray(value);
        else if (test === "boolean") result = typeof value === "boolean";
        else if (test === "true") result = value === true;
        else if (test === "false") result = value === false;
        else if (test === "odd" || test === "even") result = Number(value) % 2 === (test === "odd" ? 1 : 0);
        else result = isTruthy(value);
        return negate ? !result : result;
      };
    }
    if (name === null) return left;
    i++;
    const right = additive();
    return (scope) => {
      const a = left(scope);
      const b = right(scope);
      switch (name) {
        case "==":
          return loose(a) === loose(b);
        // Nunjucks' strict comparisons: `x === true` holds for the boolean true only, not for a string or a missing value.
        case "===":
          return a === b;
        case "!==":
          return a !== b;
        case "!=":
        case "<>":
          return loose(a) !== loose(b);
        case "<":
          return Number(a) < Number(b);
        case ">":
          return Number(a) > Number(b);
        case "<=":
          return Number(a) <= Number(b);
        case ">=":
          return Number(a) >= Number(b);
        case "in":
          return contains(b, a);
        case "not in":
          return !contains(b, a);
        case "contains":
          return contains(a, b);
      }
      return undefined;
    };
  }
  function additive(): Expr {
    let left = multiplicative();
    while (isOp("+") || isOp("-") || isOp("~")) {
      const op = peek()!.value;
      i++;
      const l = left;
      const right = multiplicative();
      left = (scope) => {
        const a = l(scope);
        const b = right(scope);
        if (op === "~") return textOf(a) + textOf(b);
        if (op === "+") return typeof a === "number" && typeof b === "number" ? a + b : textOf(a) + textOf(b);
        return Number(a) - Number(b);
      };
    }
    return left;
  }
  function multiplicative(): Expr {
    let left = filtered();
    while (isOp("*") || isOp("/") || isOp("%") || isOp("//")) {
      const op = peek()!.value;
      i++;
      const l = left;
      const right = filtered();
      left = (scope) => {
        const a = Number(l(scope));
        const b = Number(right(scope));
        return op === "*" ? a * b : op === "/" ? a / b : op === "//" ? Math.floor(a / b) : a % b;
      };
    }
    return left;
  }
  function filtered(): Expr {
    let value = unary();
    while (isOp("|") && !isOp("|", 1)) {
      i++;
      const name = peek()?.value ?? "";
      i++;
      const args: Expr[] = [];
      if (isOp(":")) {
        // Django `|default:"x"`, Liquid `| default: "x", "y"` (and Liquid keyword arguments, read positionally).
        i++;
        args.push(unary());
        while (isOp(",")) {
          i++;
          if (peek()?.kind === "name" && isOp(":", 1)) i += 2;
          args.push(unary());
        }
      } else if (isOp("(")) {
        i++;
        while (peek() && !isOp(")")) {
          if (peek()?.kind === "name" && isOp("=", 1)) i += 2;
          args.push(ternary());
          if (isOp(",")) i++;
        }
        i++;
      }
      const inner = value;
      value = (scope) => {
        const input = inner(scope);
        const argValues = args.map((arg) => arg(scope));
        const custom = scope.customFilter?.(name, input, argValues);
        return custom ? custom.value : applyFilter(name, input, argValues);
      };
    }
    return value;
  }
  function unary(): Expr {
    if (isOp("-")) {
      i++;
      const inner = unary();
      return (scope) => -Number(inner(scope));
    }
    return postfix();
  }
  function postfix(): Expr {
    let value = primary();
    for (;;) {
      if (isOp(".") && peek(1)) {
        i++;
        const key = peek()!.value;
        i++;
        const inner = value;
        value = (scope) => member(inner(scope), key);
      } else if (isOp("[")) {
        i++;
        const key = ternary();
        if (isOp("]")) i++;
        const inner = value;
        value = (scope) => member(inner(scope), key(scope) as string | number);
      } else if (isOp("(")) {
        i++;
        const args: Expr[] = [];
        const kwargs: [string, Expr][] = [];
        while (peek() && !isOp(")")) {
          if (peek()?.kind === "name" && isOp("=", 1) && !isOp("=", 2)) {
            const key = peek()!.value;
            i += 2;
            kwargs.push([key, ternary()]);
          } else args.push(ternary());
          if (isOp(",")) i++;
          else if (!isOp(")")) i++;
        }
        i++;
        const inner = value;
        const name = calleeName;
        value = (scope) => {
          const callee = inner(scope);
          const argValues = args.map((arg) => arg(scope));
          const kw = Object.fromEntries(kwargs.map(([k, e]) => [k, e(scope)]));
          if (typeof callee === "function") {
            const withKeywords = (callee as Partial<KeywordFunction>).withKeywords;
            return withKeywords ? withKeywords(argValues, kw) : (callee as (...a: Value[]) => Value)(...argValues);
          }
          return name ? scope.call(name, argValues, kw) : undefined;
        };
      } else break;
    }
    return value;
  }
  let calleeName: string | null = null;
  function primary(): Expr {
    const token = peek();
    calleeName = null;
    if (!token) return () => undefined;
    i++;
    if (token.kind === "str") return () => token.value;
    if (token.kind === "num") return () => Number(token.value);
    if (token.kind === "op" && token.value === "(") {
      // A parenthesised expression, or a tuple (`("$50", "per month")`, `()`), read as a list.
      if (isOp(")")) {
        i++;
        return () => [];
      }
      const inner = ternary();
      if (!isOp(",")) {
        if (isOp(")")) i++;
        return inner;
      }
      const items: Expr[] = [inner];
      while (isOp(",")) {
        i++;
        if (isOp(")")) break;
        items.push(ternary());
      }
      if (isOp(")")) i++;
      return (scope) => items.map((item) => item(scope));
    }
    if (token.kind === "op" && token.value === "[") {
      const items: Expr[] = [];
      while (peek() && !isOp("]")) {
        items.push(ternary());
        if (isOp(",")) i++;
        else if (!isOp("]")) i++;
      }
      i++;
      return (scope) => items.map((item) => item(scope));
    }
    if (token.kind === "op" && token.value === "{") {
      const entries: [Expr, Expr][] = [];
      while (peek() && !isOp("}")) {
        const key = primary();
        if (isOp(":")) i++;
        entries.push([key, ternary()]);
        if (isOp(",")) i++;
        else if (!isOp("}")) i++;
      }
      i++;
      return (scope) => Object.fromEntries(entries.map(([k, v]) => [textOf(k(scope)), v(scope)]));
    }
    if (token.kind === "name") {
      const name = token.value;
      if (name === "true" || name === "True") return () => true;
      if (name === "false" || name === "False") return () => false;
      if (name === "nil" || name === "none" || name === "None" || name === "null") return () => null;
      if (name === "empty" || name === "blank") return () => "";
      calleeName = name;
      return (scope) => scope.lookup(name);
    }
    return () => undefined;
  }

  const expr = ternary();
  return expr;
}

function loose(value: Value): Value {
  if (typeof value === "number") return String(value);
  if (value instanceof RubyFloat) return String(value.value);
  if (value === null) return undefined;
  return value;
}

function contains(haystack: Value, needle: Value): boolean {
  if (typeof haystack === "string") return haystack.includes(textOf(needle));
  if (Array.isArray(haystack)) return haystack.some((item) => loose(item) === loose(needle));
  if (haystack && typeof haystack === "object") return Object.prototype.hasOwnProperty.call(haystack, textOf(needle));
  return false;
}

export function isTruthy(value: Value): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}
