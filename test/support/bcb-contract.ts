import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/**
 * The Banco Central's API Pix (release 2.9.0) as a test oracle: its yaml, compiled with ajv, decides
 * whether a body the /v2 surface answers is what the standard allows for that operation and status.
 * The yaml is the contract (DECISIONS "The Banco Central's API Pix"), so it is read as published, with
 * only the readings listed in `readYaml` that make its JSON Schema mean what its text and examples say.
 */

/** The yaml, vendored unchanged (a comment header aside) so a fresh clone tests without ../shared. */
export const BCB_YAML_PATH = fileURLToPath(new URL('../../docs/bcb-pix-api-2.9.0.yaml', import.meta.url));

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * The yaml as ajv should read it. Each change is a reading of what the yaml means where its JSON Schema
 * contradicts itself (a required property it declares nowhere) or its text, never a loosening of a
 * constraint it states consistently; each one checks that the defect it reads is still there, so a new
 * release of the yaml fails here instead of being read wrongly.
 * - patterns written as JavaScript regex literals (`"/^\d{11}$/"`, DECISIONS) lose their slashes;
 * - a `oneOf` whose branches are objects that each name one property and require none (`retirada`:
 *   `saque` | `troco`; `desconto`: `descontoDataFixa` | `valorPerc`) requires that property, as the
 *   text says ("quando há saque não há troco e vice-versa"): as written every object matched every
 *   branch and `oneOf` refused them all, the yaml's own examples included;
 * - the rest, one by one in `READINGS`.
 */
export function readYaml(doc: Json): Json {
  const seen = new WeakSet<object>();
  const walk = (node: Json): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) { node.forEach(walk); return; }
    if (typeof node.pattern === 'string') {
      const literal = /^\/(.*)\/$/.exec(node.pattern);
      if (literal) node.pattern = literal[1];
    }
    if (Array.isArray(node.oneOf)) {
      for (const branch of node.oneOf) {
        if (branch && branch.type === 'object' && !branch.required && branch.properties) {
          const names = Object.keys(branch.properties);
          if (names.length === 1) branch.required = names;
        }
      }
    }
    for (const v of Object.values(node)) walk(v);
  };
  walk(doc);
  const schemas = doc.components.schemas;
  for (const r of READINGS) r.apply(schemas);
  return doc;
}

/** Replaces one entry of a `required` list, after checking it is there. */
function requireInstead(required: string[] | undefined, from: string, to: string | null, where: string): void {
  const i = required?.indexOf(from) ?? -1;
  if (i < 0) throw new Error(`yaml reading out of date: ${where} no longer requires ${from}`);
  if (to === null) required!.splice(i, 1); else required![i] = to;
}

/** The self-contradictions of the yaml (2.9.0) and how they are read. */
export const READINGS: { what: string; apply(schemas: Json): void }[] = [
  {
    what: 'PixConsultados requires `cobs`, which it does not declare: its list is `pix` (every example)',
    apply: (s) => requireInstead(s.PixConsultados.required, 'cobs', 'pix', 'PixConsultados'),
  },
  {
    what: 'CobsConsultadas and CobsVConsultadas require `idCob` of each charge, a field declared nowhere',
    apply: (s) => {
      requireInstead(s.CobsConsultadas.properties.cobs.items.allOf[1].required, 'idCob', null, 'CobsConsultadas');
      requireInstead(s.CobsVConsultadas.properties.cobs.items.allOf[1].required, 'idCob', null, 'CobsVConsultadas');
    },
  },
  {
    what: 'the `loc` of CobGerada and CobVGerada requires `txid`, which PayloadLocation does not declare (the charge carries it)',
    apply: (s) => {
      requireInstead(s.CobGerada.allOf[2].properties.loc.required, 'txid', null, 'CobGerada.loc');
      requireInstead(s.CobVGerada.allOf[3].properties.loc.required, 'txid', null, 'CobVGerada.loc');
    },
  },
  {
    what: 'DadosRecebedor requires logradouro, cidade, uf and cep of the charge itself; its `recebedor` requires them again, where they are declared',
    apply: (s) => {
      if (s.DadosRecebedor.required?.join() !== 'logradouro,cidade,uf,cep') throw new Error('yaml reading out of date: DadosRecebedor.required');
      delete s.DadosRecebedor.required;
    },
  },
  {
    what: 'PayloadLocationCob (a request\'s `loc`) requires `tipoCob`, which it does not declare: the path says the type',
    apply: (s) => requireInstead(s.PayloadLocationCob.required, 'tipoCob', null, 'PayloadLocationCob'),
  },
  {
    what: 'WebhookCompleto requires `cnpj` ("Filtro pelo CNPJ do devedor", a list filter pasted here); the webhook is per key: `chave`, as its example and path say',
    apply: (s) => {
      requireInstead(s.WebhookCompleto.required, 'cnpj', 'chave', 'WebhookCompleto');
      delete s.WebhookCompleto.properties.cnpj;
      s.WebhookCompleto.properties.chave = { type: 'string', title: 'Chave DICT do recebedor', maxLength: 77 };
    },
  },
];

