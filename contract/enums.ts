// The contract's enumerations, declared once. Pure constants (no database, no node modules): the
// table declarations of both engines, the zod contracts, the domain and the dashboard's browser bundle
// all import them.

export const PIX_KEY_TYPES = ['EVP', 'EMAIL', 'PHONE', 'CPF', 'CNPJ'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

export const WITHDRAWAL_STATUSES = ['REQUESTED', 'PARTIALLY_PAID', 'PAID', 'ERROR'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

export const BATCH_STATUSES = ['PENDING', 'PAID', 'ERROR'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const TRANSACTION_METHODS = ['PIX', 'CARD', 'INVOICE'] as const;
export type TransactionMethod = (typeof TRANSACTION_METHODS)[number];

export const TRANSACTION_STATUSES = ['CREATED', 'PENDING', 'REFUSED', 'APPROVED'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const DISPUTE_STATUSES = ['OPEN', 'WON', 'LOST'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** Event categories: what a webhook subscribes to. */
export const EVENT_CATEGORIES = ['transaction', 'withdraw', 'dispute'] as const;
export type EventCategory = (typeof EVENT_CATEGORIES)[number];
/** Every stored event's category: the subscribable ones plus `webhook` (a test event sent by hand) and `pix` (an API Pix notification to a key's webhook, never fanned out). */
export const STORED_EVENT_CATEGORIES = [...EVENT_CATEGORIES, 'webhook', 'pix'] as const;
export type StoredEventCategory = (typeof STORED_EVENT_CATEGORIES)[number];

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Where a delivery goes: a `webhooks` row, a resource's postback URL, or a Pix key's API Pix webhook (`{webhookUrl}/pix`). */
export const DELIVERY_TARGETS = ['webhook', 'postback', 'pix'] as const;
export type DeliveryTarget = (typeof DELIVERY_TARGETS)[number];

export const REFUND_STATUSES = ['PENDING', 'PAID', 'ERROR'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** The dashboard's languages: Brazilian Portuguese first, English as a choice. */
export const DASHBOARD_LOCALES = ['pt-BR', 'en'] as const;
export type DashboardLocale = (typeof DASHBOARD_LOCALES)[number];
export const DEFAULT_LOCALE: DashboardLocale = 'pt-BR';

/**
 * Why a batch failed, as a code the dashboard can put in the reader's language; `reason` is the
 * English sentence the API shows. KEY_NOT_FOUND: the key is not in the directory (any more);
 * REJECTED: the receiving institution refused the payment.
 */
export const FAILURE_CODES = ['KEY_NOT_FOUND', 'REJECTED'] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** What the audit trail records: who got at a secret or a credential, and who signed in or out. */
export const AUDIT_ACTIONS = [
  'session.sign_in', 'session.sign_out_everywhere', 'password.change',
  'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate',
  'pix_client_secret.rotate', 'receiver.update',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The scopes of the Banco Central's API Pix for the charge side (bcb-pix-api-2.9.0.yaml's
 * securitySchemes): what an API Pix client may be granted. A client has all of them unless narrowed.
 */
export const PIX_API_SCOPES = [
  'cob.write', 'cob.read', 'cobv.write', 'cobv.read', 'lotecobv.write', 'lotecobv.read',
  'pix.write', 'pix.read', 'webhook.write', 'webhook.read', 'payloadlocation.write', 'payloadlocation.read',
] as const;
export type PixApiScope = (typeof PIX_API_SCOPES)[number];

/** The API Pix's charges: immediate (`cob`) and with a due date (`cobv`). */
export const PIX_CHARGE_KINDS = ['cob', 'cobv'] as const;
export type PixChargeKind = (typeof PIX_CHARGE_KINDS)[number];

/** A charge's status as the yaml names it (`StatusCobranca`). */
export const PIX_CHARGE_STATUSES = ['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP'] as const;
export type PixChargeStatus = (typeof PIX_CHARGE_STATUSES)[number];

/** What became of one charge of a `lotecobv` (the yaml's `status` of `cobsv[]`). */
export const COBV_BATCH_ITEM_STATUSES = ['EM_PROCESSAMENTO', 'CRIADA', 'NEGADA'] as const;
export type CobvBatchItemStatus = (typeof COBV_BATCH_ITEM_STATUSES)[number];

/** A devolução's `natureza`: only ORIGINAL is offered (RETIRADA needs Pix Saque/Troco, which is not served). */
export const DEVOLUCAO_NATUREZAS = ['ORIGINAL', 'RETIRADA'] as const;
export type DevolucaoNatureza = (typeof DEVOLUCAO_NATUREZAS)[number];
