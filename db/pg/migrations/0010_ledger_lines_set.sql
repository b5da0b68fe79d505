-- Since migration 0010: the same rules, in fewer statements per ledger entry (each statement inside a trigger
-- costs PostgreSQL an executor start and, for a table with CHECK constraints, a parse of those constraints).
-- A line's id is drawn before its book is locked only where a client did not lock it first; ledger_lines_apply then
-- finds it numbered before the book's previous line and refuses it (serialization_failure: read afresh, retry).
CREATE OR REPLACE FUNCTION ledger_lines_check_running() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- the running checks are ledger_lines_apply's, under its lock; here only the id, from the sequence whatever a
  -- client wrote (lines are numbered in the order they are inserted)
  NEW.id := nextval('ledger_lines_id_seq'::regclass);
  RETURN NEW;
END $$;
--> statement-breakpoint
DROP TRIGGER ledger_lines_apply ON ledger_lines;
--> statement-breakpoint
-- Once per statement, over the statement's lines (new_lines): the books move in one UPDATE under their row
-- locks, each line checked against its book's current row (the balance it states, its date, its id), then the
-- floor and the ceiling per line; the entries' kinds are read only when a line is near either.
CREATE OR REPLACE FUNCTION ledger_lines_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP TRIGGER ledger_books_balance_from_lines ON ledger_books;
--> statement-breakpoint
-- Judges every UPDATE a client sends (trigger depth 0). The only trigger that updates ledger_books is
-- ledger_lines_apply, which moves a book by exactly its lines under the checks above: its UPDATE is not
-- judged twice.
CREATE TRIGGER ledger_books_balance_from_lines BEFORE UPDATE OF balance, last_line_id ON ledger_books FOR EACH ROW
  WHEN (pg_trigger_depth() = 0) EXECUTE FUNCTION ledger_books_balance_from_lines();
--> statement-breakpoint
-- A transfer between two books (every entry the product posts) is one statement: its books locked in id
-- order, read, and the entry and both lines inserted. Any other shape, as before, line by line. The books are
-- found by `id = ANY(...)`/`IN (...)`, an index scan whatever the number of books (0009's `IN (SELECT ...
-- jsonb_array_elements(...))` was planned for a hundred lines and scanned the whole table).
CREATE OR REPLACE FUNCTION ledger_post(p_entry text, p_account text, p_kind text, p_resource text, p_description text, p_at timestamptz, p_lines jsonb)
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