let loaded: { doc: Json; ajv: Ajv } | null = null;

/** The yaml, parsed and read (readYaml), and an ajv that knows it as `bcb`. */
export function bcbYaml(): { doc: Json; ajv: Ajv } {
  if (loaded) return loaded;
  const doc = readYaml(parse(readFileSync(BCB_YAML_PATH, 'utf8')));
  // strict off: the yaml carries OpenAPI keywords (example, x-displayName) that are not JSON Schema
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  // a payload location is written without its scheme, as the BR Code carries it (field 26, sub-field
  // 25) and as every example of the yaml shows it (`pix.example.com/qr/v2/…`); other URIs keep RFC 3986
  const uri = /^[a-z][a-z0-9+.-]*:[^\s]*$/i;
  const schemeless = /^[a-z0-9.-]+(:\d+)?\/[^\s]*$/i;
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => uri.test(s) || schemeless.test(s) });
  ajv.addSchema({ $id: 'bcb', components: doc.components });
  loaded = { doc, ajv };
  return loaded;
}

/** Rewrites the yaml's "#/components/…" references to the copy registered under `bcb`. */
function rebase(node: Json): Json {
  if (Array.isArray(node)) return node.map(rebase);
  if (node && typeof node === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `bcb${v}` : rebase(v);
    return out;
  }
  return node;
}

/** Follows one "#/…" reference of the yaml (responses, request bodies, examples), or returns the node. */
function deref(node: Json): Json {
  let n = node;
  while (n && typeof n.$ref === 'string' && n.$ref.startsWith('#/')) {
    n = n.$ref.slice(2).split('/').reduce((o: Json, seg: string) => o?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')], bcbYaml().doc);
  }
  return n;
}

const validators = new Map<string, ValidateFunction>();

function compiled(key: string, schema: Json): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    v = bcbYaml().ajv.compile(rebase(schema));
    validators.set(key, v);
  }
  return v;
}

/** The yaml's path of a template, with or without our `/v2` base path. */
function yamlPath(pathTemplate: string): string {
  return pathTemplate.replace(/^\/v2(?=\/)/, '');
}

function operation(method: string, pathTemplate: string): Json {
  const item = bcbYaml().doc.paths[yamlPath(pathTemplate)];
  const op = item?.[method.toLowerCase()];
  if (!op) throw new Error(`the yaml has no operation ${method.toUpperCase()} ${pathTemplate}`);
  return op;
}

/** The media type and schema the yaml gives for one answer, or null when that answer has no body. */
export function bcbResponseSchema(method: string, pathTemplate: string, status: number): { mediaType: string; schema: Json } | null {
  const op = operation(method, pathTemplate);
  const response = deref(op.responses[String(status)]);
  if (!response) {
    throw new Error(`the yaml does not allow ${status} for ${method.toUpperCase()} ${pathTemplate} (it allows ${Object.keys(op.responses).join(', ')})`);
  }
  const content = response.content as Record<string, { schema: Json }> | undefined;
  if (!content) return null;
  const [mediaType, media] = Object.entries(content)[0];
  return { mediaType, schema: media.schema };
}

/** The schema of an operation's request body (the yaml gives one, JSON, per operation that takes one). */
export function bcbRequestSchema(method: string, pathTemplate: string): Json {
  const body = deref(operation(method, pathTemplate).requestBody);
  if (!body?.content) throw new Error(`the yaml gives ${method.toUpperCase()} ${pathTemplate} no request body`);
  return (Object.values(body.content)[0] as { schema: Json }).schema;
}

