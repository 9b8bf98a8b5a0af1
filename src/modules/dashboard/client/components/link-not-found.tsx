/** What a link's pages show for an id that names no link (deleted, or a stale bookmark). */
export function LinkNotFound() {
  return (
    <>
      <h1>Link not found</h1>
      <p>
        It may have been deleted. <a href="/app">Back to your links</a>
      </p>
    </>
  );
}
