import type { OpenApiMethod } from 'trpc-to-openapi';
import type { PixApiScope } from '../../contract/enums';
import type { PixApiProblemName } from '../domain/pix-api/problem';
import { pixApiProcedure } from '../trpc';

/** What sets one operation of the API Pix apart; the rest of its meta is the same for every /v2 operation. */
export interface V2Operation {
  summary: string;
  description?: string;
  errorResponses: Record<number, string>;
  /** The problem type of a refused request (`*OperacaoInvalida`, `*ConsultaInvalida`). */
  invalid: PixApiProblemName;
  /** The resource violacoes name their properties under (`cobv.valor.juros.modalidade`), when the body is one. */
  resource?: string;
  /** The status of a success, when not 200. */
  successStatus?: number;
}

/**
 * A procedure of the API Pix served over REST (`'PUT /v2/cob/{txid}'`): the bearer token's `scope`
 * checked (pixApiProcedure), the problem+json envelope, and the OpenAPI entry of /v2/openapi.json, tagged
 * with the path's resource (`cob`, `loc`, `pix`…, `sandbox` for /sandbox/…).
 */
export function v2Route(scope: PixApiScope, target: `${OpenApiMethod} /${string}`, op: V2Operation) {
  const [method, path] = target.split(' ') as [OpenApiMethod, `/${string}`];
  const tag = path.replace(/^\/v2\//, '/').split('/')[1];
  const { summary, description, errorResponses, invalid, resource, successStatus } = op;
  return pixApiProcedure(scope).meta({
    auth: 'bearer', envelope: 'pix-api', pixApi: resource === undefined ? { invalid } : { invalid, resource },
    ...(successStatus !== undefined ? { successStatus } : {}),
    openapi: { method, path, tags: [tag], summary, ...(description !== undefined ? { description } : {}), errorResponses },
  });
}
