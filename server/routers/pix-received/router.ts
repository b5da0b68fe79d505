import { getDevolucao, requestDevolucao } from '../../domain/pix-api/devolucoes';
import { getPix, listPix, sandboxPayCharge } from '../../domain/pix-api/received';
import { router } from '../../trpc';
import { v2Route } from '../pix-common';
import { devolucaoInput, devolucaoKeyInput, devolucaoView, pixInput, pixList, pixListInput, pixView, sandboxPixPayInput } from './schemas';

const common = { 401: 'Missing or invalid API Pix token', 403: 'The token lacks the scope (AcessoNegado)', 429: 'Rate limited' };

/** The Pix received (/v2/pix), their devoluções, and the sandbox's payer (POST /sandbox/pix/pay). */
export const pixReceivedRouter = router({
  sandboxPay: v2Route('pix.write', 'POST /sandbox/pix/pay', {
    invalid: 'CobOperacaoInvalida', summary: 'Pay a cob or cobv as a payer would',
    description: 'Pays the account\'s charge `txid` on `date` (São Paulo, YYYY-MM-DD; today when absent; a cob only today): '
      + 'a cob must be ATIVA and not expired; a cobv is paid the amount due that day (discount, fine, interest), between its '
      + 'creation and the end of its validity. Credits the balance through an APPROVED PIX transaction and answers the Pix '
      + 'received. A charge is paid once: concurrent or repeated pays credit once; every pay after the first is 400 '
      + '(CobOperacaoInvalida / CobVOperacaoInvalida, the charge is CONCLUIDA) and changes nothing. 404 when the sandbox is off.',
    errorResponses: { ...common, 400: 'Not payable that day, already paid, or invalid input (nothing changed)', 404: 'No such charge of this account, or the sandbox is off' },
  })
    .input(sandboxPixPayInput)
    .output(pixView)
    .mutation(({ ctx, input }) => sandboxPayCharge(ctx.services, ctx.auth.accountId, input)),

  list: v2Route('pix.read', 'GET /v2/pix', {
    invalid: 'PixConsultaInvalida', summary: 'Pix received in a period',
    description: 'Oldest first between inicio and fim (inclusive), filtered by txid, txIdPresente, devolucaoPresente, cpf or cnpj of the payer.',
    errorResponses: { ...common, 400: 'Invalid query (PixConsultaInvalida)' },
  })
    .input(pixListInput)
    .output(pixList)
    .query(({ ctx, input }) => listPix(ctx.services, ctx.auth.accountId, input)),

  get: v2Route('pix.read', 'GET /v2/pix/{e2eid}', {
    invalid: 'PixConsultaInvalida', summary: 'A Pix received, with its devoluções',
    errorResponses: { ...common, 400: 'Malformed e2eid', 404: 'No such Pix of this account (PixNaoEncontrado)' },
  })
    .input(pixInput)
    .output(pixView)
    .query(({ ctx, input }) => getPix(ctx.services, ctx.auth.accountId, input.e2eid)),

  requestDevolucao: v2Route('pix.write', 'PUT /v2/pix/{e2eid}/devolucao/{id}', {
    invalid: 'PixDevolucaoInvalida', successStatus: 201, summary: 'Return part or all of a Pix received',
    description: 'A refund of the Pix\'s transaction (the same machinery as POST /transaction/{id}/refund): EM_PROCESSAMENTO, then '
      + 'DEVOLVIDO or NAO_REALIZADO; rtrId is the return\'s D… end-to-end id. natureza ORIGINAL only (RETIRADA is not offered). '
      + 'The devoluções never add up to more than the Pix. The same id with the same body answers the devolução as it stands; with another body, 400.',
    errorResponses: { ...common, 400: 'Invalid, more than is left, balance short, or the id reused with another body (PixDevolucaoInvalida)', 404: 'No such Pix of this account' },
  })
    .input(devolucaoInput)
    .output(devolucaoView)
    .mutation(({ ctx, input }) => requestDevolucao(ctx.services, ctx.auth.accountId, input)),

  getDevolucao: v2Route('pix.read', 'GET /v2/pix/{e2eid}/devolucao/{id}', {
    invalid: 'PixDevolucaoInvalida', summary: 'A devolução',
    errorResponses: { ...common, 400: 'Malformed e2eid or id', 404: 'No such devolução of this account (PixDevolucaoNaoEncontrada)' },
  })
    .input(devolucaoKeyInput)
    .output(devolucaoView)
    .query(({ ctx, input }) => getDevolucao(ctx.services, ctx.auth.accountId, input.e2eid, input.id)),
});
