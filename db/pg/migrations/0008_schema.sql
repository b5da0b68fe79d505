CREATE TABLE "account_receivers" (
	"account_id" text PRIMARY KEY NOT NULL,
	"document" text NOT NULL,
	"name" text NOT NULL,
	"trade_name" text,
	"street" text NOT NULL,
	"city" text NOT NULL,
	"uf" text NOT NULL,
	"cep" text NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	CONSTRAINT "account_receivers_document_ck" CHECK (length("account_receivers"."document") IN (11, 14)),
	CONSTRAINT "account_receivers_uf_ck" CHECK (length("account_receivers"."uf") = 2),
	CONSTRAINT "account_receivers_cep_ck" CHECK (length("account_receivers"."cep") = 8)
);
--> statement-breakpoint
ALTER TABLE "audit_trail" DROP CONSTRAINT "audit_trail_action_ck";--> statement-breakpoint
ALTER TABLE "account_receivers" ADD CONSTRAINT "account_receivers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_trail" ADD CONSTRAINT "audit_trail_action_ck" CHECK ("audit_trail"."action" IN ('session.sign_in', 'session.sign_out_everywhere', 'password.change', 'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate', 'pix_client_secret.rotate', 'receiver.update'));