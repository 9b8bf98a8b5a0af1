/** Any /app path no route matches. */
import { usePageTitle } from '../lib/hooks';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no dashboard page at this address.</p>
      <p>
        <a href="/app">Go to your links</a>
      </p>
    </>
  );
}
