import type { components } from './schema';

export type ErrorBody = components['schemas']['ErrorBody'];
export type FieldError = components['schemas']['FieldError'];

/** A failed call: the server's error body (its `msg` already in the Workspace language), or a
 *  network failure (`code: "network"`, no server message). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorBody['code'] | 'network';
  readonly requestId: string | null;
  readonly fieldErrors: FieldError[];
  readonly details: Record<string, unknown> | null;

  constructor(status: number, body: Omit<Partial<ErrorBody>, 'code'> & { code: ErrorBody['code'] | 'network' }, fallback = '') {
    super(body.msg ?? fallback);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code;
    this.requestId = body.request_id ?? null;
    this.fieldErrors = body.errors ?? [];
    this.details = (body.details as Record<string, unknown> | undefined) ?? null;
  }

  /** The server's message for `field` (`base_url`, `config.timeout` …), if it named one. */
  fieldMessage(field: string): string | undefined {
    return this.fieldErrors.find((e) => e.field === field)?.message;
  }
}

/** Reads an error body that may not be one (a proxy's HTML page, an empty 502). */
export function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object' && 'code' in body && 'msg' in body) {
    return new ApiError(status, body as ErrorBody);
  }
  return new ApiError(status, { code: status >= 500 ? 'unavailable' : 'invalid_request' }, `HTTP ${status}`);
}
