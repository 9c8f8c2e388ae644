import type { ErrorResponse } from '../../shared/contract/common.ts';

/**
 * The one way the SPA talks to the API: JSON in and out, the bearer token from localStorage
 * (docs/spec.md §3: key auth_token), and failures as ApiError carrying the server's message.
 */

export const TOKEN_KEY = 'auth_token';
export const API_BASE: string = (import.meta.env.VITE_API_URL ?? '').replace(/\/+$/, '');

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** Lines of the source the problem is at (MJML, merge tags), when the server names them. */
    readonly problems?: ErrorResponse['problems'],
    /** Seconds to wait before asking again (the Retry-After of a 429 or 503), when given. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** Extra request headers (e.g. a public link's X-Viewer-Token). */
  headers?: Record<string, string>;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const res = await request(path, options);
  const text = await res.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!res.ok) {
    const body = data as Partial<ErrorResponse> | undefined;
    throw new ApiError(
      res.status,
      body?.error ?? 'Unknown error',
      body?.code,
      body?.problems,
      retryAfter(res),
    );
  }
  return data as T;
}

/** The Retry-After header in seconds (the API sends whole seconds), or undefined. */
function retryAfter(res: Response): number | undefined {
  const value = res.headers.get('Retry-After');
  return value && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/** A file the API answers with (e.g. a message/rfc822 download), as a Blob; failures as in api(). */
export async function apiBlob(path: string, options: Pick<RequestOptions, 'signal'> = {}): Promise<Blob> {
  return (await apiDownload(path, options)).blob;
}

/** A file from the API with the headers that describe it (the renderer's X-Render-*). */
export async function apiDownload(
  path: string,
  options: Pick<RequestOptions, 'signal'> = {},
): Promise<{ blob: Blob; headers: Headers }> {
  const res = await request(path, options, '*/*');
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as Partial<ErrorResponse> | undefined;
    throw new ApiError(res.status, body?.error ?? 'Unknown error', body?.code);
  }
  return { blob: await res.blob(), headers: res.headers };
}

async function request(
  path: string,
  options: RequestOptions,
  accept = 'application/json',
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers, Accept: accept };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'include',
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'Network error: check your connection and try again');
  }
  return res;
}

/** The message to show for any failure: the server's text, else "Unknown error" (docs/spec.md §8). */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError || err instanceof Error) return err.message || 'Unknown error';
  return 'Unknown error';
}
