// Types of the Studio endpoints fixed in the design (preview, ticket history, timeline, input,
// repository validate) for as long as the generated document does not carry them yet.
// Shaped like openapi-typescript output so the same client and helpers serve both.
import type { paths } from './schema';

type StatusGet = paths['/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/status']['get'];
type Status = StatusGet['responses'][200]['content']['application/json'];
type ErrorJson = { 'application/json': { status: number; code: string; message: string; error: string; path: string; timestamp: string; details?: { field?: string; message: string }[] } };
type Err = { headers: Record<string, unknown>; content: ErrorJson };
type ProjectPath = { tenant: string; project: string };
type TicketPath = ProjectPath & { ticket: string };

export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface PendingPaths {
  '/rest/tenants/{tenant}/projects/{project}/preview': {
    post: {
      parameters: { path: ProjectPath };
      requestBody: {
        content: {
          'application/json': {
            template?: string;
            documentTemplate?: string;
            data?: string;
            dataType?: 'xml' | 'json';
            resources?: Record<string, string>;
            format?: 'svg' | 'png';
            resolution?: number;
          };
        };
      };
      responses: {
        200: { headers: Record<string, unknown>; content: { 'application/json': { pages: { index: number; width: number; height: number; svg?: string; png?: string; text: string }[]; compileMs: number } } };
        422: { headers: Record<string, unknown>; content: { 'application/json': ErrorJson['application/json'] & { diagnostics?: Diagnostic[] } } };
        400: Err;
        401: Err;
        403: Err;
        413: Err;
        504: Err;
      };
    };
  };
  '/rest/tenants/{tenant}/projects/{project}/ticket-history': {
    get: {
      parameters: { path: ProjectPath; query?: { status?: string; step?: string; foreignKey?: string; limit?: number; cursor?: string } };
      responses: {
        200: { headers: Record<string, unknown>; content: { 'application/json': { tickets: (Status & { created: string; updated: string })[]; nextCursor: string | null } } };
        401: Err;
        403: Err;
        404: Err;
      };
    };
  };
  '/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/timeline': {
    get: {
      parameters: { path: TicketPath };
      responses: {
        200: {
          headers: Record<string, unknown>;
          content: {
            'application/json': {
              steps: { step: string; attempt: number; outcome: 'succeeded' | 'failed' | 'redelivered' | 'running'; startedAt: string; endedAt: string | null; durationMs: number | null; errorCode: string | null }[];
            };
          };
        };
        401: Err;
        403: Err;
        404: Err;
      };
    };
  };
  '/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/input': {
    get: {
      parameters: { path: TicketPath };
      responses: { 200: { headers: Record<string, unknown>; content: { '*/*': string } }; 401: Err; 403: Err; 404: Err };
    };
  };
  '/rest/repository/validate/{*}': {
    post: {
      parameters: { path: { '*': string } };
      requestBody: { content: { '*/*': string } };
      responses: { 200: { headers: Record<string, unknown>; content: { 'application/json': { valid: true } } }; 400: Err; 401: Err; 403: Err; 404: Err };
    };
  };
}
