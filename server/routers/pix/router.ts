import { lookupPixKey } from '../../domain/pix/key-lookup';
import { railFor } from '../../domain/rails';
import { merchantProcedure, router } from '../../trpc';
import { pixKeyLookupInput, pixKeyLookupResponse } from './schemas';

export const pixRouter = router({
  lookupKey: merchantProcedure
    .meta({
      auth: 'bearer', envelope: 'payments',
      openapi: {
        method: 'GET', path: '/pix/keys', tags: ['pix'], summary: 'Look up a Pix key',
        description: 'Who holds the key and at which institution, as the Pix directory (DICT) answers the rail: the holder\'s name, the CPF/CNPJ with only its middle digits shown, the bank and its ISPB. Check it before requesting a withdrawal; a paid batch\'s receipt carries the same holder and bank. In the sandbox, EMAIL unknown@sandbox.test is not registered.',
        errorResponses: { 400: 'Malformed key (the rules of POST /withdraw/pix)', 401: 'Missing or invalid access token', 404: 'No such key in the Pix directory', 429: 'Rate limited', 503: 'No Pix rail configured, or the directory did not answer' },
      },
    })
    .input(pixKeyLookupInput)
    .output(pixKeyLookupResponse)
    .query(({ ctx, input }) => lookupPixKey(railFor(ctx.services.config), input, ctx.services.clock.now())),
});
