export function TermsPage() {
  return <main className="p-8"><h1 className="text-2xl font-semibold">TermsPage</h1></main>;
}