function explain(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

export interface BcbCheck { ok: boolean; errors: string }

/** Whether `body` is what the yaml allows an operation to answer with `status`. */
export function checkBcbResponse(method: string, pathTemplate: string, status: number, body: unknown): BcbCheck {
  const found = bcbResponseSchema(method, pathTemplate, status);
  if (!found) {
    const empty = body === undefined || body === null || body === '';
    return { ok: empty, errors: empty ? '' : `the yaml gives ${status} of ${method.toUpperCase()} ${pathTemplate} no body` };
  }
  const v = compiled(`res ${method.toUpperCase()} ${yamlPath(pathTemplate)} ${status}`, found.schema);
  const ok = v(body);
  return { ok, errors: ok ? '' : explain(v.errors) };
}

/**
 * Fails (throws) unless `body` is what the yaml allows `method pathTemplate` to answer with `status`.
 * `pathTemplate` is the yaml's (`/cob/{txid}`), with or without `/v2`. For the payload locations
 * (`application/jose`), pass the JWS's decoded payload.
 */
export function expectBcbResponse(method: string, pathTemplate: string, status: number, body: unknown): void {
  const r = checkBcbResponse(method, pathTemplate, status, body);
  if (!r.ok) throw new Error(`${method.toUpperCase()} ${pathTemplate} ${status}: the body is not the yaml's: ${r.errors}\n${JSON.stringify(body)}`);
}

/** Whether `body` is a request body the yaml allows for that operation. */
export function checkBcbRequest(method: string, pathTemplate: string, body: unknown): BcbCheck {
  const v = compiled(`req ${method.toUpperCase()} ${yamlPath(pathTemplate)}`, bcbRequestSchema(method, pathTemplate));
  const ok = v(body);
  return { ok, errors: ok ? '' : explain(v.errors) };
}

/** Whether `value` matches one of the yaml's named schemas (`components.schemas.<name>`). */
export function checkBcbSchema(name: string, value: unknown): BcbCheck {
  if (!bcbYaml().doc.components.schemas[name]) throw new Error(`the yaml has no schema ${name}`);
  const v = compiled(`schema ${name}`, { $ref: `#/components/schemas/${name}` });
  const ok = v(value);
  return { ok, errors: ok ? '' : explain(v.errors) };
}

export interface BcbExample {
  method: HttpMethod;
  /** The yaml's path template. */
  path: string;
  /** 'request', or the status of the answer it illustrates. */
  use: 'request' | number;
  /** Its name under components.examples (or the inline key). */
  name: string;
  value: unknown;
}

/**
 * An example's value with the yaml's inclusions resolved: list examples write an item as
 * `{allOf: [{$ref: "#/components/examples/<name>/value"}]}`, meaning that example's value.
 */
function exampleValue(node: Json): Json {
  if (Array.isArray(node)) return node.map(exampleValue);
  if (!node || typeof node !== 'object') return node;
  const keys = Object.keys(node);
  if (keys.length === 1 && Array.isArray(node.allOf) && node.allOf.every((x: Json) => typeof x?.$ref === 'string')) {
    return Object.assign({}, ...node.allOf.map((x: Json) => {
      const target = deref(x);
      return exampleValue(target && 'summary' in target && 'value' in target ? target.value : target);
    }));
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, exampleValue(v)]));
}

/** Every example the yaml attaches to a request body or an answer of the given paths. */
export function bcbExamples(paths: readonly string[]): BcbExample[] {
  const out: BcbExample[] = [];
  const collect = (method: HttpMethod, path: string, use: BcbExample['use'], content: Json) => {
    for (const media of Object.values<Json>(content ?? {})) {
      for (const [key, ex] of Object.entries<Json>(media.examples ?? {})) {
        const name = typeof ex.$ref === 'string' ? ex.$ref.split('/').pop() : key;
        out.push({ method, path, use, name, value: exampleValue(deref(ex).value) });
      }
    }
  };
  for (const path of paths) {
    const item = bcbYaml().doc.paths[path];
    if (!item) throw new Error(`the yaml has no path ${path}`);
    for (const m of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const op = item[m];
      if (!op) continue;
      const method = m.toUpperCase() as HttpMethod;
      if (op.requestBody) collect(method, path, 'request', deref(op.requestBody).content);
      for (const [status, res] of Object.entries<Json>(op.responses ?? {})) collect(method, path, Number(status), deref(res).content);
    }
  }
  return out;
}

/** The paths of the charge side (issue 26 item 1), as the yaml writes them. */
export const BCB_CHARGE_PATHS = [
  '/cob', '/cob/{txid}', '/cobv/{txid}', '/cobv', '/lotecobv/{id}', '/lotecobv', '/loc', '/loc/{id}',
  '/loc/{id}/txid', '/pix', '/pix/{e2eid}', '/pix/{e2eid}/devolucao/{id}', '/webhook/{chave}', '/webhook',
  '/{pixUrlAccessToken}', '/cobv/{pixUrlAccessToken}',
] as const;
