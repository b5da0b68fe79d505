/**
 * The words of the reviewed payout and of failed batches, in both languages of the dashboard. Kept
 * apart, shaped like a catalog namespace, so they move as they are into the i18n catalogs
 * (messages/<locale>/payout.json) once those exist; until then the dashboard speaks English.
 */
export const PAYOUT_COPY = {
  en: {
    review: 'Review',
    reviewing: 'Looking the key up…',
    reviewTitle: 'Check who receives it',
    reviewLead: 'The Pix directory says this key belongs to:',
    holder: 'Holder',
    document: 'CPF/CNPJ',
    bank: 'Bank',
    ispb: 'ISPB',
    amount: 'Amount',
    key: 'Pix key',
    batches: 'Sent as {count} Pix payments of at most {max} each.',
    documentMismatch: 'The CPF/CNPJ you typed ({typed}) does not match the key holder\'s. Check the key before sending.',
    confirm: 'Confirm and send',
    sending: 'Sending…',
    edit: 'Change details',
    keyNotFound: 'No Pix key like this is registered. Check the key and its type.',
    lookupUnavailable: 'The Pix directory did not answer; nothing was sent. Try again.',
    batchAmount: 'Amount',
    failureReason: 'Why it failed',
    failure: {
      KEY_NOT_FOUND: 'The Pix key is not registered in the Pix directory, so nothing was sent.',
      REJECTED: 'The receiving bank refused the payment.',
    },
    failedReturned: 'Its amount went back to the available balance.',
  },
  'pt-BR': {
    review: 'Revisar',
    reviewing: 'Consultando a chave…',
    reviewTitle: 'Confira quem vai receber',
    reviewLead: 'Segundo o diretório do Pix, esta chave pertence a:',
    holder: 'Titular',
    document: 'CPF/CNPJ',
    bank: 'Instituição',
    ispb: 'ISPB',
    amount: 'Valor',
    key: 'Chave Pix',
    batches: 'Enviado em {count} pagamentos Pix de até {max} cada.',
    documentMismatch: 'O CPF/CNPJ informado ({typed}) não é o do titular da chave. Confira a chave antes de enviar.',
    confirm: 'Confirmar e enviar',
    sending: 'Enviando…',
    edit: 'Alterar dados',
    keyNotFound: 'Nenhuma chave Pix assim está registrada. Confira a chave e o tipo.',
    lookupUnavailable: 'O diretório do Pix não respondeu; nada foi enviado. Tente de novo.',
    batchAmount: 'Valor',
    failureReason: 'Motivo da falha',
    failure: {
      KEY_NOT_FOUND: 'A chave Pix não está registrada no diretório do Pix, então nada foi enviado.',
      REJECTED: 'A instituição de destino recusou o pagamento.',
    },
    failedReturned: 'O valor voltou para o saldo disponível.',
  },
} as const;

/** The dashboard's language until the i18n setup lands: English, like every other page today. */
export const payoutCopy = PAYOUT_COPY.en;

export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? `{${k}}`));
}
