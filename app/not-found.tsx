import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="centered-page">
      <div className="card narrow">
        <h1>Not found</h1>
        <p className="muted">There is nothing at this address, or it belongs to another account.</p>
        <Link className="button" href="/">Back to the overview</Link>
      </div>
    </main>
  );
}
