/**
 * The errors of the /v2 surface in the Banco Central's shape (docs/bcb-pix-api-2.9.0.yaml, "Tratamento
 * de erros"; DECISIONS "The Banco Central's API Pix"): RFC 7807 `application/problem+json` with the
 * yaml's `type` URIs, `title`, `status`, `detail`, `correlationId` (our request id) and `violacoes`.
 * Only the presenter renders these (server/http/presenter.ts, the branch of the one error path chosen
 * by a route's surface); domain code names a problem type on the DomainError it throws
 * (`extra.problem`), never builds a body. This module imports nothing of the server, so errors.ts can
 * name its types.
 */

export const PROBLEM_TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

/**
 * The error types the yaml lists for the general errors and the charge side (cob, cobv, lotecobv,
 * loc, payload locations, pix, devolução, webhook), with their status codes; titles as the yaml's
 * examples give them, else its "Significado" in short. Pix Automático's types are not served yet.
 */
export const PIX_API_PROBLEMS = {
  RequisicaoInvalida: { status: 400, title: 'Requisição inválida.', detail: 'Requisição inválida.' },
  AcessoNegado: { status: 403, title: 'Acesso Negado', detail: 'Requisição de participante autenticado que viola alguma regra de autorização.' },
  NaoEncontrado: { status: 404, title: 'Não Encontrado', detail: 'Entidade não encontrada.' },
  PermanentementeRemovido: { status: 410, title: 'Permanentemente Removido', detail: 'A entidade existia, mas foi permanentemente removida.' },
  ErroInternoDoServidor: { status: 500, title: 'Erro Interno do Servidor', detail: 'Condição inesperada ao processar requisição.' },
  ServicoIndisponivel: { status: 503, title: 'Serviço Indisponível', detail: 'Serviço não está disponível no momento. Serviço solicitado pode estar em manutenção ou fora da janela de funcionamento.' },
  IndisponibilidadePorTempoEsgotado: { status: 504, title: 'Indisponibilidade por Tempo Esgotado', detail: 'O serviço demorou além do esperado para retornar.' },
  CobPayloadNaoEncontrado: { status: 404, title: 'Cobrança não encontrada.', detail: 'A cobrança em questão não foi encontrada para a location requisitada.' },
  CobPayloadOperacaoInvalida: { status: 400, title: 'Operação inválida.', detail: 'A cobrança existe, mas a requisição é inválida.' },
  CobNaoEncontrado: { status: 404, title: 'Cobrança não encontrada.', detail: 'Cobrança não encontrada para o txid informado.' },
  CobOperacaoInvalida: { status: 400, title: 'Cobrança inválida.', detail: 'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o _schema_ ou está semanticamente errada.' },
  CobConsultaInvalida: { status: 400, title: 'Consulta inválida.', detail: 'Os parâmetros de consulta à lista de cobranças para pagamento imediato não respeitam o _schema_ ou não fazem sentido semanticamente.' },
  CobVNaoEncontrada: { status: 404, title: 'Cobrança não encontrada.', detail: 'Cobrança com vencimento não encontrada para o txid informado.' },
  CobVOperacaoInvalida: { status: 400, title: 'Cobrança inválida.', detail: 'A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o _schema_ ou está semanticamente errada.' },
  CobVConsultaInvalida: { status: 400, title: 'Consulta inválida.', detail: 'Os parâmetros de consulta à lista de cobranças com vencimento não respeitam o schema ou não fazem sentido semanticamente.' },
  LoteCobVNaoEncontrado: { status: 404, title: 'Lote não encontrado.', detail: 'Lote não encontrado para o id informado.' },
  LoteCobVOperacaoInvalida: { status: 400, title: 'Lote de cobranças inválido.', detail: 'A requisição que busca alterar ou criar um lote de cobranças com vencimento não respeita o _schema_ ou está semanticamente errada.' },
  LoteCobVConsultaInvalida: { status: 400, title: 'Consulta inválida.', detail: 'Os parâmetros de consulta à lista de lotes de cobrança com vencimento não respeitam o _schema_ ou não fazem sentido semanticamente.' },
  PayloadLocationNaoEncontrado: { status: 404, title: 'Location não encontrada.', detail: 'Location não encontrada para o id informado.' },
  PayloadLocationOperacaoInvalida: { status: 400, title: 'PayloadLocation inválido.', detail: 'A presente requisição busca criar uma location sem respeitar o _schema_ estabelecido.' },
  PayloadLocationConsultaInvalida: { status: 400, title: 'Consulta inválida.', detail: 'Os parâmetros de consulta à lista de locations não respeitam o _schema_ ou não fazem sentido semanticamente.' },
  PixNaoEncontrado: { status: 404, title: 'Pix não encontrado.', detail: 'Pix não encontrado para o e2eid informado.' },
  PixDevolucaoNaoEncontrada: { status: 404, title: 'Devolução não encontrada.', detail: 'Devolução não encontrada para o e2eid informado.' },
  PixConsultaInvalida: { status: 400, title: 'Consulta inválida.', detail: 'Os parâmetros de consulta à lista de pix recebidos não respeitam o schema ou não fazem sentido semanticamente.' },
  PixDevolucaoInvalida: { status: 400, title: 'Devolução inválida.', detail: 'A presente requisição de devolução não respeita o _schema_ ou não faz sentido semanticamente.' },
  WebhookOperacaoInvalida: { status: 400, title: 'Webhook inválido.', detail: 'A presente requisição busca criar um webhook sem respeitar o _schema_ ou, ainda, com sentido semanticamente inválido.' },
  WebhookNaoEncontrado: { status: 404, title: 'Webhook não encontrado.', detail: 'O webhook denotado por {chave} não encontra-se estabelecido.' },
  WebhookConsultaInvalida: { status: 400, title: 'Consulta inválida.', detail: 'Os parâmetros de consulta à lista de webhooks ativados não respeitam o schema ou não fazem sentido semanticamente.' },
} as const satisfies Record<string, { status: number; title: string; detail: string }>;

