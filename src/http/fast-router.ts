/**
 * openapi-backend 5.21 rebuilds its list of all operations several times per request (route matching, validation),
 * compiles a regular expression per path template on every match and on every parse, and copies each request through
 * lodash: measured at ~40 % of the API's CPU under load (bench/, GET /events). This keeps its routing and parsing
 * semantics for what the contract uses and does the per-template work once, at start-up.
 */
import type { OpenAPIBackend, Operation, ParsedRequest, Request } from "openapi-backend";

interface Template {
  operation: Operation;
  pattern: RegExp;
  /** Literal length of the template: the more literal, the more specific (openapi-backend's own ordering). */
  specificity: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function accelerateRouting(api: OpenAPIBackend): void {
  const router = api.router;
  const operations = router.getOperations();
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const exact = new Map<string, Operation[]>();
  const templates: Template[] = [];
  for (const operation of operations) {
    if (operation.path.includes("{")) {
      templates.push({
        operation,
        pattern: templatePattern(operation.path, "[^/]+"),
        specificity: operation.path.replace(/\{.*?\}/g, "").length,
      });
    } else {
      exact.set(operation.path, [...(exact.get(operation.path) ?? []), operation]);
    }
  }
  templates.sort((a, b) => b.specificity - a.specificity);

  router.getOperations = () => operations;
  router.getOperation = (operationId: string) => byId.get(operationId);
  router.matchOperation = ((request: Request, strict?: boolean) => {
    const normalized = router.normalizeRequest(request);
    const fail = (message: string) => {
      if (strict) throw new Error(message);
      return undefined;
    };
    // The API is served at the root (apiRoot "/"), so every path is under it.
    const path = router.normalizePath(normalized.path);
    const method = normalized.method;
    const exactMatch = exact.get(path)?.find((operation) => operation.method === method);
    if (exactMatch) return exactMatch;
    const candidates = templates.filter((template) => template.pattern.test(path));
    if (candidates.length === 0 && !exact.has(path)) return fail("404-notFound: no route matches request");
    const match = candidates.find((template) => template.operation.method === method);
    return match ? match.operation : fail("405-methodNotAllowed: this method is not registered for the route");
  }) as typeof router.matchOperation;
  router.parseRequest = parserFor(router, operations);
}

/**
 * openapi-backend's parseRequest for the parameters the contract has: path, header and plain (exploded, not JSON)
 * query parameters, and no cookie parameters (checked here, so a contract that adds another kind fails at start-up
 * rather than being parsed differently). A request that carries cookies, or a query string rather than a parsed query,
 * takes openapi-backend's own path.
 */
function parserFor(
  router: OpenAPIBackend["router"],
  operations: Operation[],
): OpenAPIBackend["router"]["parseRequest"] {
  for (const operation of operations) {
    for (const parameter of operation.parameters ?? []) {
      const plain =
        !("$ref" in parameter) &&
        (parameter.in === "path" ||
          parameter.in === "header" ||
          (parameter.in === "query" && !parameter.content && parameter.explode !== false));
      if (!plain) throw new Error(`${operation.operationId}: a parameter kind src/http/fast-router.ts does not parse`);
    }
  }
  const pathParameters = new Map<string, { pattern: RegExp; names: string[] }>();
  for (const operation of operations) {
    pathParameters.set(operation.path, {
      // openapi-backend's (bath's) pattern: a parameter may be empty here; validation judges it.
      pattern: templatePattern(operation.path, "([^/]*)"),
      names: [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!),
    });
  }
  const openapiBackendParse = router.parseRequest.bind(router);

  return ((req: Request, operation?: Operation): ParsedRequest => {
    const query = req.query;
    if (req.headers.cookie !== undefined || typeof query !== "object" || query === null) {
      return openapiBackendParse(req, operation);
    }
    let requestBody = req.body;
    if (req.body && typeof req.body !== "object") {
      try {
        requestBody = JSON.parse(String(req.body));
      } catch {
        // Left as it is: validation reports a malformed body.
      }
    }
    const headers: Record<string, string | string[]> = {};
    for (const name in req.headers) headers[name.toLowerCase()] = req.headers[name]!;
    const queryCopy: Record<string, string | string[]> = {};
    for (const name in query) {
      const value = query[name]!;
      queryCopy[name] = Array.isArray(value) ? [...value] : value;
    }
    const normalized = router.normalizeRequest(req);
    const params: Record<string, string> = {};
    const template = operation && pathParameters.get(operation.path);
    const match = template?.pattern.exec(router.normalizePath(normalized.path));
    if (template && match) template.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
    return { ...normalized, params, headers, query: queryCopy, cookies: {}, requestBody };
  }) as OpenAPIBackend["router"]["parseRequest"];
}

function templatePattern(template: string, parameterPattern: string): RegExp {
  return new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join(parameterPattern)}$`,
  );
}
