/**
 * HTTP calls to api processes a test started itself (the cluster, the PostgreSQL-restart test): as the trader of
 * the tenant `slug()` holding `token()` (read at each call: tests set them in `beforeAll`).
 */
import { checkResponse } from './contract.js';

/** An api answer: status (0 when the request failed before any answer, `body` then says why) and the JSON body. */
export interface ProcessAnswer {
  status: number;
  body: any; // the api's JSON, read field by field by tests
}

/**
 * A `call(baseUrl, method, path, body?, headers?)` with `X-Tenant-Slug` and the bearer; JSON in and out. Each answer
 * is checked against the OpenAPI document (test/support/contract.ts); a request that got no answer (status 0) is not.
 * @throws ContractViolation when an answer is not what the document says.
 */
export function processCaller(slug: () => string, token: () => string | undefined) {
  return async (
    baseUrl: string,
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ProcessAnswer> => {
    let answer: ProcessAnswer & { contentType: string | null };
    try {
      const res = await fetch(`${baseUrl}${url}`, {
        method,
        headers: {
          ...headers,
          'x-tenant-slug': slug(),
          ...(token() && { authorization: `Bearer ${token()}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const contentType = res.headers.get('content-type');
      answer = { status: res.status, body: text ? JSON.parse(text) : undefined, contentType };
    } catch (err) {
      return { status: 0, body: String(err) };
    }
    await checkResponse({ method, path: url, ...answer });
    return { status: answer.status, body: answer.body };
  };
}
