/** A minimal client for the running service's HTTP API, as a customer's script would call it (bearer token). */

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly bearer: string,
  ) {}

  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: this.bearer,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** The request, which must answer `expected`; otherwise throws with the answer, for the bench's failure report. */
  async expect<T = unknown>(expected: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request<T>(method, path, body);
    if (response.status !== expected) {
      throw new Error(
        `${method} ${path} answered ${response.status}, expected ${expected}: ${JSON.stringify(response.body)}`,
      );
    }
    return response.body;
  }
}
