CREATE TABLE `pix_charge_revisions` (
	`charge_id` text NOT NULL,
	`revisao` integer NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`charge_id`, `revisao`),
	FOREIGN KEY (`charge_id`) REFERENCES `pix_charges`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE TABLE `pix_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`txid` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`revisao` integer NOT NULL,
	`chave` text NOT NULL,
	`loc_id` integer,
	`amount` integer NOT NULL,
	`body` text NOT NULL,
	`document` text,
	`due_date` text,
	`expires_at` text,
	`batch_id` integer DEFAULT 0 NOT NULL,
	`transaction_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`loc_id`) REFERENCES `pix_locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "pix_charges_kind_ck" CHECK("pix_charges"."kind" IN ('cob', 'cobv')),
	CONSTRAINT "pix_charges_status_ck" CHECK("pix_charges"."status" IN ('ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP')),
	CONSTRAINT "pix_charges_revisao_ck" CHECK("pix_charges"."revisao" >= 0),
	CONSTRAINT "pix_charges_amount_bounds" CHECK("pix_charges"."amount" BETWEEN 1 AND 100000000000)
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_charges_txid_uq` ON `pix_charges` (`account_id`,`txid`);--> statement-breakpoint
CREATE UNIQUE INDEX `pix_charges_transaction_uq` ON `pix_charges` (`transaction_id`) WHERE "pix_charges"."transaction_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `pix_charges_account_kind_created_idx` ON `pix_charges` (`account_id`,`kind`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `pix_charges_account_kind_status_created_idx` ON `pix_charges` (`account_id`,`kind`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `pix_charges_account_document_idx` ON `pix_charges` (`account_id`,`document`,`created_at`);--> statement-breakpoint
CREATE INDEX `pix_charges_batch_idx` ON `pix_charges` (`account_id`,`batch_id`);--> statement-breakpoint
CREATE TABLE `pix_cobv_batch_items` (
	`account_id` text NOT NULL,
	`batch_id` integer NOT NULL,
	`txid` text NOT NULL,
	`status` text NOT NULL,
	`problema` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`account_id`, `batch_id`, `txid`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "pix_cobv_batch_items_status_ck" CHECK("pix_cobv_batch_items"."status" IN ('EM_PROCESSAMENTO', 'CRIADA', 'NEGADA'))
) STRICT;
--> statement-breakpoint
CREATE TABLE `pix_cobv_batches` (
	`account_id` text NOT NULL,
	`id` integer NOT NULL,
	`descricao` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`account_id`, `id`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE INDEX `pix_cobv_batches_account_created_idx` ON `pix_cobv_batches` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `pix_devolucoes` (
	`end_to_end_id` text NOT NULL,
	`id` text NOT NULL,
	`account_id` text NOT NULL,
	`refund_id` text NOT NULL,
	`natureza` text NOT NULL,
	`descricao` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`end_to_end_id`, `id`),
	FOREIGN KEY (`end_to_end_id`) REFERENCES `pix_received`(`end_to_end_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`refund_id`) REFERENCES `refunds`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "pix_devolucoes_natureza_ck" CHECK("pix_devolucoes"."natureza" IN ('ORIGINAL', 'RETIRADA'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_devolucoes_refund_uq` ON `pix_devolucoes` (`refund_id`);--> statement-breakpoint
CREATE TABLE `pix_key_webhooks` (
	`chave` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`url` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
) STRICT;
--> statement-breakpoint
CREATE INDEX `pix_key_webhooks_account_idx` ON `pix_key_webhooks` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `pix_locations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`token` text NOT NULL,
	`tipo_cob` text NOT NULL,
	`txid` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "pix_locations_tipo_cob_ck" CHECK("pix_locations"."tipo_cob" IN ('cob', 'cobv'))
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_locations_token_uq` ON `pix_locations` (`token`);--> statement-breakpoint
CREATE UNIQUE INDEX `pix_locations_txid_uq` ON `pix_locations` (`account_id`,`txid`) WHERE "pix_locations"."txid" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `pix_locations_account_created_idx` ON `pix_locations` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `pix_received` (
	`end_to_end_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`charge_id` text,
	`txid` text,
	`chave` text NOT NULL,
	`amount` integer NOT NULL,
	`componentes` text NOT NULL,
	`pagador` text NOT NULL,
	`pagador_document` text,
	`info_pagador` text,
	`received_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`charge_id`) REFERENCES `pix_charges`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "pix_received_amount_bounds" CHECK("pix_received"."amount" BETWEEN 1 AND 100000000000)
) STRICT;
--> statement-breakpoint
CREATE UNIQUE INDEX `pix_received_transaction_uq` ON `pix_received` (`transaction_id`);--> statement-breakpoint
CREATE INDEX `pix_received_account_received_idx` ON `pix_received` (`account_id`,`received_at`,`end_to_end_id`);--> statement-breakpoint
CREATE INDEX `pix_received_account_txid_idx` ON `pix_received` (`account_id`,`txid`);--> statement-breakpoint
CREATE INDEX `pix_received_account_document_idx` ON `pix_received` (`account_id`,`pagador_document`,`received_at`);--> statement-breakpoint
-- DECISIONS: a charge is paid at most once, and a paid charge is final (never revised nor removed); a
-- payment racing a revision or a second payment fails here even if the domain's checks were bypassed.
CREATE TRIGGER pix_charges_paid_is_final BEFORE UPDATE ON pix_charges WHEN OLD.status = 'CONCLUIDA'
BEGIN SELECT RAISE(ABORT, 'a paid charge is final'); END;
