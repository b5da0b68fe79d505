-- The ledger's guarantees on PostgreSQL: the same rules as db/sql/triggers.sql (SQLite), in PL/pgSQL.
-- Under READ COMMITTED with many connections, a statement's lines move their books in one UPDATE, which
-- waits for each book's row lock and then reads its latest committed balance, so the checks and the running
-- balance are computed from the real current row and two transactions never both spend the same balance.
-- A line computed from a balance that moved while its statement waited for that lock fails with
-- SQLSTATE 40001 (serialization_failure): the writer retries the whole job, which then reads afresh.

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_ARGV[0] USING ERRCODE = 'restrict_violation';
END $$;
--> statement-breakpoint
-- The ledger is append-only: corrections are new entries, never edits.
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION refuse_change('ledger_entries');
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION refuse_change('ledger_entries');
--> statement-breakpoint
CREATE TRIGGER ledger_lines_no_update BEFORE UPDATE ON ledger_lines FOR EACH ROW EXECUTE FUNCTION refuse_change('ledger_lines');
--> statement-breakpoint
CREATE TRIGGER ledger_lines_no_delete BEFORE DELETE ON ledger_lines FOR EACH ROW EXECUTE FUNCTION refuse_change('ledger_lines');
--> statement-breakpoint
-- TRUNCATE fires no row trigger: refuse it on the history tables too.
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION refuse_change('ledger_entries');
--> statement-breakpoint
CREATE TRIGGER ledger_lines_no_truncate BEFORE TRUNCATE ON ledger_lines FOR EACH STATEMENT EXECUTE FUNCTION refuse_change('ledger_lines');
--> statement-breakpoint
-- Events are history too.
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION refuse_change('events');
--> statement-breakpoint
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION refuse_change('events');
--> statement-breakpoint
-- A line states the book's balance after it and is never dated before the book's previous line, so a
-- book's lines in (created_at, id) order form an exact running statement. Those checks are
-- ledger_lines_apply's, once per statement under the books' row locks (below); this trigger only numbers
-- the line. A line's id is drawn before its book is locked only where a client did not lock it first;
-- ledger_lines_apply then finds it numbered before the book's previous line and refuses it
-- (serialization_failure: read afresh, retry), so a book's last_line_id only grows.
CREATE FUNCTION ledger_lines_check_running() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- the running checks are ledger_lines_apply's, under its lock; here only the id, from the sequence whatever a
  -- client wrote (lines are numbered in the order they are inserted)
  NEW.id := nextval('ledger_lines_id_seq'::regclass);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_lines_check_running BEFORE INSERT ON ledger_lines FOR EACH ROW EXECUTE FUNCTION ledger_lines_check_running();