export type PixApiProblemName = keyof typeof PIX_API_PROBLEMS;

export interface Violacao { razao: string; propriedade: string; valor?: string }

export interface Problema {
  type: string;
  title: string;
  status: number;
  detail?: string;
  correlationId?: string;
  violacoes?: Violacao[];
}

/**
 * What a /v2 route answers its failures with, declared in its meta (`pixApi`): the type of a request
 * the operation refuses (`CobVOperacaoInvalida`, `PixConsultaInvalida`…) and the resource its body
 * properties are named under (`cobv` → `cobv.valor.juros.modalidade`); none for a query's parameters
 * (`paginacao.paginaAtual`, as the yaml names them).
 */
export interface PixApiRoute {
  invalid: PixApiProblemName;
  resource?: string;
}

/** Where nothing more specific is known: an unknown /v2 path, a body refused before any route. */
export const PIX_API_FALLBACK: PixApiRoute = { invalid: 'RequisicaoInvalida' };

/** A field problem as server/zod-issues.ts gives it (`path` dotted). */
export interface FieldProblem { path: string; message: string }

/** The failure to render, as server/errors.ts's DomainError carries it (structurally: no import). */
export interface Failure {
  code: string;
  status: number;
  detail: string;
  extra: { issues?: FieldProblem[]; problem?: PixApiProblemName };
}

/** Reads the value at a dotted path of the request's input (`valor.juros.modalidade`, `infoAdicionais.0.nome`). */
function valueAt(input: unknown, path: string): unknown {
  if (path === '') return undefined;
  // a query parameter whose name has a dot (`paginacao.itensPorPagina`) is one key of the input
  if (input !== null && typeof input === 'object' && Object.hasOwn(input, path)) return (input as Record<string, unknown>)[path];
  let node: unknown = input;
  for (const seg of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

/** The offending value as the yaml's `valor` (a string): strings as sent, anything else as its JSON. */
function asValor(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const RAZAO: Record<string, string> = {
  'is required': 'campo obrigatório ausente',
  'unknown field': 'campo não previsto no schema',
};

/**
 * Field problems as the yaml's `violacoes`: `propriedade` is the dotted path prefixed by the resource
 * (`cob.calendario.expiracao`), `valor` the value the request sent there, read from its input.
 */
export function violacoes(issues: readonly FieldProblem[], input: unknown, resource?: string): Violacao[] {
  return issues.map((i) => {
    const propriedade = [resource, i.path].filter((s) => s).join('.') || (resource ?? '(requisição)');
    const valor = asValor(valueAt(input, i.path));
    return { razao: RAZAO[i.message] ?? i.message, propriedade, ...(valor === undefined ? {} : { valor }) };
  });
}

/**
 * The problem type of a failure on a /v2 route. A type the domain named wins; otherwise: a request
 * the operation refuses (malformed, invalid, conflicting, or in a state that forbids it) is the
 * route's own invalid type, 400, as the yaml answers "não respeita o _schema_ ou está semanticamente
 * errada"; 403, 404, 500 and 503 are the yaml's general types. Statuses the yaml has no type for (401
 * before a token is known, 405, 413, 415, 429) keep their status and RFC 7807's `about:blank`.
 */
export function problemTypeOf(f: Failure, route: PixApiRoute): PixApiProblemName | null {
  if (f.extra.problem) return f.extra.problem;
  switch (f.code) {
    case 'VALIDATION': case 'MALFORMED_JSON': case 'CONFLICT': case 'DUPLICATE_EXTERNAL_REF': case 'IDEMPOTENCY_IN_PROGRESS':
    case 'UNPROCESSABLE': case 'INSUFFICIENT_FUNDS': case 'IDEMPOTENCY_KEY_REUSED': case 'INVALID_STATE':
      return route.invalid;
    case 'FORBIDDEN': return 'AcessoNegado';
    case 'NOT_FOUND': return 'NaoEncontrado';
    case 'INTERNAL': return 'ErroInternoDoServidor';
    case 'RAIL_UNAVAILABLE': case 'DATABASE_UNAVAILABLE': case 'TOO_MANY_CONNECTIONS': return 'ServicoIndisponivel';
    default: return null;
  }
}

const REASON: Record<number, string> = {
  401: 'Unauthorized', 405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests',
};

/** The RFC 7807 body of a failure on a /v2 route. `input` is the request's input, for `violacoes[].valor`. */
export function problemBody(f: Failure, route: PixApiRoute, opts: { correlationId?: string; input?: unknown } = {}): Problema {
  const name = problemTypeOf(f, route);
  const correlation = opts.correlationId ? { correlationId: opts.correlationId } : {};
  if (name === null) {
    return { type: 'about:blank', title: REASON[f.status] ?? 'Error', status: f.status, detail: f.detail, ...correlation };
  }
  const known = PIX_API_PROBLEMS[name];
  // an internal error says nothing of its cause; every other detail is the one the domain wrote
  const list = f.extra.issues?.length ? violacoes(f.extra.issues, opts.input, route.resource) : undefined;
  // field problems go in violacoes and the detail is the type's own; an internal error says nothing of its cause
  const generic = list !== undefined || name === 'ErroInternoDoServidor' || name === 'ServicoIndisponivel' || !f.detail;
  const detail = generic ? known.detail : f.detail;
  return {
    type: `${PROBLEM_TYPE_BASE}${name}`,
    title: known.title,
    status: known.status,
    detail,
    ...correlation,
    ...(list ? { violacoes: list } : {}),
  };
}
