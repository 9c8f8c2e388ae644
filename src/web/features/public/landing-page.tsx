export function LandingPage() {
  return <main className="p-8"><h1 className="text-2xl font-semibold">LandingPage</h1></main>;
}
