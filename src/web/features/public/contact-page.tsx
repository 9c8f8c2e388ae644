export function ContactPage() {
  return <main className="p-8"><h1 className="text-2xl font-semibold">ContactPage</h1></main>;
}
