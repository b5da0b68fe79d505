// Request bodies for transaction tests.

export const VALID_CPF = '529.982.247-25';
export const VALID_CNPJ = '11.222.333/0001-81';
export const APPROVED_CARD = '4111111111111111';
export const REFUSED_CARD = '4000000000000002';

const nextYear = String(new Date().getUTCFullYear() + 2);

export function card(over: Record<string, unknown> = {}) {
  return { number: APPROVED_CARD, holder_name: 'Maria Silva', expiration_month: '12', expiration_year: nextYear, cvv: '837', ...over };
}

/** A valid body: two items totalling 2500 cents. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are bent into bad shapes on purpose
export function txBody(method: 'PIX' | 'CARD' | 'INVOICE' = 'PIX', over: Record<string, unknown> = {}): any {
  return {
    amount: 2500,
    customer: { name: 'Maria Silva', email: 'maria@example.com', phone: '+55 11 91234-5678', document: VALID_CPF, address: { street: 'Rua A', number: '10', city: 'São Paulo', state: 'SP', country: 'BR', zip: '01000-000' } },
    items: [
      { title: 'Caneca', unitPrice: 1000, quantity: 2, tangible: true },
      { title: 'Frete', unitPrice: 500, quantity: 1, tangible: false },
    ],
    method,
    ...(method === 'CARD' ? { card: card(), installments: 3 } : {}),
    ...over,
  };
}
