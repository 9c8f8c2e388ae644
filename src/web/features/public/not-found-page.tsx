export function NotFoundPage() {
  return <main className="p-8"><h1 className="text-2xl font-semibold">NotFoundPage</h1></main>;
}