--> statement-breakpoint
-- The running balance moves with every line, in the same statement, so it always equals the sum of
-- the book's lines; the CHECK on ledger_books and this trigger then refuse any line that would overdraw
-- a merchant, and this trigger refuses money arriving across the ceiling. `available` may go below
-- zero through a dispute hold and no other way (docs/decisions.md "Disputes"): a debit that leaves it negative
-- is refused unless its entry is a dispute hold, while a credit is always welcome (it covers the
-- shortfall first). The ceiling (docs/decisions.md "Money", BALANCE_CEILING_ENTRY_KINDS in db/schema/ledger.ts)
-- refuses only money ARRIVING from outside the merchant's books: returns, releases and holds always pass.
-- Once per statement, over the statement's lines (new_lines), since each statement inside a trigger costs
-- PostgreSQL an executor start and, for a table with CHECK constraints, a parse of those constraints: the
-- books move in one UPDATE under their row locks, each line checked against its book's current row (the
-- balance it states, its date, its id), then the floor and the ceiling per line; the entries' kinds are read
-- only when a line is near either.
CREATE FUNCTION ledger_lines_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE lines int; applied bigint[]; floor_hit boolean; ceiling_hit boolean; ln record; bk record;
BEGIN
  -- each book's first line of the statement: the one that follows from the book's row
  WITH moved AS (
    UPDATE ledger_books b SET balance = b.balance + l.amount, last_line_id = l.id, updated_at = l.created_at
    FROM new_lines l
    WHERE b.id = l.book_id AND l.balance_after = b.balance + l.amount AND l.created_at >= b.updated_at AND l.id > b.last_line_id
    RETURNING l.id, l.amount, b.balance, b.account_id, b.allow_negative)
  SELECT (SELECT count(*) FROM new_lines), array_agg(id),
         coalesce(bool_or(amount < 0 AND balance < 0 AND allow_negative = 0), false),
         coalesce(bool_or(amount > 0 AND balance > 10000000000000 AND account_id IS NOT NULL), false)
    INTO lines, applied, floor_hit, ceiling_hit FROM moved;
  IF lines > coalesce(array_length(applied, 1), 0) THEN
    -- the others one by one in id order: a book's later lines of the statement, or a line that does not follow
    FOR ln IN SELECT * FROM new_lines WHERE NOT (id = ANY (coalesce(applied, '{}'))) ORDER BY id LOOP
      UPDATE ledger_books SET balance = balance + ln.amount, last_line_id = ln.id, updated_at = ln.created_at
        WHERE id = ln.book_id AND ln.balance_after = balance + ln.amount AND ln.created_at >= updated_at AND ln.id > last_line_id
        RETURNING balance, account_id, allow_negative INTO bk;
      IF NOT FOUND THEN
        SELECT balance, updated_at INTO bk FROM ledger_books WHERE id = ln.book_id;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'ledger line names an unknown book' USING ERRCODE = 'foreign_key_violation';
        ELSIF ln.balance_after IS DISTINCT FROM bk.balance + ln.amount THEN
          RAISE EXCEPTION 'ledger line balance_after must be the book balance plus its amount (the balance is %, the line says % after %)', bk.balance, ln.balance_after, ln.amount
            USING ERRCODE = 'serialization_failure';
        ELSIF ln.created_at < bk.updated_at THEN
          RAISE EXCEPTION 'ledger line dated before the book''s previous line' USING ERRCODE = 'serialization_failure';
        END IF;
        RAISE EXCEPTION 'ledger line numbered before the book''s previous line' USING ERRCODE = 'serialization_failure';
      END IF;
      floor_hit := floor_hit OR (ln.amount < 0 AND bk.balance < 0 AND bk.allow_negative = 0);
      ceiling_hit := ceiling_hit OR (ln.amount > 0 AND bk.balance > 10000000000000 AND bk.account_id IS NOT NULL);
    END LOOP;
  END IF;
  IF floor_hit OR ceiling_hit THEN
    -- a line's balance_after is its book's balance after it (checked above)
    FOR ln IN SELECT n.amount, b.kind AS book_kind, e.kind AS entry_kind
      FROM new_lines n JOIN ledger_books b ON b.id = n.book_id JOIN ledger_entries e ON e.id = n.entry_id
      WHERE (n.amount < 0 AND n.balance_after < 0 AND b.allow_negative = 0)
         OR (n.amount > 0 AND n.balance_after > 10000000000000 AND b.account_id IS NOT NULL)
      ORDER BY n.id LOOP
      IF ln.amount < 0 AND ln.book_kind = 'available' AND ln.entry_kind IS DISTINCT FROM 'dispute_hold' THEN
        RAISE EXCEPTION 'ledger_books_balance_non_negative: only a dispute hold may take available below zero'
          USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_books_balance_non_negative';
      ELSIF ln.amount > 0 AND ln.entry_kind IN ('sandbox_topup', 'transaction_credit') THEN
        RAISE EXCEPTION 'ledger_books_balance_ceiling: money arriving may not take a balance above the ceiling'
          USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_books_balance_ceiling';
      END IF;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_lines_apply AFTER INSERT ON ledger_lines REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION ledger_lines_apply();
