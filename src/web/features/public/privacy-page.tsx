export function PrivacyPage() {
  return <main className="p-8"><h1 className="text-2xl font-semibold">PrivacyPage</h1></main>;
}
