/** What the router hands every page. */
export interface PageProps {
  /** The `:name` parts of the route's path. */
  params: Record<string, string>;
  query: URLSearchParams;
}