--> statement-breakpoint
-- A balance is the sum of its book's lines and nothing else: it moves only by the amount of a new line
-- of that book (so the rules above cannot be side-stepped by writing a balance directly).
CREATE FUNCTION ledger_books_balance_from_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.balance IS DISTINCT FROM OLD.balance OR NEW.last_line_id IS DISTINCT FROM OLD.last_line_id THEN
    IF NEW.last_line_id <= OLD.last_line_id
       OR NEW.balance IS DISTINCT FROM OLD.balance + (SELECT l.amount FROM ledger_lines l WHERE l.id = NEW.last_line_id AND l.book_id = NEW.id) THEN
      RAISE EXCEPTION 'a book balance moves only with a new ledger line of that book' USING ERRCODE = 'restrict_violation';
    END IF;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
-- Judges every UPDATE a client sends (trigger depth 0). The only trigger that updates ledger_books is
-- ledger_lines_apply, which moves a book by exactly its lines under the checks above: its UPDATE is not
-- judged twice.
CREATE TRIGGER ledger_books_balance_from_lines BEFORE UPDATE OF balance, last_line_id ON ledger_books FOR EACH ROW
  WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION ledger_books_balance_from_lines();
--> statement-breakpoint
-- Refunds: only of an APPROVED transaction of the same account, never while a dispute is open or lost,
-- created PENDING; the transaction's refunded_amount follows them (its CHECK caps it at the amount).
-- The transaction's row is locked first, so a refund and a dispute of one charge (which also lock it)
-- are checked one after the other, never both against the same old figures.
CREATE FUNCTION refunds_check_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM transactions WHERE id = NEW.transaction_id FOR UPDATE;
  IF NOT EXISTS (SELECT 1 FROM transactions WHERE id = NEW.transaction_id AND account_id = NEW.account_id AND status = 'APPROVED') THEN
    RAISE EXCEPTION 'refund of a transaction that is not APPROVED' USING ERRCODE = 'check_violation';
  END IF;
  IF EXISTS (SELECT 1 FROM disputes WHERE transaction_id = NEW.transaction_id AND status IN ('OPEN', 'LOST')) THEN
    RAISE EXCEPTION 'refund of a transaction with an open or lost dispute' USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status <> 'PENDING' THEN
    RAISE EXCEPTION 'a refund starts PENDING' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER refunds_check_insert BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION refunds_check_insert();
--> statement-breakpoint
CREATE FUNCTION refunds_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE transactions SET refunded_amount = refunded_amount + NEW.amount WHERE id = NEW.transaction_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER refunds_apply AFTER INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION refunds_apply();
--> statement-breakpoint
-- A refund settles once (PENDING → PAID | ERROR) and keeps its amount and charge; a failed one no
-- longer counts as refunded.
CREATE FUNCTION refunds_check_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount <> OLD.amount OR NEW.transaction_id <> OLD.transaction_id OR NEW.account_id <> OLD.account_id THEN
    RAISE EXCEPTION 'a refund keeps its amount, charge and account' USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status <> OLD.status AND OLD.status <> 'PENDING' THEN
    RAISE EXCEPTION 'a refund settles once, from PENDING' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER refunds_check_update BEFORE UPDATE ON refunds FOR EACH ROW EXECUTE FUNCTION refunds_check_update();
--> statement-breakpoint
CREATE FUNCTION refunds_failed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE transactions SET refunded_amount = refunded_amount - NEW.amount WHERE id = NEW.transaction_id;
  -- A dispute opened while this refund was pending held total minus refunds counting it; the amount it
  -- no longer gives back joins the hold (an open dispute) or the chargeback (a lost one), so refunds and
  -- the hold still make the total. The domain posts the matching ledger entry in the same job.
  UPDATE disputes SET amount = amount + NEW.amount, updated_at = NEW.updated_at
    WHERE transaction_id = NEW.transaction_id AND status IN ('OPEN', 'LOST');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER refunds_failed AFTER UPDATE OF status ON refunds FOR EACH ROW
  WHEN (OLD.status = 'PENDING' AND NEW.status = 'ERROR') EXECUTE FUNCTION refunds_failed();
