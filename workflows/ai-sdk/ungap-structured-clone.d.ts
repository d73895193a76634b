// @ungap/structured-clone ships no types; this is the one function the polyfill takes from it.
declare module '@ungap/structured-clone' {
  const structuredClone: <T>(value: T, options?: { json?: boolean; lossy?: boolean }) => T;
  export default structuredClone;
}
