/**
 * What an answer must be, by the document: a status the operation lists, a body of that status's
 * schema (the success model, or the error object with one of that status's codes), the request ID
 * of the header in the body, and the media type the document names.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ApiResponse } from '../harness.js';
import type { Schema } from './schema-arbitrary.js';

export interface DocOperation {
  id: string;
  method: string;
  path: string;
  role: 'public' | 'agent' | 'admin';
  parameters: { name: string; in: 'path' | 'query'; required?: boolean; schema: Schema }[];
  jsonBody?: Schema;
  bodyRequired: boolean;
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  /** The codes behind each error status, from the response descriptions the document writes. */
  codes: Map<number, Set<string>>;
}

type OpenApi = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
};

export function operationsOf(document: OpenApi): DocOperation[] {
  const operations: DocOperation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as {
        operationId: string;
        security?: Record<string, unknown>[];
        parameters?: DocOperation['parameters'];
        requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
        responses: DocOperation['responses'];
      };
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const codes = new Map<number, Set<string>>();
      for (const [status, response] of Object.entries(op.responses)) {
        const listed = /^Error: (.*)\.$/.exec(response.description)?.[1];
        if (listed) codes.set(Number(status), new Set(listed.split(', ')));
      }
      operations.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        role: scheme === 'agentKey' ? 'agent' : scheme === 'adminSession' ? 'admin' : 'public',
        parameters: op.parameters ?? [],
        jsonBody: op.requestBody?.content['application/json']?.schema,
        bodyRequired: op.requestBody?.required ?? false,
        responses: op.responses,
        codes,
      });
    }
  }
  return operations;
}

export class Oracle {
  private readonly ajv: Ajv2020;
  private readonly compiled = new WeakMap<object, ReturnType<Ajv2020['compile']>>();

  constructor(document: OpenApi) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: DOC, components: rebase(document.components) });
  }

  private validator(schema: Schema) {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema));
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  /** Whether `value` fits `schema` (for the near-valid generator: a mutation must be refused). */
  accepts(schema: Schema, value: unknown): boolean {
    return this.validator(schema)(value) as boolean;
  }

  /** Every way the answer disagrees with the document; empty when it agrees. */
  check(op: DocOperation, res: ApiResponse): string[] {
    const problems: string[] = [];
    const documented = op.responses[String(res.status)];
    if (!documented) return [`status ${res.status} is not documented (${Object.keys(op.responses).join(', ')})`];
    if (res.status >= 500 && res.status !== 503) problems.push(`server error ${res.status}`);
    const contentType = String(res.headers['content-type'] ?? '');
    const mediaTypes = Object.keys(documented.content ?? {});
    const json = mediaTypes.includes('application/json');
    if (json) {
      if (!contentType.startsWith('application/json')) problems.push(`content-type ${contentType}, documented JSON`);
      const schema = documented.content?.['application/json']?.schema as Schema;
      const validate = this.validator(schema);
      if (!validate(res.body)) {
        problems.push(`body does not fit the documented schema: ${this.ajv.errorsText(validate.errors)}`);
      }
    } else if (!mediaTypes.some((type) => type === '*/*' || contentType.startsWith(type))) {
      problems.push(`content-type ${contentType}, documented ${mediaTypes.join(', ')}`);
    }
    if (res.status >= 400) {
      const code = res.body?.error?.code as string | undefined;
      if (!op.codes.get(res.status)?.has(code ?? '')) {
        problems.push(`error code ${code} is not documented for status ${res.status}`);
      }
      if (res.body?.request_id !== res.headers['x-request-id']) problems.push('request_id differs from X-Request-Id');
    }
    return problems;
  }
}

const DOC = 'openapi';

/** The document's `#/components/...` references, pointed at the copy of it registered in Ajv. */
function rebase<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC}#/components/`)) as T;
}
