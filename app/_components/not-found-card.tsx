import Link from 'next/link';

/** What an unknown id, or another account's, looks like: the same "not found" either way. */
export function NotFoundCard({ what, back, backLabel }: { what: string; back: string; backLabel: string }) {
  return (
    <section className="card narrow" role="alert" data-testid="not-found">
      <h1>{what} not found</h1>
      <p className="muted">No {what.toLowerCase()} of this account has that identifier.</p>
      <Link className="button secondary" href={back}>Back to {backLabel.toLowerCase()}</Link>
    </section>
  );
}
