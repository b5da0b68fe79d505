export default function Home() {
  return <main><h1>Pix Payments</h1><p>Dashboard coming soon.</p></main>;
}