--> statement-breakpoint
CREATE TRIGGER refunds_no_delete BEFORE DELETE ON refunds FOR EACH ROW EXECUTE FUNCTION refuse_change('refunds');
--> statement-breakpoint
-- A dispute holds at most what is left after refunds: refunds and the hold never exceed the total.
CREATE FUNCTION disputes_check_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE left_cents bigint;
BEGIN
  SELECT amount - refunded_amount INTO left_cents FROM transactions WHERE id = NEW.transaction_id FOR UPDATE;
  IF NEW.amount > left_cents THEN
    RAISE EXCEPTION 'dispute hold exceeds the transaction total minus its refunds' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER disputes_check_insert BEFORE INSERT ON disputes FOR EACH ROW EXECUTE FUNCTION disputes_check_insert();
--> statement-breakpoint
-- A dispute keeps its charge and account, and its amount only grows, never past total minus refunds.
CREATE FUNCTION disputes_check_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE left_cents bigint;
BEGIN
  IF NEW.transaction_id <> OLD.transaction_id OR NEW.account_id <> OLD.account_id THEN
    RAISE EXCEPTION 'a dispute keeps its charge and account' USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.amount <> OLD.amount THEN
    SELECT amount - refunded_amount INTO left_cents FROM transactions WHERE id = NEW.transaction_id;
    IF NEW.amount < OLD.amount OR NEW.amount > left_cents THEN
      RAISE EXCEPTION 'dispute hold exceeds the transaction total minus its refunds' USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER disputes_check_update BEFORE UPDATE ON disputes FOR EACH ROW EXECUTE FUNCTION disputes_check_update();
--> statement-breakpoint
-- A transaction is credited once (docs/decisions.md "Transactions"), whatever the number of instances: a
-- second `transaction_credit` entry for the same charge breaks this index (as on SQLite).
CREATE UNIQUE INDEX ledger_entries_one_credit_uq ON ledger_entries (resource_id) WHERE kind = 'transaction_credit';
--> statement-breakpoint
-- The word search of names (name_words, as db/sql/triggers.sql): each word of a charge's customer name
-- or a withdrawal's recipient name, filed under its first three letters, one row per owner and stem.
CREATE FUNCTION transactions_name_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO name_words (account_id, subject, stem, created_at, owner_id, words)
  SELECT NEW.account_id, 'transaction', substr(w, 1, 3), NEW.created_at, NEW.id, ',' || string_agg(DISTINCT w, ',')
  FROM customers c, json_array_elements_text(c.name_words::json) w
  WHERE c.id = NEW.customer_id AND w <> ''
  GROUP BY substr(w, 1, 3);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER transactions_name_words AFTER INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION transactions_name_words();
--> statement-breakpoint
CREATE FUNCTION withdrawals_name_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO name_words (account_id, subject, stem, created_at, owner_id, words)
  SELECT NEW.account_id, 'withdrawal', substr(w, 1, 3), NEW.created_at, NEW.id, ',' || string_agg(DISTINCT w, ',')
  FROM json_array_elements_text(NEW.details_name_words::json) w
  WHERE w <> ''
  GROUP BY substr(w, 1, 3);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER withdrawals_name_words AFTER INSERT ON withdrawals FOR EACH ROW EXECUTE FUNCTION withdrawals_name_words();
