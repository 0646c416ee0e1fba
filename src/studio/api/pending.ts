// Types of the preview endpoint fixed in the design, for as long as the generated document
// does not carry it yet.
// Shaped like openapi-typescript output so the same client and helpers serve both.
type ErrorJson = { 'application/json': { status: number; code: string; message: string; error: string; path: string; timestamp: string; details?: { field?: string; message: string }[] } };
type Err = { headers: Record<string, unknown>; content: ErrorJson };
type ProjectPath = { tenant: string; project: string };

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
}
