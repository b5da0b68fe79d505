import { addPixKey, listPixKeys, removePixKey } from '../../domain/pix-api/keys';
import { merchantProcedure, router } from '../../trpc';
import { addPixKeyInput, pixKeyList, pixKeyView, removePixKeyInput, removePixKeyResponse } from './schemas';

/** The account's receiving Pix keys (the `chave` of its API Pix charges): tRPC only, for the dashboard and TypeScript services. */
export const pixKeysRouter = router({
  list: merchantProcedure.output(pixKeyList).query(({ ctx }) => listPixKeys(ctx.services, ctx.auth.accountId)),
  add: merchantProcedure.input(addPixKeyInput).output(pixKeyView).mutation(({ ctx, input }) => addPixKey(ctx.services, ctx.auth.accountId, input)),
  remove: merchantProcedure.input(removePixKeyInput).output(removePixKeyResponse).mutation(({ ctx, input }) => removePixKey(ctx.services, ctx.auth.accountId, input.id)),
});
