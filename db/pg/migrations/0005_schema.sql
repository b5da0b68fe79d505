-- System books are sharded (contract/ledger.ts SYSTEM_BOOK_SHARDS): no row is written by every merchant's movement.
ALTER TABLE "ledger_books" ADD COLUMN "shard" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- A database of an earlier release holds one row per system book (two only if two first uses raced): the
-- first becomes shard 0 and keeps its balance and lines, a twin a further shard, so no money moves and
-- the index below can be built. The new shards open at zero as movements first reach them.
UPDATE "ledger_books" b SET "shard" = r.n
FROM (SELECT id, row_number() OVER (PARTITION BY kind ORDER BY id) - 1 AS n FROM "ledger_books" WHERE account_id IS NULL) r
WHERE b.id = r.id AND r.n <> 0;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_books_system_shard_uq" ON "ledger_books" USING btree ("kind","shard") WHERE "ledger_books"."account_id" IS NULL;--> statement-breakpoint
-- A book opens empty (its balance is the sum of its lines, and it has none yet: a shard opened with a
-- balance would be money from nowhere), and only a system book has shards.
CREATE FUNCTION ledger_books_open_at_zero() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.balance <> 0 OR NEW.last_line_id <> 0 THEN
    RAISE EXCEPTION 'a book opens at a zero balance, before any line' USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.shard < 0 OR (NEW.account_id IS NOT NULL AND NEW.shard <> 0) THEN
    RAISE EXCEPTION 'only a system book has shards' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER ledger_books_open_at_zero BEFORE INSERT ON ledger_books FOR EACH ROW EXECUTE FUNCTION ledger_books_open_at_zero();--> statement-breakpoint
-- A book keeps its account, kind and shard: its lines were written to that book.
CREATE FUNCTION ledger_books_keep_identity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.account_id IS DISTINCT FROM OLD.account_id OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.shard IS DISTINCT FROM OLD.shard THEN
    RAISE EXCEPTION 'a book keeps its account, kind and shard' USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER ledger_books_keep_identity BEFORE UPDATE OF account_id, kind, shard ON ledger_books FOR EACH ROW EXECUTE FUNCTION ledger_books_keep_identity();
