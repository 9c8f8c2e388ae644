export function PlanPage() {
  return <main className="p-8"><h1 className="text-2xl font-semibold">PlanPage</h1></main>;
}
