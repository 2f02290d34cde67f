import { Link } from '@tanstack/react-router';

export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no such page in the dashboard. Go to the <Link to="/">Overview</Link>.
      </p>
    </>
  );
}
