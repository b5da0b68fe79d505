-- Since migration 0009: one ledger entry in one statement. The entry and its lines, in the order given
-- (debits first), after the lines' books are locked in id order (as db/query.ts lockRows did, so two
-- entries on the same books cannot deadlock); each line states its book's balance after it and is dated no
-- earlier than the book's previous line, read under that lock. The triggers above still judge every line
-- (floor, ceiling, running balance, append-only): a refused line fails this call with their constraint
-- name, and the caller's savepoint takes back the entry. One round trip per entry instead of one per line.
CREATE FUNCTION ledger_post(p_entry text, p_account text, p_kind text, p_resource text, p_description text, p_at timestamptz, p_lines jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE l record;
BEGIN
  PERFORM 1 FROM ledger_books WHERE id IN (SELECT x->>'book' FROM jsonb_array_elements(p_lines) x) ORDER BY id FOR UPDATE;
  INSERT INTO ledger_entries (id, account_id, kind, resource_id, description, created_at)
    VALUES (p_entry, p_account, p_kind, p_resource, p_description, p_at);
  FOR l IN SELECT x->>'book' AS book, (x->>'amount')::bigint AS amount FROM jsonb_array_elements(p_lines) WITH ORDINALITY AS t(x, n) ORDER BY n LOOP
    INSERT INTO ledger_lines (entry_id, book_id, amount, balance_after, created_at)
      SELECT p_entry, b.id, l.amount, b.balance + l.amount, greatest(p_at, b.updated_at) FROM ledger_books b WHERE b.id = l.book;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'ledger line names an unknown book' USING ERRCODE = 'foreign_key_violation';
    END IF;
  END LOOP;
END $$;
