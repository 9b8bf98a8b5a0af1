// Text imports (`with { type: 'text' }`) embedded by Bun into the compiled binary.
declare module '*.sql' {
  const text: string;
  export default text;
}
declare module '*.css' {
  const text: string;
  export default text;
}
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const text: string;
  export default text;
}
declare module '*.svg' {
  const text: string;
  export default text;
}