--> statement-breakpoint
-- A commit wakes the other instances (instances are stateless, so work one commits must reach the
-- others without waiting for their poll): each statement that adds or
-- changes background work notifies channel pix_work with its table's name, delivered at COMMIT (and
-- folded into one per table and transaction by PostgreSQL). db/pg/notify.ts listens and wakes the job
-- loops of that table; the instance's own commits wake its loops directly as well. PostgreSQL only:
-- SQLite's single process has no one else to wake.
CREATE FUNCTION notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pix_work', TG_TABLE_NAME);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER events_notify_work AFTER INSERT OR UPDATE ON events FOR EACH STATEMENT EXECUTE FUNCTION notify_work();
--> statement-breakpoint
CREATE TRIGGER deliveries_notify_work AFTER INSERT OR UPDATE ON deliveries FOR EACH STATEMENT EXECUTE FUNCTION notify_work();
--> statement-breakpoint
CREATE TRIGGER withdrawal_batches_notify_work AFTER INSERT OR UPDATE ON withdrawal_batches FOR EACH STATEMENT EXECUTE FUNCTION notify_work();
--> statement-breakpoint
CREATE TRIGGER refunds_notify_work AFTER INSERT OR UPDATE ON refunds FOR EACH STATEMENT EXECUTE FUNCTION notify_work();
--> statement-breakpoint
-- Since migration 0005 (system books sharded: contract/ledger.ts SYSTEM_BOOK_SHARDS):
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
--> statement-breakpoint
-- Since migration 0009: one ledger entry in one call, one round trip per entry instead of one per line. A
-- transfer between two books (every entry the product posts) is one statement: its books locked in id order
-- (as db/query.ts lockRows did, so two entries on the same books cannot deadlock), read, and the entry and
-- both lines inserted, each line stating its book's balance after it and dated no earlier than the book's
-- previous line. Any other shape, line by line in the order given (debits first). The books are found by
-- `id = ANY(...)`/`IN (...)`, an index scan whatever the number of books. The triggers above still judge
-- every line (floor, ceiling, running balance, append-only): a refused line fails this call with their
-- constraint name, and the caller's savepoint takes back the entry.
CREATE FUNCTION ledger_post(p_entry text, p_account text, p_kind text, p_resource text, p_description text, p_at timestamptz, p_lines jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE book1 text; book2 text; amount1 bigint; amount2 bigint; n int; l record;
BEGIN
  IF jsonb_array_length(p_lines) = 2 THEN
    book1 := p_lines->0->>'book'; amount1 := (p_lines->0->>'amount')::bigint;
    book2 := p_lines->1->>'book'; amount2 := (p_lines->1->>'amount')::bigint;
  END IF;
  IF book1 <> book2 THEN
    WITH e AS (INSERT INTO ledger_entries (id, account_id, kind, resource_id, description, created_at)
               VALUES (p_entry, p_account, p_kind, p_resource, p_description, p_at))
    INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
      SELECT p_entry, b.id, CASE WHEN b.id = book1 THEN amount1 ELSE amount2 END,
             b.balance + CASE WHEN b.id = book1 THEN amount1 ELSE amount2 END, greatest(p_at, b.updated_at)
      FROM (SELECT id, balance, updated_at FROM ledger_books WHERE id IN (book1, book2) ORDER BY id FOR UPDATE) b
      ORDER BY b.id = book2;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n <> 2 THEN
      RAISE EXCEPTION 'ledger line names an unknown book' USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN;
  END IF;
  PERFORM 1 FROM ledger_books WHERE id = ANY (ARRAY(SELECT x->>'book' FROM jsonb_array_elements(p_lines) x)) ORDER BY id FOR UPDATE;
  INSERT INTO ledger_entries (id, account_id, kind, resource_id, description, created_at)
    VALUES (p_entry, p_account, p_kind, p_resource, p_description, p_at);
  FOR l IN SELECT x->>'book' AS book, (x->>'amount')::bigint AS amount FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS t(x, k) ORDER BY k LOOP
    INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
      SELECT p_entry, b.id, l.amount, b.balance + l.amount, greatest(p_at, b.updated_at) FROM ledger_books b WHERE b.id = l.book;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'ledger line names an unknown book' USING ERRCODE = 'foreign_key_violation';
    END IF;
  END LOOP;
END $$;
